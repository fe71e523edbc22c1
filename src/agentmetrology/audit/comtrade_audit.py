"""The full audit of the built-in `comtrade` target: every stage, the card, audit.json."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology import __version__
from agentmetrology.audit import episodes as E
from agentmetrology.audit.card import configuration, row
from agentmetrology.audit.probes import offending_summary, probe_battery
from agentmetrology.audit.target import Probe, ScoreOutcome, ScorerKind, TaskRef
from agentmetrology.audit.targets.comtrade import ComtradeTarget
from agentmetrology.records.canonical import digest
from agentmetrology.scoring.ground_truth import GROUND_TRUTH_SCORER, GROUND_TRUTH_VERSION
from agentmetrology.scoring.judge import JUDGE_VERSION

SPECTRUM_SEEDS = 10


@dataclass
class _TruthAsScorer:
    """The target seen through its valid scorer (ground-truth F1) instead of the shipped one."""

    inner: ComtradeTarget
    name: str = "comtrade"
    scorer_kind: ScorerKind = "outcome"
    scorer_name: str = GROUND_TRUTH_SCORER + "_exact"
    resolution: float = 0.0

    def ownership_map(self) -> None:
        return None

    def tasks(self) -> list[TaskRef]:
        return self.inner.tasks()

    def oracle(self, ref: TaskRef) -> Any:
        return self.inner.oracle(ref)

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe]:
        return self.inner.probes(ref, correct)

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome:
        return ScoreOutcome(self.inner.truth(ref, submission))


def criterion_row(res: dict[str, Any]) -> dict[str, Any]:
    """Return the card cell of criterion sensitivity from a probe-battery result."""
    by = {p["probe"]: p for p in res["by_probe"]}
    ev = {"pairs_compared": res["pairs_compared"], "pairs_invalid": res["pairs_invalid"],
          "offending_pairs": len(res["offending"]),
          "offending": offending_summary(res),
          "score_mean_by_probe": {k: v["score_mean"] for k, v in by.items()},
          "truth_mean_by_probe": {k: v["truth_mean"] for k, v in by.items()}}
    return row(res["status"], ev, res)


def _ownership_rows(own: dict[str, Any], nondeg: dict[str, Any] | None) -> tuple[dict[str, Any],
                                                                                 dict[str, Any]]:
    comp = row(own["status"], {"model_owned": own["model_owned"],
                               "harness_owned_claims": own["harness_owned_claims"]}, own)
    if nondeg is None or not nondeg["decisions"]:
        nd = row("not probed", {"reason": "no model-owned decision at this level"}, None)
    else:
        nd = row(nondeg["status"], {d["decision"]: d["status"] for d in nondeg["decisions"]},
                 nondeg)
    return comp, nd


def audit_comtrade(target: ComtradeTarget, *, seed: int = 0) -> dict[str, Any]:
    """Run every stage on ComtradeBench and return the audit.json document."""
    refs = target.tasks()
    shipped = probe_battery(target, refs)
    truth = probe_battery(_TruthAsScorer(target), refs)
    own_map = target.ownership_map()
    agents = ["rule", *E.SPECTRUM_TARGETS]
    ownership = {lv: E.ownership_completeness(own_map, lv) for lv in ("L0", "L1", "L2")}
    nondeg = {"L1": E.non_degeneracy(target, own_map, "L1",
                                     ["rule", *E.L1_RULES, *E.SPECTRUM_TARGETS], target.seeds),
              "L2": E.non_degeneracy(target, own_map, "L2", agents, target.seeds)}
    calibration = E.rule_calibration(target, target.seeds)
    joint = E.joint_intervention(target, target.seeds)
    replay = E.replay(target, min(target.seeds, 2))
    spectrum = E.reliability(target, SPECTRUM_SEEDS, seed)
    replay_row = row(replay["status"], {"episodes": replay["episodes"],
                                        "mismatches": replay["mismatches"]}, replay)
    configs = []
    for level in ("L0", "L2"):
        comp, nd = _ownership_rows(ownership[level], nondeg.get(level))
        for res, kind in ((shipped, target.scorer_kind), (truth, "outcome")):
            rows = {"scorer_kind": row(kind, {"kind": kind}, None),
                    "criterion_sensitivity": criterion_row(res),
                    "ownership_completeness": comp, "non_degeneracy": nd, "replay": replay_row}
            configs.append(configuration(level, res["scorer"], kind, rows))
    shipped_config = configs[0]
    return {
        "audit": "comtrade", "tool_version": __version__, "analysis_seed": seed,
        "profile": target.profile, "seeds": target.seeds,
        "scorers": {"shipped": {"name": target.scorer_name, "kind": target.scorer_kind,
                                "version": JUDGE_VERSION if target.scorer_kind == "shape"
                                else None, "scale": target.scale,
                                "resolution": target.resolution},
                    "ground_truth": {"name": GROUND_TRUTH_SCORER + "_exact",
                                     "component": "f1_exact",
                                     "version": GROUND_TRUTH_VERSION, "scale": 1.0}},
        "card": {"benchmark": "comtrade", "shipped_configuration": "L0|" + target.scorer_name,
                 "licensed_claim": shipped_config["licensed_claim"], "configurations": configs},
        "stages": {"probes": {"shipped": shipped, "ground_truth": truth},
                   "ownership": {"completeness": ownership, "non_degeneracy": nondeg,
                                 "rule_calibration": calibration},
                   "joint": joint, "replay": replay, "reliability": spectrum},
        "digests": {},
    }


def seal(doc: dict[str, Any]) -> dict[str, Any]:
    """Add the digest of every stage and of the card (computed over canonical JSON)."""
    doc["digests"] = {"stages." + k: digest(v) for k, v in doc["stages"].items()}
    doc["digests"]["card"] = digest(doc["card"])
    return doc
