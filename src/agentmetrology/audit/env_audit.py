"""The full audit of a registered environment: every stage its hooks allow, the card, audit.json.

A stage whose hook the environment does not supply is `not probed` on the card, never `pass`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology import __version__
from agentmetrology.audit import episodes as E
from agentmetrology.audit import replay as R
from agentmetrology.audit.card import configuration, explain_claims, row
from agentmetrology.audit.criterion_verdict import criterion_verdict
from agentmetrology.audit.probes import offending_summary, probe_battery
from agentmetrology.audit.solvability import DEFAULT_BUDGETS, solvability
from agentmetrology.audit.store_read import StoreEpisodes
from agentmetrology.audit.target import Probe, ScoreOutcome, ScorerKind, TaskRef
from agentmetrology.audit.targets.env import TRUTH_EXCLUDED, EnvTarget
from agentmetrology.records.canonical import digest
from agentmetrology.records.environment import AuditHooks
from agentmetrology.records.policy import Level
from agentmetrology.records.verdict import Verdict

SPECTRUM_SEEDS = 10
STAGES = ("probes", "ownership", "2x2", "replay", "spectrum", "solvability")
# Called as progress(stage, stages_done, stages_total) before each stage and once at the end
# with stage "done": the CLI draws it; the audit itself never prints.
Progress = Callable[[str, int, int], None]


@dataclass
class _TruthAsScorer:
    """The target seen through its valid scorer (ground truth) instead of the shipped one."""

    inner: EnvTarget
    name: str = ""
    scorer_kind: ScorerKind = "outcome"
    scorer_name: str = ""
    resolution: float = 0.0

    def ownership_map(self) -> None:
        return None

    def tasks(self) -> list[TaskRef]:
        return self.inner.tasks()

    def oracle(self, ref: TaskRef) -> Any:
        return self.inner.oracle(ref)

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        probes = self.inner.probes(ref, correct)
        declared = self.inner.hooks.degraded
        if probes is None or not declared:
            return probes
        # The valid scorer is what ranks the probes elsewhere; checked here, the quality is
        # the probes' declared one (worse than correct or not), so its row can fail.
        return [dataclasses.replace(p, truth=0.0 if p.name in declared else 1.0)
                for p in probes]

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome:
        value = self.inner.truth(ref, submission)
        return ScoreOutcome(None, "INVALID", TRUTH_EXCLUDED) if value is None \
            else ScoreOutcome(value)


def criterion_row(res: dict[str, Any]) -> dict[str, Any]:
    """Return the card cell of criterion sensitivity from a probe-battery result."""
    by = {p["probe"]: p for p in res["by_probe"]}
    ev = {"pairs_compared": res["pairs_compared"], "pairs_invalid": res["pairs_invalid"],
          "offending_pairs": len(res["offending"]),
          "offending": offending_summary(res),
          "cells_invalid": res.get("cells_invalid", 0),
          "invalid_reasons": res.get("invalid_reasons", []),
          "score_mean_by_probe": {k: v["score_mean"] for k, v in by.items()},
          "truth_mean_by_probe": {k: v["truth_mean"] for k, v in by.items()},
          "truth_excluded": res["truth_excluded"],
          "verdict": criterion_verdict(res).to_dict()}  # n samples compared, split halves
    if res["status"] == "not probed":  # a not-probed row always says why
        ev["reason"] = _no_pair_reason(res)
    return row(res["status"], ev, res)


BY_DEFINITION = "the valid scorer is the ground truth the probes are ranked by"
# Said whole on the terminal (under its 160 characters), so it names the way out briefly.
NOT_INFORMATIVE = ("not informative: the probes are ranked by this scorer's own scores, so the "
                   "check could not fail (AuditHooks.degraded would make it a test)")


def by_definition(criterion: dict[str, Any]) -> None:
    """Make a criterion row of a scorer ranked by its own values `not probed`: not informative.

    The valid scorer measured against itself holds by definition; a pass it cannot fail is no
    evidence, so it never licenses a claim. A row with no pair compared keeps its own reason.
    """
    ev = criterion["evidence"]
    ev["by_definition"] = BY_DEFINITION
    if criterion["status"] == "not probed":
        return
    v = ev["verdict"]
    ev["reason"] = NOT_INFORMATIVE
    ev["verdict"] = Verdict("not probed", v["n"], v["counted"], 0,
                            why=f"{v['why']} (not informative: {criterion['status']} by "
                                "definition)").to_dict()
    criterion["status"] = "not probed"


NO_PAIR = "no correct/degraded pair"  # how a criterion row not probed for want of pairs begins


def _no_pair_reason(res: dict[str, Any]) -> str:
    """Return why no correct/degraded pair was compared (INVALID cells, with the commonest)."""
    invalid = res.get("cells_invalid", 0)
    if not invalid:
        return f"{NO_PAIR} to compare"
    top = res.get("invalid_reasons") or []
    common = f" (most common: {top[0]['reason']})" if top else ""
    return (f"{NO_PAIR} compared: {invalid} of {len(res.get('cells', []))} "
            f"probe cells INVALID{common}")


def _payload_row(store: StoreEpisodes | None, joint: dict[str, Any] | None) -> dict[str, Any]:
    """Return non-degeneracy where the harness owns every decision: identical model payloads.

    Nothing the model decides can reach the payload there, so byte-identical payloads among the
    model targets are the finding (degenerate: fail); differing payloads prove no model-owned
    decision either, so the cell stays not probed.
    """
    if store is None or not store.models():
        return row("not probed", {"reason": E.NO_MODEL_TARGETS, "note": E.FIXED_NOTE}, None)
    pairs = joint["l0_model_payload_pairs"] if joint else 0
    if not pairs:
        return row("not probed", {"reason": "fewer than two model targets share an L0 task "
                                            "and seed", "model_targets": len(store.models())},
                   joint)
    same = joint["l0_model_identical_pairs"] if joint else 0
    ev = {"model_payload_pairs": pairs, "byte_identical_pairs": same,
          "identical_pairs_by_field": joint["l0_model_identical_pairs_by_field"] if joint
          else {}}
    if same == pairs:
        ev["reason"] = "every pair of model-target payloads is byte-identical"
        return row("fail", ev, joint)
    ev["reason"] = "no model-owned decision at this level"
    return row("not probed", ev, joint)


NO_ACTIONS = ("the environment does not say how to read a decision's action from an episode "
              "(no AuditHooks.actions)")
NO_OWNERSHIP_AGENTS = "the environment supplies no agents for this level's ownership stage"


def _nondeg_row(nd: dict[str, Any] | None, hooks: AuditHooks) -> dict[str, Any]:
    """Return the non-degeneracy cell of a level with model-owned decisions."""
    if nd is None:
        # The level has model-owned decisions (ownership completeness lists them): what is
        # missing is the means to observe them, never the decisions.
        why = NO_ACTIONS if hooks.actions is None else NO_OWNERSHIP_AGENTS
        return row("not probed", {"reason": why}, None)
    ev: dict[str, Any] = {t["target"]: t["status"] for t in nd["model_targets"]}
    if nd["reason"]:
        ev["reason"] = nd["reason"]
    ev["fixed_rules"] = len(nd["fixed_rules"])
    return row(nd["status"], ev, nd)


def _ownership_rows(own: dict[str, Any], nondeg: dict[str, Any] | None,
                    payload: dict[str, Any],
                    hooks: AuditHooks) -> tuple[dict[str, Any], dict[str, Any]]:
    comp = row(own["status"], {"model_owned": own["model_owned"],
                               "harness_owned_claims": own["harness_owned_claims"]}, own)
    return comp, payload if not own["model_owned"] else _nondeg_row(nondeg, hooks)


def _not_probed(reason: str) -> dict[str, Any]:
    return {"status": "not probed", "reason": reason}


def truth_exclusions(shipped: dict[str, Any], nondeg: Iterable[dict[str, Any]],
                     calibration: dict[str, Any] | None, joint: dict[str, Any] | None,
                     spectrum: dict[str, Any] | None) -> dict[str, Any]:
    """Return how many cells each stage left out because their ground truth was undecided."""
    by = {"probes": shipped["truth_excluded"]["cells"],
          "non_degeneracy": sum(nd["truth_excluded"] for nd in nondeg),
          "rule_calibration": sum(r["truth_excluded"] for r in calibration["rules"])
          if calibration else 0,
          "2x2": sum(c.get("truth_excluded", 0) for c in joint["cells"].values())
          if joint else 0,
          "spectrum": sum(x["episodes"] for x in spectrum["truth_excluded"]) if spectrum else 0}
    return {"total": sum(by.values()), "by_stage": by, "why": TRUTH_EXCLUDED}


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True, slots=True)
class _Stages:
    """What the stages of an environment audit measured, before the card is built."""

    shipped: dict[str, Any]
    truth: dict[str, Any]
    ownership: dict[Level, dict[str, Any]]
    nondeg: dict[Level, dict[str, Any]]
    calibration: dict[str, Any] | None
    joint: dict[str, Any] | None
    joint_store: dict[str, Any] | None
    replay: dict[str, Any]
    spectrum: dict[str, Any] | None
    solvability: dict[str, Any]


def _run_stages(target: EnvTarget, seed: int, report: Progress,
                store: StoreEpisodes | None, budgets: Sequence[int]) -> _Stages:
    """Run every stage the environment's hooks allow, reporting each as it starts."""
    refs = target.tasks()
    hooks = target.hooks
    report(STAGES[0], 0, len(STAGES))
    truth = probe_battery(_TruthAsScorer(target, target.name, "outcome", target.truth_label),
                          refs)
    # A benchmark shipping its valid scorer (the tool worlds' goal) with declared degraded
    # probes: the shipped scorer is that scorer, so its one test that can fail is the declared
    # one (ranked by its own values it could not fail).
    shipped = truth if target.ships_truth and hooks.degraded else probe_battery(target, refs)
    report(STAGES[1], 1, len(STAGES))
    own_map = target.ownership_map()
    levels = target.spec.levels
    ownership = {lv: E.ownership_completeness(own_map, lv) for lv in levels} if own_map else {}
    nondeg = {lv: E.non_degeneracy(target, own_map, lv, list(hooks.ownership_agents[lv]),
                                   target.seeds, store)
              for lv in levels if own_map and lv in hooks.ownership_agents}
    calibration = E.rule_calibration(target, target.seeds)
    report(STAGES[2], 2, len(STAGES))
    joint = E.joint_intervention(target, target.seeds)
    joint_store = E.store_joint(store, target.scale, target.scorer_name) if store else None
    report(STAGES[3], 3, len(STAGES))
    replay = R.replay(target, min(target.seeds, 2))
    report(STAGES[4], 4, len(STAGES))
    spectrum = E.reliability(target, SPECTRUM_SEEDS, seed, store)
    report(STAGES[5], 5, len(STAGES))
    solvable = solvability(target.spec, budgets, target.seeds)
    report("done", len(STAGES), len(STAGES))
    return _Stages(shipped, truth, ownership, nondeg, calibration, joint, joint_store, replay,
                   spectrum, solvable)


