"""`agm diagnose STORE`: every original/mutated pair in a store, its metrics and reading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.archive.importers.agm_store import environment_of, open_store, planned_keys
from agentmetrology.diagnose.family import describe_family
from agentmetrology.diagnose.judge import run_judge_audit
from agentmetrology.diagnose.judge_again import StoredJudging, judged_again, judged_as_kept
from agentmetrology.diagnose.judge_brief import JudgeCase, judge_case
from agentmetrology.diagnose.judge_record import store_recorder
from agentmetrology.diagnose.metrics import MARGIN, SWEEP, TAU, diagnose_pairs
from agentmetrology.diagnose.pairs import GroupKey, Pair, collect_pairs, scorers_of
from agentmetrology.envs.registry import get_env
from agentmetrology.mutations import MUTATIONS, split_condition
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.episode import episode_from_plain
from agentmetrology.records.errors import UserError
from agentmetrology.run.llm_options import refuse_endpoint_env
from agentmetrology.scoring.rescore import not_rescorable
from agentmetrology.store import EvidenceStore
from agentmetrology.store.ledger import key_text

SCHEMA = "agentmetrology.diagnose/1"


def policy_labels(keys: Sequence[GroupKey]) -> dict[GroupKey, str]:
    """Return each group's policy as printed: its target, with the environment and level when
    the store's groups span several, so two rows never read as one policy (`rule (L1)`)."""
    envs = {k[0] for k in keys}
    levels = {k[2] for k in keys}
    out = {}
    for k in keys:
        extra = ([k[0]] if len(envs) > 1 else []) + ([k[2]] if len(levels) > 1 else [])
        out[k] = f"{k[1]} ({', '.join(extra)})" if extra else k[1]
    return out


def _excludes_zero(interval: list[float] | None) -> bool:
    return interval is not None and len(interval) == 2 and (interval[0] > 0 or interval[1] < 0)


def positive_control(groups: dict[str, Any]) -> dict[str, Any]:
    """Return whether misleading names were detected: a behavioural failure whose gap excludes 0.

    A misleading group whose reading is withheld (too few tasks) can neither detect nor miss
    the effect, so with no detection it makes the control insufficient evidence, not a miss.
    """
    rows = [g for g in groups.values() if g["mutation"] == "misleading"]
    if not rows:
        return {"status": "not run", "why": "no misleading (positive control) pairs"}
    detected = [g["policy"] for g in rows if g["reading"] == "behavioural failure"
                and _excludes_zero((g.get("vrg") or {}).get("interval"))]
    if detected:
        return {"status": "detected", "targets": detected,
                "why": "the gap's interval excludes 0 for these targets"}
    withheld = [g for g in rows if not g["verdict"]["sufficient"]]
    if withheld:
        return {"status": "insufficient evidence", "targets": [],
                "why": "the misleading reading is withheld for " + ", ".join(
                    f"{g['policy']} ({g['verdict']['text']})" for g in withheld)}
    return {"status": "not detected", "targets": [],
            "why": "no target reads as a behavioural failure whose gap interval excludes 0 ("
                   + ", ".join(f"{g['policy']}: {g['reading']}" for g in rows)
                   + "): the pipeline may be blind to a real effect"}


def _gap_only_ranking(groups: dict[str, Any]) -> dict[str, Any]:
    """Rank policies by mean |VRG| over mutations (what a gap-only report would call robust)."""
    gaps: dict[str, list[float]] = {}
    fails: dict[str, bool] = {}
    for g in groups.values():
        if g["mutation"] == "repeat" or not g.get("vrg"):
            continue
        name = f"{g['environment']}|{g['target']}|{g['level']}"
        gaps.setdefault(name, []).append(abs(g["vrg"]["value"]))
        fails[name] = fails.get(name, True) and g["predicates"]["fails_both"] is True
    order = sorted(gaps, key=lambda n: (sum(gaps[n]) / len(gaps[n]), n))
    top = order[0] if order else None
    warning = (f"a gap-only ranking calls {top} the most robust, but it fails in every "
               "condition (MSR 0): its small gaps measure nothing"
               if top is not None and fails.get(top) else "")
    return {"order": order, "mean_abs_gap": {n: sum(v) / len(v) for n, v in gaps.items()},
            "warning": warning}


def _originals(store: EvidenceStore, limit: int) -> tuple[list[JudgeCase], dict[str, bool],
                                                          dict[str, Any]]:
    """Return up to `limit` recorded original episodes (with tool names), their truth, and how
    many originals were planned, judged, skipped (and why) and left beyond the limit."""
    out: list[JudgeCase] = []
    native: dict[str, bool] = {}
    skipped: Counter[str] = Counter()
    planned = 0
    for campaign in store.campaigns():
        keys = [k for k in planned_keys(store, campaign) if split_condition(k.condition)[1] is None]
        planned += len(keys)
        if not keys or len(out) >= limit:  # past the limit only counted, never loaded
            continue
        spec = get_env(environment_of(store, keys[0]))
        truth = scorers_of(spec).truth
        for k in keys:
            if len(out) >= limit:
                break
            row = store.episode(k)
            if row is None:
                skipped["no episode recorded"] += 1
                continue
            if row["termination"] in ("infra_error", "cancelled"):
                skipped[f"a measurement failure ({row['termination']})"] += 1
                continue
            ep = episode_from_plain(store.load_episode(k))
            why = not_rescorable(spec, ep)
            if why:  # an administration its environment lacks: no brief
                skipped[why] += 1
                continue
            name = key_text(k)
            out.append(judge_case(spec, name, ep))
            status = {a["scorer"]: a["status"] for a in row["assessments"]}.get(truth)
            if status in ("PASS", "FAIL", "PARTIAL"):
                native[name] = status == "PASS"
    count = sum(skipped.values())
    # planned = judged + skipped + beyond_limit: every original is accounted for
    return out, native, {"planned": planned, "judged": len(out), "skipped": count,
                         "skipped_reasons": dict(sorted(skipped.items())),
                         "beyond_limit": planned - len(out) - count}


