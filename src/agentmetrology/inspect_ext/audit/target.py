"""The `inspect` audit target: any Inspect AI task's own scorers, probed with forged outputs.

Oracle: the sample's target rendered as the output (None, and counted, when the sample has no
usable target). Probes: correct, empty, fabricated, format_only, truncated (forge) and the
empty trajectory (the task's solver with a model that answers nothing). One card configuration
per scorer; ownership is not probed (the harness's decisions are not exposed by Inspect).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from agentmetrology.audit.card import judged_status, row, withhold
from agentmetrology.audit.criterion_verdict import criterion_verdict
from agentmetrology.audit.env_audit import seal
from agentmetrology.audit.generic_audit import audit_target
from agentmetrology.audit.target import Ownership, Probe, ScoreOutcome, ScorerKind, TaskRef
from agentmetrology.inspect_ext.audit.determinism import apply_determinism, determinism_row
from agentmetrology.inspect_ext.audit.forge import PROBE_NAMES, Forged, forge
from agentmetrology.inspect_ext.audit.kind import classify, kind_verdict
from agentmetrology.inspect_ext.audit.load import LoadedTask
from agentmetrology.inspect_ext.audit.run import (
    NEEDS_JUDGE,
    Judge,
    RunResult,
    run_empty_trajectory,
    run_forged,
)
from agentmetrology.records.verdict import Verdict, split_half

__all__ = ["PROBES", "RESOLUTION", "InspectScorerTarget", "audit_inspect"]

PROBES = (*PROBE_NAMES, "empty_trajectory")
Cells = dict[tuple[str, str], ScoreOutcome]  # (sample id, probe) -> one scorer's verdict
RESOLUTION = 1e-6  # Inspect scores are exact values (C/I, 0/1, fractions): any gap separates
PASS_EPS = 1e-9  # a do-nothing "pass" is full credit


class InspectScorerTarget:
    """One scorer of a loaded Inspect task, answering from the cells already scored."""

    name = "inspect"
    resolution = RESOLUTION

    def __init__(self, loaded: LoadedTask, scorer: str, kind: ScorerKind,
                 battery: dict[str, list[Probe]], cells: Cells) -> None:
        self.name = loaded.spec
        self.scorer_name = scorer
        self.scorer_kind = kind
        self._loaded, self._battery, self._cells = loaded, battery, cells

    def ownership_map(self) -> Ownership | None:
        """Return None: Inspect does not expose who owns the harness's decisions."""
        return None

    def tasks(self) -> list[TaskRef]:
        """Return every audited sample (those without a usable target have no oracle)."""
        return [TaskRef(i.sample_id) for i in self._loaded.infos]

    def oracle(self, ref: TaskRef) -> Forged | None:
        """Return the target rendered as the output, or None without a usable target."""
        probes = self._battery.get(ref.task_id)
        return probes[0].submission[1] if probes else None

    def defect(self, ref: TaskRef) -> str | None:
        """Return why the sample has no oracle (no target, a rubric shared by every sample)."""
        return next((i.unusable for i in self._loaded.infos if i.sample_id == ref.task_id),
                    None)

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe]:
        """Return the battery built for this sample (submissions are (probe, output) pairs)."""
        return self._battery.get(ref.task_id, [])

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome:
        """Return the scorer's verdict recorded for (sample, probe)."""
        probe = submission[0]
        return self._cells.get((ref.task_id, probe)) or ScoreOutcome(
            None, "INVALID", "not scored")


def _battery(loaded: LoadedTask) -> dict[str, list[Probe]]:
    targets = [i.targets for i in loaded.infos]
    out: dict[str, list[Probe]] = {}
    for k, info in enumerate(loaded.infos):
        if info.unusable is None:
            out[info.sample_id] = [Probe(p.name, (p.name, p.submission), p.truth, p.detail)
                                   for p in forge(k, targets, info.choices)]
    return out


def _empty_summary(loaded: LoadedTask, scored: Cells) -> dict[str, Any]:
    cells = [scored.get((i.sample_id, "empty_trajectory")) for i in loaded.infos]
    ok = [c for c in cells if c is not None and c.status == "ok" and c.value is not None]
    bad = [c for c in cells if c is None or c.status != "ok" or c.value is None]
    passed = sum(1 for c in ok if c.value is not None and c.value >= 1.0 - PASS_EPS)
    reasons = Counter(c.message if c is not None else "not scored" for c in bad)
    return {"samples": len(cells), "scored": len(ok), "passed": passed,
            "invalid": len(bad), "pass_rate": passed / len(ok) if ok else None,
            "passed_samples": [i.sample_id for i, c in zip(loaded.infos, cells, strict=True)
                               if c is not None and c.status == "ok" and c.value is not None
                               and c.value >= 1.0 - PASS_EPS],
            "invalid_reasons": [{"reason": r, "cells": n} for r, n in
                                sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:5]]}