def _configurations(target: EnvTarget, st: _Stages,
                    store: StoreEpisodes | None) -> list[dict[str, Any]]:
    """Return the card's configurations: (L0 and L2, or the last level) x (shipped, truth)."""
    replay = st.replay
    configs = []
    levels = target.spec.levels
    card_levels: list[str] = [lv for lv in ("L0", "L2") if lv in levels] or [levels[-1]]
    for level in card_levels:
        if level in st.ownership:
            comp, nd = _ownership_rows(st.ownership[level], st.nondeg.get(level),
                                       _payload_row(store, st.joint_store), target.hooks)
        else:
            comp = nd = row("not probed", {"reason": "the environment has no ownership map"},
                            None)
        for res, kind, role in ((st.shipped, target.scorer_kind, "shipped"),
                                (st.truth, "outcome", "ground_truth")):
            replay_row = R.replay_row(replay, role)
            criterion = criterion_row(res)
            if res is st.truth and target.hooks.degraded:  # shipped too if it is the truth
                criterion["evidence"]["quality_from"] = (
                    "the probes' declared degradation: " + ", ".join(target.hooks.degraded))
            elif res is st.truth or target.ships_truth:
                by_definition(criterion)
            rows = {"scorer_kind": row(kind, {"kind": kind}, None),
                    "criterion_sensitivity": criterion,
                    "ownership_completeness": comp, "non_degeneracy": nd, "replay": replay_row}
            configs.append(configuration(level, res["scorer"], kind, rows))
    return configs