def _skipped_text(originals: dict[str, Any]) -> str:
    """Return `` (N planned originals skipped: reason (n); ...)`` when any was, else ""."""
    reasons = originals["skipped_reasons"]
    if not reasons:
        return ""
    return (f" ({originals['skipped']} of {originals['planned']} planned originals skipped: "
            + "; ".join(f"{why} ({n})" for why, n in reasons.items()) + ")")


def pair_counts(pairs: Sequence[Pair]) -> dict[str, Any]:
    """Return how many pairs are complete, half-finished and unmeasured, and why unmeasured."""
    out: dict[str, Any] = {
        "total": len(pairs), "complete": sum(p.complete for p in pairs),
        "half_finished": sum(1 for p in pairs if p.original is None or p.mutated is None),
        "unmeasured": sum(p.unmeasured for p in pairs)}
    why = Counter(p.why_unmeasured() for p in pairs if p.unmeasured)
    if why:  # only then: a report without unmeasured pairs reads as it always has
        out["unmeasured_reasons"] = dict(sorted(why.items()))
    return out


def check_tau(tau: float) -> float:
    """Return a pass threshold on the 0-1 scale of diagnose's scores, or refuse it."""
    if not 0.0 < tau <= 1.0:
        raise UserError(f"--tau {tau} is not a pass threshold: diagnose reads every verifier on "
                        "a 0-1 scale (a 0-100 judge is divided by 100), so give 0 < tau <= 1")
    return tau


def diagnose_store(path: Path, seed: int = 0, judges: Sequence[LLMTarget] = (),
                   judge_calls: int = 3, judge_episodes: int = 20, *,
                   tau: float = TAU, judged: StoredJudging | None = None) -> dict[str, Any]:
    """Return diagnose.json for the store at `path` (with the judge audit when judges given,
    or computed again from the verdicts the store keeps when `judged` is)."""
    check_tau(tau)
    for judge in judges:  # before any model call: never api.openai.com by surprise
        refuse_endpoint_env(judge.base_url)
    judge_doc: dict[str, Any] | None = None
    with open_store(path) as store:
        pairs, scorers = collect_pairs(store)
        if judges or judged is not None:
            episodes, native, originals = _originals(
                store, judge_episodes if judged is None else judged.episodes)
            if not episodes:
                raise UserError(f"the store at {path} holds no recorded original episode to "
                                "show a judge" + _skipped_text(originals))
            if judged is not None:
                judge_doc = judged_again(judged, episodes, native, seed)
            else:
                in_store: dict[str, object] = {}
                judge_doc = run_judge_audit(episodes, judges, judge_calls, native, seed,
                                            store_recorder(path, in_store))
                run = in_store.get("run")
                if isinstance(run, str):  # the verdicts as kept (redacted), as --recompute
                    judge_doc = judged_as_kept(path, run, episodes, native, seed) or judge_doc
                judge_doc["recorded_in_store"] = in_store
            judge_doc["originals"] = originals
    if not pairs and judge_doc is None:
        raise UserError(f"the store at {path} holds no mutated administrations: run a "
                        "campaign with `mutations = [...]` first (or give --judge-model)")
    metrics = diagnose_pairs(pairs, seed, tau)
    labels = policy_labels(list(metrics))
    groups = {"|".join(k): {"environment": k[0], "target": k[1], "level": k[2],
                            "mutation": k[3], "policy": labels[k], **v}
              for k, v in metrics.items()}
    readings: dict[str, dict[str, str]] = {}
    for g in groups.values():
        readings.setdefault(f"{g['environment']}|{g['target']}|{g['level']}", {})[
            g["mutation"]] = g["reading"]
    doc = {"schema": SCHEMA, "package": {"name": "agentmetrology", "version": __version__},
           "store": path.name, "analysis_seed": seed, "tau": tau, "margin": MARGIN,
           "thresholds": {"tau": tau, "sweep": list(SWEEP),
                          "unstable": [k for k, g in groups.items()
                                       if g["stability"] != "stable across thresholds"]},
           "holm": describe_family(groups),
           "scorers": {env: {"shipped": s.shipped, "shipped_scale": s.shipped_scale,
                             "truth": s.truth, "truth_component": s.truth_component}
                       for env, s in scorers.items()},
           "mutations": {name: {"version": m.version, "side": m.side,
                                "description": m.description}
                         for name, m in MUTATIONS.items()
                         if any(g["mutation"] == name for g in groups.values())},
           "pairs": pair_counts(pairs),
           "groups": groups, "readings": readings,
           "positive_control": positive_control(groups),
           "gap_only_ranking": _gap_only_ranking(groups),
           "judge_audit": judge_doc}
    plain: dict[str, Any] = to_plain(doc)
    plain["digest"] = digest(plain)
    return plain
