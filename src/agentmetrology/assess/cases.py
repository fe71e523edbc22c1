"""The case lifecycle: failure-derived cases, proposed → calibrated → admitted → active → withdrawn.

A case is derived from one recorded failing episode of a store and carries its source record
(the episode key, its evidence digests, the recorded assessments and the failing contract
assessment recomputed from the recorded evidence, never re-run). A source is refused when its
evidence is missing, when it is a measurement failure, when it passes, or when its contract
verdict is not an established FAIL.

Calibration runs three controls on the case's environment, task, seed and condition:
- positive: a compliant scripted policy must PASS the case's contract;
- defect: replaying the source episode's recorded agent actions must FAIL it;
- missingness: an evaluator-facing copy of the source evidence with the evidence the failing
  checks read withheld must give UNKNOWN "withheld" under the completeness-aware gate, never
  FAIL (the raw checker's view is reported next to it).
A failed calibration is recorded (the case stays proposed) and names the failing control.
A proposal that repeats the violation of an admitted (or active) case, the same environment,
task and contract with the same obligations failing in the same way (its failure signature), from
another seed, repeat, condition or target, is refused as a duplicate naming that case: the same
violation is admitted once, whatever episode it is seen in again.
Admission records the reviewer and the approved revision; the first use makes it active; a
withdrawal blocks new use and keeps earlier evidence and receipts. Every step out of order is
refused with one line and changes nothing (store.cases re-checks the state in its transaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.replay import ReplayPolicy
from agentmetrology.assess.executions import hooks_of, judge_episode
from agentmetrology.assess.masking import check_mask
from agentmetrology.envs.registry import environment_or_default, get_env
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.contract import WITHHELD
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode, EpisodeKey, episode_from_plain
from agentmetrology.records.errors import UserError
from agentmetrology.run.episode import run_one
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.case_steps import STEPS, USABLE
from agentmetrology.store.cases import (
    CaseRecord,
    CaseStateError,
    Use,
    check_state,
    check_writable,
    get_case,
    insert_case,
    list_cases,
    record_use,
    transition,
)
from agentmetrology.store.ledger import binding_environment, key_text
from agentmetrology.store.store import EvidenceStore


class SourceError(UserError):
    """A source episode that cannot found a case (missing evidence, no failing assessment)."""


class DuplicateCaseError(UserError):
    """A proposal repeating the violation of an admitted case (same obligation and signature)."""


def failure_signature(spec: EnvSpec, task: str, verdict: dict[str, Any]) -> dict[str, Any]:
    """Return what makes two failures the same violation: environment, task, contract and the
    obligations not passed with their status (reasons carry episode values, so not them)."""
    return {"environment": spec.name, "task": task,
            "contract": hooks_of(spec).contract(task).ident,
            "obligations": {n: s for n, s in sorted(verdict["checks"].items())
                            if s in ("FAIL", "PARTIAL")}}


def _duplicate_of(store: EvidenceStore, signature: dict[str, Any]) -> CaseRecord | None:
    """Return the admitted (or active) case with this failure signature, if any."""
    for case in list_cases(store):
        if case.state in USABLE and case.source.get("failure_signature") == signature:
            return case
    return None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The three controls' results and whether the case passed calibration."""

    case_id: str
    controls: dict[str, dict[str, Any]]

    @property
    def passed(self) -> bool:
        """Return True when every control gave the result it must."""
        return all(c["ok"] for c in self.controls.values())

    def failed(self) -> list[str]:
        """Return the names of the controls that failed."""
        return [name for name, c in self.controls.items() if not c["ok"]]


def _source_episode(store: EvidenceStore, key: EpisodeKey, what: str) -> tuple[dict[str, Any],
                                                                               Episode]:
    row = store.episode(key)
    if row is None:
        raise SourceError(f"{what}: no episode recorded for {key_text(key)}")
    try:
        plain = store.get_json(row["episode_digest"])
        if row["submission_digest"] is not None:
            store.get_bytes(row["submission_digest"])
    except (BlobError, OSError, ValueError) as exc:
        raise SourceError(f"{what}: the evidence of {key_text(key)} is unavailable ({exc}); "
                          "a case needs its source evidence") from None
    return row, episode_from_plain(plain)