def _forged_scores(battery: dict[str, list[Probe]], cells: Cells) -> list[list[float]]:
    out = []
    for sid, probes in battery.items():
        vals = [cells.get((sid, p.name)) for p in probes if p.name != "empty_trajectory"]
        out.append([v.value for v in vals if v is not None and v.value is not None])
    return out


def _kind_on(name: str, fn: Any, calls: int, battery: dict[str, list[Probe]], cells: Cells,
             sids: Sequence[str]) -> tuple[ScorerKind, str, int]:
    """Return (kind, basis, samples probed) read from the samples `sids` only (a split half)."""
    keep = set(sids)
    empties = [c.value for (s, p), c in cells.items()
               if s in keep and p == "empty_trajectory" and c.value is not None]
    forged_scores = _forged_scores({s: battery.get(s, []) for s in sids}, cells)
    kind, basis = classify(name, fn, calls, forged_scores, empties)
    return kind, basis, sum(1 for x in forged_scores if len(x) >= 2)


def _half_kind(name: str, fn: Any, calls: int, battery: dict[str, list[Probe]], cells: Cells,
               sids: Sequence[str]) -> Verdict:
    """Return the kind verdict read from the samples `sids` only (one split half)."""
    return kind_verdict(*_kind_on(name, fn, calls, battery, cells, sids))


def _scorer_cells(res: RunResult, index: int, name: str) -> list[tuple[str, Cells, Cells]]:
    """Return (scorer label, its cells, its second calls' cells): one scorer, or one per key
    of a dict-valued scorer (the second calls read by the first calls' keys)."""
    parts = {(sid, p): d for (sid, p, i), d in res.parts.items() if i == index}
    if not parts:
        return [(name, _key_cells(res.cells, res.parts, index, None),
                 _key_cells(res.second, res.second_parts, index, None))]
    keys = sorted({k for d in parts.values() for k in d})
    return [(f"{name}[{k}]", _key_cells(res.cells, res.parts, index, k),
             _key_cells(res.second, res.second_parts, index, k)) for k in keys]


def _key_cells(cells: dict[tuple[str, str, int], ScoreOutcome],
               parts: dict[tuple[str, str, int], dict[str, ScoreOutcome]], index: int,
               key: str | None) -> Cells:
    """Return one scorer's cells, or of a dict-valued one its key `key`'s (a cell without
    parts is the whole verdict: INVALID as one number, or the failure it carries)."""
    out: Cells = {}
    for (sid, p, i), whole in cells.items():
        if i != index:
            continue
        d = parts.get((sid, p, i))
        out[(sid, p)] = whole if key is None or d is None else d.get(key) or ScoreOutcome(
            None, "INVALID", f"scorer returned no key {key!r}")
    return out


# Called as progress(stage, done, total): the CLI draws it; the audit itself never prints.
Progress = Callable[[str, int, int], None]


def _counter(progress: Progress | None, stage: str, total: int) -> Callable[[], None] | None:
    """Return a per-sample tick that reports `stage` with samples done of `total`."""
    if progress is None:
        return None
    done = [0]
    progress(stage, 0, total)

    def tick() -> None:
        done[0] += 1
        progress(stage, done[0], total)

    return tick