def audit_env(target: EnvTarget, *, seed: int = 0, progress: Progress | None = None,
              store: StoreEpisodes | None = None,
              budgets: Sequence[int] = DEFAULT_BUDGETS) -> dict[str, Any]:
    """Run every stage the environment's hooks allow and return the audit.json document.

    With `store`, the store's targets join non-degeneracy, the 2x2 and the spectrum from their
    recorded episodes (never rerun). `budgets`: output tokens of one model response, against
    which the solvability stage sizes each task's answer. A target scored by a user's scorer
    file names its code in the card (`scorer_code`), so `seal` covers the code audited.
    """
    st = _run_stages(target, seed, progress or _no_progress, store, budgets)
    hooks = target.hooks
    configs = _configurations(target, st, store)
    shipped_config = configs[0]
    excluded = truth_exclusions(st.shipped, st.nondeg.values(), st.calibration, st.joint,
                                st.spectrum)
    doc: dict[str, Any] = {
        "audit": target.name, "tool_version": __version__, "analysis_seed": seed,
        "environment": {"name": target.spec.name, "version": target.spec.version},
        "profile": target.profile, "seeds": target.seeds,
        "scorers": {"shipped": {"name": target.scorer_name, "kind": target.scorer_kind,
                                "version": target.shipped_version, "scale": target.scale,
                                "resolution": target.resolution},
                    "ground_truth": {"name": target.truth_label,
                                     "component": hooks.truth_component,
                                     "version": target.truth_version, "scale": 1.0}},
        "card": {"benchmark": target.name,
                 "shipped_configuration": f"{configs[0]['level']}|{target.scorer_name}",
                 "licensed_claim": shipped_config["licensed_claim"], "configurations": configs,
                 "truth_excluded": excluded,
                 **({"store": store.summary()} if store else {})},
        "stages": {"probes": {"shipped": st.shipped, "ground_truth": st.truth},
                   "ownership": {"completeness": st.ownership, "non_degeneracy": st.nondeg,
                                 "rule_calibration": st.calibration or _not_probed(
                                     "the environment supplies no calibration rules")},
                   "joint": st.joint or _not_probed("the environment needs L0 and L2 and "
                                                    "joint agents for the 2x2"),
                   "replay": st.replay,
                   "reliability": st.spectrum or _not_probed("no spectrum agents"),
                   "solvability": st.solvability,
                   **({"store": {**store.summary(), "joint": st.joint_store or _not_probed(
                       "no store target has episodes at both L0 and L2 and no two model "
                       "targets share an L0 task and seed"),
                       "calibration": E.store_calibration(store, target)}} if store else {})},
        "truth_excluded": excluded,
        "digests": {},
    }
    code = target.scorer_code()
    if code is not None:  # here, not by each caller: every sealed card names the code audited
        _bind_scorer(doc, code)
    return doc


def _bind_scorer(doc: dict[str, Any], identity: Mapping[str, Any]) -> None:
    """Name a user's scorer code (file, function, sha256 of its bytes, timeout) in the card and
    in `scorers.shipped`; before `seal`, so the card's digest covers the code it audited."""
    doc["card"]["scorer_code"] = dict(identity)
    doc["scorers"]["shipped"].update(sha256=identity["sha256"],
                                     timeout_s=identity["timeout_s"])


def seal(doc: dict[str, Any]) -> dict[str, Any]:
    """Add each licensed claim's basis to the card, then the digest of every stage and of the
    card (computed over canonical JSON)."""
    explain_claims(doc["card"])  # every audit is sealed once its claims are final
    doc["digests"] = {"stages." + k: digest(v) for k, v in doc["stages"].items()}
    doc["digests"]["card"] = digest(doc["card"])
    return doc
