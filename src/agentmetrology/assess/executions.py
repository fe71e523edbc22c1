"""Assess executions against their task contracts: two estimands, three views, envelopes.

Each execution of an environment with contract hooks is captured as evidence and checked:

- `original`: the evidence as captured, through the completeness-aware gate;
- `masked_raw`: an evaluator-facing copy with the masked paths withheld, read by a raw checker
  (a missing path is a FAIL);
- `masked_gate`: the same copy through the completeness-aware gate (UNKNOWN "withheld").

For every view both estimands are reported: goal-only (the goal check) and full contract (the
three-valued conjunction). An interrupted execution is a measurement failure in every view:
excluded and counted, never a FAIL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.assess.envelope import envelope_of
from agentmetrology.assess.masking import check_coverage, check_mask, mask_evidence
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.contract import Contract, ContractHooks, ContractResult, evaluate
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.records.errors import UserError
from agentmetrology.run.episode import run_one
from agentmetrology.scoring.episode import episode_context

ESTIMANDS = ("goal", "contract")


class NoContractError(UserError):
    """The environment declares no contract."""


def hooks_of(spec: EnvSpec) -> ContractHooks:
    """Return the environment's contract hooks, or raise one line saying it has none."""
    if spec.contract is None:
        raise NoContractError(f"environment {spec.name!r} declares no task contract; "
                              "`agm assess` needs one (EnvSpec.contract)")
    return spec.contract


def views_of(masks: Sequence[str]) -> tuple[str, ...]:
    """Return the views reported: the original, and with masks the raw and gated copies."""
    return ("original", "masked_raw", "masked_gate") if masks else ("original",)


def _result_row(r: ContractResult | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"withheld": list(r.withheld), "goal": r.goal_status, "contract": r.status,
            "reasons": list(r.reasons),
            "checks": {c.name: c.status for c in r.checks},
            "check_reasons": {c.name: list(c.reasons) for c in r.checks if c.reasons}}


def judge(contract: Contract, doc: dict[str, Any], masks: Sequence[str]
          ) -> dict[str, ContractResult]:
    """Return the contract's result in every view of one execution's evidence."""
    before = canonical_json(doc)
    out = {"original": evaluate(contract, doc)}
    if masks:
        masked, withheld = mask_evidence(doc, masks)
        out["masked_raw"] = evaluate(contract, masked, gate="raw", withheld=withheld)
        out["masked_gate"] = evaluate(contract, masked, gate="complete", withheld=withheld)
    if canonical_json(doc) != before:  # the original evidence is never touched
        raise AssertionError("masking changed the original evidence")
    return out


def judge_episode(spec: EnvSpec, episode: Episode, masks: Sequence[str]) -> dict[str, Any]:
    """Return one execution's row: identity, termination and the result in every view."""
    row: dict[str, Any] = {"task": episode.task, "seed": episode.seed,
                           "termination": episode.termination.kind}
    if episode.termination.is_measurement_failure:
        row["measurement_failure"] = episode.termination.detail or episode.termination.kind
        row.update(dict.fromkeys(views_of(masks)))
        return row
    hooks = hooks_of(spec)
    seed, profile = episode_context(spec, episode)
    doc = hooks.capture(episode.submission, episode.task, seed, profile, episode.events)
    for view, result in judge(hooks.contract(episode.task), doc, masks).items():
        row[view] = _result_row(result)
    return row


def summarise(rows: Sequence[dict[str, Any]], masks: Sequence[str]) -> dict[str, Any]:
    """Return per view and estimand the envelope, and per view each check's status counts."""
    views: dict[str, Any] = {}
    for view in views_of(masks):
        results = [r.get(view) for r in rows]
        views[view] = {e: envelope_of(None if x is None else x[e] for x in results).as_dict()
                       for e in ESTIMANDS}
        checks: dict[str, dict[str, int]] = {}
        for x in results:
            for name, status in (x or {}).get("checks", {}).items():
                checks.setdefault(name, {})
                checks[name][status] = checks[name].get(status, 0) + 1
        views[view]["checks"] = checks
    return views


def withheld_counts(rows: Sequence[dict[str, Any]], masks: Sequence[str]) -> dict[str, int]:
    """Return, per mask path, how many judged rows had it withheld under the gate."""
    return {p: sum(1 for r in rows if p in ((r.get("masked_gate") or {}).get("withheld") or ()))
            for p in masks}


def assess_runs(spec: EnvSpec, tasks: Sequence[str], seeds: Sequence[int], agent: str,
                level: str, profile: str, condition: str,
                masks: Sequence[str]) -> dict[str, Any]:
    """Run a model-free agent on every (task, seed) and return the assessment document."""
    hooks = hooks_of(spec)
    for task in tasks:  # refuse a bad contract or mask before running anything
        hooks.contract(task)  # raises one line for a path the evidence does not have
        check_mask(hooks.capture(None, task, seeds[0] if seeds else 0, profile, ()), masks,
                   f"{spec.name} task {task}")
    rows = []
    for task in tasks:
        for seed in seeds:
            ep = run_one(spec, task, seed, agent, level, profile, condition).episode
            rows.append(judge_episode(spec, ep, masks))
    withheld_in = withheld_counts(rows, masks)
    measured = sum(1 for r in rows if "measurement_failure" not in r)
    if measured:  # with nothing measured there is no evidence to have withheld anything from
        check_coverage(withheld_in, spec.name)
    return {"environment": spec.name, "agent": agent, "level": level, "profile": profile,
            "condition": condition, "tasks": list(tasks), "seeds": list(seeds),
            "masked": list(masks), "withheld_in": withheld_in, "executions": len(rows),
            "views": summarise(rows, masks), "rows": rows}