def audit_inspect(loaded: LoadedTask, *, task_args: dict[str, Any] | None = None,
                  timeout: float = 10.0, judge: Judge | None = None,
                  empty_trajectory: bool = True,
                  empty_run: RunResult | None = None,
                  progress: Progress | None = None) -> dict[str, Any]:
    """Probe every scorer of a loaded task; return the sealed audit document.

    `empty_run`: the do-nothing run already made (by a caller that scored it with more scorers
    after the task's own, which are the first ones); only the task's scorers' cells are read.
    `progress(stage, done, total)` is told the samples scored in each run as they finish.
    """
    battery = _battery(loaded)
    forged = {(sid, p.name): p.submission[1] for sid, ps in battery.items() for p in ps}
    res = run_forged(loaded, forged, timeout, judge,
                     _counter(progress, "forged outputs scored", len(forged)))
    if not empty_trajectory:
        empty = RunResult({}, {})
    elif empty_run is None:
        empty = run_empty_trajectory(loaded, timeout, judge,
                                     _counter(progress, "do-nothing run, samples",
                                              len(loaded.samples)))
    else:
        n = len(loaded.scorer_names)
        empty = RunResult({k: v for k, v in empty_run.cells.items() if k[2] < n},
                          {i: c for i, c in empty_run.judge_calls.items() if i < n},
                          {k: v for k, v in empty_run.parts.items() if k[2] < n},
                          second={k: v for k, v in empty_run.second.items() if k[2] < n},
                          second_parts={k: v for k, v in empty_run.second_parts.items()
                                        if k[2] < n})
    res.cells.update(empty.cells)  # the do-nothing probe joins the battery
    res.second.update(empty.second)
    res.second_parts.update(empty.second_parts)
    for sid, probes in battery.items():
        if any((sid, "empty_trajectory", i) in empty.cells
               for i in range(len(loaded.scorer_names))):
            probes.append(Probe("empty_trajectory", ("empty_trajectory", None), 0.0,
                                {"degraded": True, "reason": "a model that answers nothing"}))
    for (sid, probe, i), d in empty.parts.items():
        res.parts[(sid, probe, i)] = d
    docs, kinds, dets = [], [], []
    for i, name in enumerate(loaded.scorer_names):
        fn = loaded.task.scorer[i]
        calls = res.judge_calls.get(i, 0) + empty.judge_calls.get(i, 0)
        for label, cells, second in _scorer_cells(res, i, name):
            dets.append(determinism_row(cells, second, RESOLUTION))
            every = list(dict.fromkeys([*battery, *(sid for sid, _ in cells)]))
            kind, basis, probed = _kind_on(name, fn, calls, battery, cells, every)
            verdict = split_half(kind_verdict(kind, basis, probed), every, partial(
                _half_kind, name, fn, calls, battery, cells)).to_dict()
            kinds.append({"scorer": label, "kind": verdict["text"] if not verdict["sufficient"]
                          else kind,
                          # the kind already says n and the minimum; the basis says what the
                          # scores alone would give
                          "basis": basis if verdict["sufficient"] else
                          f"withheld: {kind} ({basis})", "verdict": verdict,
                          "empty_trajectory": _empty_summary(loaded, cells)
                          if empty_trajectory else None})
            docs.append(audit_target(InspectScorerTarget(loaded, label, kind, battery, cells)))
    merged = _merge(loaded, docs, kinds, task_args, judge)
    if empty_trajectory:  # tau2: the episode's semantics perturbed, not its output text
        from agentmetrology.inspect_ext.audit.tau2_outcome import apply_outcome_probe

        apply_outcome_probe(merged, loaded, empty, timeout)
    # last: a non-deterministic scorer withholds whatever the steps above judged from it
    for config, k, det in zip(merged["card"]["configurations"], kinds, dets, strict=False):
        apply_determinism(config, k, det)
    merged["card"]["licensed_claim"] = merged["card"]["configurations"][0]["licensed_claim"]
    return seal(merged)


def _output_blind(doc: dict[str, Any], scorer: str) -> bool:
    """Return True when the output text never changes `scorer`'s verdict on any sample and
    the scorer does not credit every output: it judges the episode, not the answer."""
    for res in doc["stages"]["probes"].values():
        if res["scorer"] != scorer:
            continue
        by_sample: dict[str, set[float]] = {}
        for c in res["cells"]:
            if c["probe"] != "empty_trajectory" and c["score"] is not None:
                by_sample.setdefault(c["task"], set()).add(c["score"])
        if not by_sample or any(len(v) != 1 for v in by_sample.values()):
            return False
        return min(min(v) for v in by_sample.values()) < 1.0 - PASS_EPS
    return False


def _unscored_docs(loaded: LoadedTask) -> list[dict[str, Any]]:
    """Return the one document of a task without scorers: nothing to probe, said so."""
    nothing = row("not probed", {"reason": "the task has no scorer"}, None)
    config = {"level": None, "scorer": "no scorer", "scorer_kind": "none",
              "rows": {k: nothing for k in ("scorer_kind", "criterion_sensitivity",
                                             "ownership_completeness", "non_degeneracy",
                                             "replay")},
              "licensed_claim": "no claim licensed"}
    return [{"audit": loaded.spec, "card": {"configurations": [config]}, "stages": {
        "probes": {"shipped": {"status": "not probed", "scorer": "no scorer", "cells": [],
                               "by_probe": [], "offending": [], "resolution": RESOLUTION,
                               "pairs_compared": 0, "pairs_invalid": 0,
                               "cells_invalid": 0, "invalid_reasons": []}}},
             "target": {}, "scorers": {}, "tool_version": None, "analysis_seed": 0,
             "profile": None, "seeds": None}]