def _environment(store: EvidenceStore, key: EpisodeKey) -> EnvSpec:
    sealed = store.ledger.binding(key)
    if sealed is None:
        raise SourceError(f"cannot propose a case: no administration {key_text(key)}")
    return get_env(environment_or_default(binding_environment(sealed[0])))


def _failing_paths(spec: EnvSpec, task: str, verdict: dict[str, Any]) -> list[str]:
    """Return the evidence paths the failing checks read (what the missingness control hides)."""
    contract = hooks_of(spec).contract(task)
    failing = {n for n, s in verdict["checks"].items() if s in ("FAIL", "PARTIAL")}
    return sorted({p for o in contract.checks if o.name in failing for p in o.reads})


def source_record(store: EvidenceStore, key: EpisodeKey) -> tuple[EnvSpec, Episode,
                                                                  dict[str, Any]]:
    """Return the environment, episode and source record of a failing episode, or refuse it."""
    what = "cannot propose a case"
    row, episode = _source_episode(store, key, what)
    if row["measurement_failure"]:
        raise SourceError(f"{what}: {key_text(key)} is a measurement failure "
                          f"({row['termination']}), not a failing behaviour")
    spec = _environment(store, key)
    verdict = _contract_of(spec, episode)
    if verdict is None or verdict["contract"] != "FAIL":
        status = None if verdict is None else verdict["contract"]
        why = "it passes its contract" if status == "PASS" else \
            f"it has no failing assessment (contract {status})"
        raise SourceError(f"{what}: {key_text(key)}: {why}; a case is derived from an "
                          "established failure")
    required = _failing_paths(spec, episode.task, verdict)
    source = {"store_key": to_plain(key), "environment": {"name": spec.name,
                                                          "version": spec.version},
              "episode_digest": row["episode_digest"],
              "submission_digest": row["submission_digest"],
              "termination": row["termination"],
              "recorded_assessments": [
                  {"scorer": a["scorer"], "scorer_version": a["scorer_version"],
                   "status": a["status"], "score": a["score"],
                   "assessment_digest": a["assessment_digest"]} for a in row["assessments"]],
              "failing_assessment": {"contract": hooks_of(spec).contract(episode.task).ident,
                                     **verdict},
              "failure_signature": failure_signature(spec, episode.task, verdict),
              "required_evidence": required,
              "max_steps": episode.meta.get("max_steps")}
    return spec, episode, source


def propose(store: EvidenceStore, key: EpisodeKey) -> CaseRecord:
    """Propose a case from a recorded failing episode; return it (state proposed)."""
    check_writable(store)
    spec, episode, source = source_record(store, key)
    dup = _duplicate_of(store, source["failure_signature"])
    if dup is not None:
        failed = ", ".join(source["failure_signature"]["obligations"])
        raise DuplicateCaseError(
            f"{key_text(key)} duplicates case {dup.id} ({dup.state}; seed {dup.seed}): the same "
            f"obligation(s) {failed} fail the same way; not proposed again")
    case_id = "case-" + digest(source)[:12]
    profile = str(episode.meta.get("profile") or spec.profiles[0])
    insert_case(store, case_id, {"environment": spec.name, "task": episode.task,
                                 "seed": episode.seed, "condition": episode.condition,
                                 "level": episode.level, "profile": profile}, source)
    return load(store, case_id)


def load(store: EvidenceStore, case_id: str) -> CaseRecord:
    """Return a case, or raise CaseStateError naming the missing id."""
    case = get_case(store, case_id)
    if case is None:
        raise CaseStateError(f"no case {case_id!r} in this store (see `agm cases list`)")
    return case


def _contract_of(spec: EnvSpec, episode: Episode) -> dict[str, Any] | None:
    return judge_episode(spec, episode, ())["original"]


def _run(spec: EnvSpec, case: CaseRecord, agent: str | ReplayPolicy,
         level: str | None = None) -> Episode:
    # The source episode's step limit, so a control or use is the source's situation (a
    # replay of a long source would otherwise be cut off at the default limit).
    steps = case.source.get("max_steps")
    return run_one(spec, case.task, case.seed, agent, level or case.level, case.profile,
                   case.condition, steps if isinstance(steps, int) else None).episode


def _status(verdict: dict[str, Any] | None) -> str:
    return "MEASUREMENT_FAILURE" if verdict is None else str(verdict["contract"])


def calibrate(store: EvidenceStore, case_id: str, positive: str) -> Calibration:
    """Run the positive, defect and missingness controls and record the outcome.

    The case becomes calibrated when all three give what they must; otherwise it stays
    proposed, and the failed calibration is recorded with every control's result.
    """
    check_state(store, case_id, STEPS["calibrate"][0], "calibrate")
    case = load(store, case_id)
    spec = get_env(case.environment)
    if positive not in spec.agents:
        raise CaseStateError(f"--positive {positive!r}: not a model-free agent of "
                             f"{spec.name}; it has: {', '.join(spec.agents)}")
    key = EpisodeKey(**case.source["store_key"])
    _, source = _source_episode(store, key, "cannot calibrate")
    pos = _contract_of(spec, _run(spec, case, positive))
    replayed = _contract_of(spec, _run(spec, case, ReplayPolicy(source.events, "replay")))
    required = list(case.source["required_evidence"])
    hooks = hooks_of(spec)
    check_mask(hooks.capture(None, case.task, case.seed, case.profile, ()), required,
               f"{spec.name} task {case.task}")
    masked = judge_episode(spec, source, required)
    gate, raw = masked.get("masked_gate"), masked.get("masked_raw")
    withheld = gate is not None and gate["contract"] == "UNKNOWN" and any(
        WITHHELD in r for r in gate["reasons"])
    controls = {
        "positive": {"agent": positive, "must": "PASS", "got": _status(pos),
                     "ok": _status(pos) == "PASS"},
        "defect": {"agent": "replay of the source episode", "must": "FAIL",
                   "got": _status(replayed), "ok": _status(replayed) == "FAIL"},
        "missingness": {"withheld": required, "must": f"UNKNOWN {WITHHELD}",
                        "got": _status(gate), "raw_checker": _status(raw),
                        "reasons": [] if gate is None else list(gate["reasons"]),
                        "ok": withheld}}
    result = Calibration(case_id, controls)
    if result.passed:
        transition(store, case_id, "calibrate", {"controls": controls})
    else:
        transition(store, case_id, "calibration failed",
                   {"controls": controls, "failed": result.failed()})
    return result


def admit(store: EvidenceStore, case_id: str, reviewer: str, revision: str) -> CaseRecord:
    """Admit a calibrated case as an approved revision (reviewer and revision recorded)."""
    if not reviewer.strip() or not revision.strip():
        raise CaseStateError("admission needs a reviewer and a revision id (both non-empty)")
    transition(store, case_id, "admit", {"reviewer": reviewer, "revision": revision})
    return load(store, case_id)


def withdraw(store: EvidenceStore, case_id: str, reason: str) -> CaseRecord:
    """Withdraw a case: new use is blocked; earlier evidence and receipts are kept."""
    if not reason.strip():
        raise CaseStateError("a withdrawal needs a reason (--reason)")
    transition(store, case_id, "withdraw", {"reason": reason})
    return load(store, case_id)


def use(store: EvidenceStore, case_id: str, agent: str,
        level: str | None = None) -> dict[str, Any]:
    """Run an agent on an admitted (or active) case, record the episode and a receipt.

    The episode runs through the one runner; its blobs are written and the receipt names them.
    Returns the receipt.
    """
    check_state(store, case_id, USABLE, "use")
    case = load(store, case_id)
    spec = get_env(case.environment)
    if agent not in spec.agents:
        raise CaseStateError(f"--agent {agent!r}: not a model-free agent of {spec.name}; it "
                             f"has: {', '.join(spec.agents)}")
    lv = level or case.level
    if lv not in spec.levels:
        raise CaseStateError(f"--level {lv!r}: {spec.name} has levels {', '.join(spec.levels)}")
    episode = _run(spec, case, agent, lv)
    verdict = _contract_of(spec, episode)
    ep_digest = store.put_json(to_plain(episode))
    sub_digest = None if episode.submission is None else store.put_json(episode.submission)
    status = _status(verdict)
    use_id = record_use(store, case_id, Use(agent, lv, ep_digest, sub_digest, status,
                                            {"contract": verdict}))
    return {"case": case_id, "use": use_id, "agent": agent, "level": lv, "status": status,
            "episode_digest": ep_digest, "submission_digest": sub_digest,
            "termination": episode.termination.kind}