def _explain_criterion(config: dict[str, Any], kind: dict[str, Any], loaded: LoadedTask,
                       doc: dict[str, Any]) -> None:
    """Say why a scorer's criterion sensitivity was not probed; refuse an output-blind fail."""
    crit = config["rows"]["criterion_sensitivity"]
    reasons = [r["reason"] for r in crit["evidence"].get("invalid_reasons", [])]
    if crit["status"] == "not probed" and NEEDS_JUDGE in reasons:
        crit["evidence"]["reason"] = NEEDS_JUDGE
    elif crit["status"] == "not probed" and not any(i.unusable is None
                                                    for i in loaded.infos):
        why = sorted({str(i.unusable) for i in loaded.infos}) or ["no samples"]
        crit["evidence"]["reason"] = "no sample has a usable target (" + "; ".join(
            why) + ")"
    config["rows"]["scorer_kind"]["evidence"]["basis"] = kind["basis"]
    if judged_status(crit) == "fail" and _output_blind(doc, config["scorer"]):
        # The output text is not what this scorer checks (it judges the episode): forged
        # outputs cannot separate anything, which is no verdict at all. The do-nothing
        # pass rate is the evidence about it.
        crit["status"] = "not probed"
        crit["evidence"].pop("withheld", None)
        crit["evidence"]["reason"] = ("the output text never changes this scorer's "
                                      "verdict: it judges the episode, so forged outputs "
                                      "cannot probe it (see the do-nothing pass rate)")
        config["licensed_claim"] = "no claim licensed"


def _withhold_kind(config: dict[str, Any], kind: dict[str, Any],
                   probes: dict[str, Any]) -> None:
    """Below the samples a kind or criterion verdict needs, or when its two halves disagree,
    withhold the claim it licenses (and the kind itself when too few samples were probed)."""
    config["rows"]["scorer_kind"]["evidence"]["verdict"] = kind["verdict"]
    crit = config["rows"]["criterion_sensitivity"]
    crit["status"] = judged_status(crit)  # the status after _explain_criterion
    crit["evidence"].pop("withheld", None)
    verdict = criterion_verdict(dict(probes, status=crit["status"])).to_dict()
    crit["evidence"]["verdict"] = verdict
    withhold(crit)  # below its minimum the row reads `insufficient evidence`, as its verdict
    unstable = [f"{what} unstable across split halves ({', '.join(v['consistent'])})"
                for what, v in (("scorer kind", kind["verdict"]), ("criterion", verdict))
                if not v["stable"]]
    if unstable:
        config["stability"] = "; ".join(unstable)
    if not kind["verdict"]["sufficient"]:
        config["scorer_kind"] = kind["kind"]  # "insufficient evidence (n = k ..., needs 3)"
        config["rows"]["scorer_kind"]["status"] = kind["verdict"]["text"]
    if unstable or not kind["verdict"]["sufficient"] or not verdict["sufficient"]:
        config["licensed_claim"] = "no claim licensed"


def _merge(loaded: LoadedTask, docs: list[dict[str, Any]], kinds: list[dict[str, Any]],
           task_args: dict[str, Any] | None, judge: Judge | None) -> dict[str, Any]:
    if not docs:
        docs = _unscored_docs(loaded)
    doc = docs[0]
    configs = [d["card"]["configurations"][0] for d in docs]
    doc["stages"]["probes"] = {("shipped" if j == 0 else f"scorer {j + 1}"):
                               d["stages"]["probes"]["shipped"] for j, d in enumerate(docs)}
    for config, k, d in zip(configs, kinds, docs, strict=False):
        _explain_criterion(config, k, loaded, doc)
        _withhold_kind(config, k, d["stages"]["probes"]["shipped"])
    doc["card"]["configurations"] = configs
    doc["card"]["benchmark"] = loaded.spec
    doc["card"]["shipped_configuration"] = configs[0]["scorer"]
    doc["card"]["licensed_claim"] = configs[0]["licensed_claim"]
    unusable = Counter(i.unusable for i in loaded.infos if i.unusable)
    target = doc.get("target") or {}
    target.update({
        "name": "inspect", "spec": loaded.spec, "task_args": task_args or {},
        "dataset_samples": loaded.dataset_size, "samples_audited": len(loaded.infos),
        "samples_without_target": sum(unusable.values()),
        "samples_without_target_by_reason": dict(sorted(unusable.items())),
        "reordered_by_id": loaded.reordered, "needs": loaded.needs,
        "probed_without": loaded.without,
        "scorers": kinds, "probes": list(PROBES),
        "judge": None if judge is None else {
            "model": judge.model,
            "endpoint": urlsplit(judge.base_url).netloc if judge.base_url else None},
    })
    doc["target"] = target
    doc["scorers"] = {("shipped" if j == 0 else f"scorer {j + 1}"):
                      {"name": k["scorer"], "kind": k["kind"], "resolution": RESOLUTION}
                      for j, k in enumerate(kinds)}
    doc["audit"] = loaded.spec
    return doc
