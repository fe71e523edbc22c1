"""The `bfcl` audit target: the Berkeley Function Calling Leaderboard's AST checker.

Oracle: each entry's shipped possible answers, every parameter the checker insists on set to its
first allowed value. Probes: correct, value_corrupted (one value nudged), fabricated (every value
invented), wrong_function_name, empty_arguments. A probe's truth is 0.0 only when no allowed call
can be equivalent to it under the checker's own string normalisation; a forgery that cannot be
made degraded for an entry stays in the battery with truth 1.0 and the reason in its detail, so
nothing is silently dropped. Scorer kind: specification. Ownership: not probed (single-turn
decoding: the model emits the call, no harness decision sits between). Needs bfcl-eval.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from agentmetrology.audit.registry import NamedTarget
from agentmetrology.audit.target import Ownership, Probe, ScoreOutcome, ScorerKind, TaskRef
from agentmetrology.audit.targets.bfcl_checker import (
    BFCL_EVAL_VERSION,
    PYTHON_AST_CATEGORIES,
    BfclUnavailable,
    canonical_category,
    dataset_files,
    load_checker,
    read_jsonl,
)
from agentmetrology.audit.targets.bfcl_forge import (
    accepts_empty,
    defect,
    omitted_optionals,
    oracle_call,
    pool,
    set_path,
    slots,
    vary,
)

__all__ = ["BFCL_EVAL_VERSION", "PROBE_NAMES", "BfclEntry", "BfclTarget", "BfclUnavailable"]

PROBE_NAMES: tuple[str, ...] = (
    "correct", "value_corrupted", "fabricated", "wrong_function_name", "empty_arguments")
Calls = list[dict[str, dict[str, Any]]]
Forged = tuple[Calls, bool, dict[str, Any]]  # (submission, degraded?, detail)


@dataclass(frozen=True, slots=True)
class BfclEntry:
    """One dataset entry: its id, declared functions and possible answers (ground truth)."""

    entry_id: str
    functions: list[dict[str, Any]]
    answers: list[dict[str, dict[str, list[Any]]]]

    def declaration(self, name: str) -> dict[str, Any]:
        """Return the declared function called `name` (KeyError if the entry lacks it)."""
        for fn in self.functions:
            if fn.get("name") == name:
                return fn
        raise KeyError(f"{self.entry_id}: no declared function {name!r}")


class BfclTarget:
    """BFCL's AST checker on one category's entries (first `limit` in file order)."""

    name = "bfcl"
    scorer_kind: ScorerKind = "specification"
    # The checker is binary (valid / not valid): any gap below 1.0 is no separation at all.
    resolution = 0.5
    scale = 1.0

    def __init__(self, category: str, limit: int | None = None) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        current = canonical_category(category)
        if current not in PYTHON_AST_CATEGORIES:
            raise ValueError(f"bfcl category {category!r} is not supported; use one of "
                             f"{', '.join(PYTHON_AST_CATEGORIES)} (or 'simple')")
        self._checker = load_checker()
        questions, answers, shipped = dataset_files(self._checker.data_dir, current)
        self.category = shipped  # the name the installed checker and its files use
        self.version = self._checker.version
        self.scorer_name = f"bfcl-eval {self.version} ast_checker ({shipped})"
        self.entries = _load_entries(read_jsonl(questions), read_jsonl(answers), limit)

    def ownership_map(self) -> Ownership | None:
        """Return None: single-turn decoding, so ownership is not probed."""
        return None

    def tasks(self) -> list[TaskRef]:
        """Return one unseeded TaskRef per entry id."""
        return [TaskRef(entry_id) for entry_id in self.entries]

    def entry(self, ref: TaskRef) -> BfclEntry:
        """Return the entry a task refers to."""
        try:
            return self.entries[ref.task_id]
        except KeyError:
            raise KeyError(f"no bfcl entry {ref.task_id!r} in {self.category}") from None

    def oracle(self, ref: TaskRef) -> Calls | None:
        """Return the canonical correct call list, or None when the answers are defective."""
        entry = self.entry(ref)
        if self.defect(ref) is not None:
            return None
        return [oracle_call(ans, entry.declaration(next(iter(ans)))) for ans in entry.answers]

    def defect(self, ref: TaskRef) -> str | None:
        """Return why the shipped answers admit no passing call (they contradict the schema)."""
        entry = self.entry(ref)
        return defect(entry.answers, {fn.get("name", ""): fn for fn in entry.functions})

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe]:
        """Return correct plus the four forgeries, each with its truth by design (1.0 or 0.0)."""
        entry = self.entry(ref)
        base: Calls = copy.deepcopy(correct)
        out = [Probe("correct", base, 1.0, {"degraded": False})]
        for name, forge in (("value_corrupted", self._value_corrupted),
                            ("fabricated", self._fabricated),
                            ("wrong_function_name", _wrong_function_name),
                            ("empty_arguments", _empty_arguments)):
            submission, degraded, detail = forge(entry, copy.deepcopy(base))
            out.append(Probe(name, submission, 0.0 if degraded else 1.0,
                             {"degraded": degraded, **detail}))
        return out

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome:
        """Return bfcl-eval's AST verdict (1.0 valid, 0.0 not), INVALID if the checker raises."""
        entry = self.entry(ref)
        try:
            verdict = self._checker.check(copy.deepcopy(entry.functions),
                                          copy.deepcopy(submission),
                                          copy.deepcopy(entry.answers), self.category)
        except Exception as exc:  # a scorer crash is a missing measurement, not a zero
            return ScoreOutcome(None, "INVALID", f"bfcl-eval ast_checker raised "
                                                 f"{type(exc).__name__}: {exc}")
        valid = verdict.get("valid") if isinstance(verdict, dict) else None
        if not isinstance(valid, bool):
            return ScoreOutcome(None, "INVALID", f"bfcl-eval ast_checker returned {verdict!r}")
        if valid:
            return ScoreOutcome(1.0)
        errors = verdict.get("error") or [""]
        return ScoreOutcome(0.0, "ok", f"{verdict.get('error_type', '')}: {errors[0]}")

    def _value_corrupted(self, entry: BfclEntry, calls: Calls) -> Forged:
        """Nudge the first value that has a type-correct variant the entry allows nowhere."""
        changes = self._rewrite(entry, calls, "perturb", first_only=True)
        if changes:
            return calls, True, changes[0]
        return calls, False, {"reason": "no value has a type-correct variant outside the "
                                        "allowed values: the probe is the correct call"}

    def _fabricated(self, entry: BfclEntry, calls: Calls) -> Forged:
        """Replace every value of every call by an invented, type-correct, disallowed one."""
        changes = self._rewrite(entry, calls, "invent", first_only=False)
        detail: dict[str, Any] = {"changed": [{"call": c["call"], "path": c["path"]}
                                              for c in changes]}
        if not changes:
            detail["reason"] = "no value could be invented outside the allowed values"
        return calls, bool(changes), detail

    def _rewrite(self, entry: BfclEntry, calls: Calls, mode: str,
                 first_only: bool) -> list[dict[str, Any]]:
        """Change values in place (all, or the first changeable); return what was changed."""
        norm = self._checker.standardize
        changes: list[dict[str, Any]] = []
        for i, call in enumerate(calls):
            ((fname, args),) = call.items()
            props = _properties(entry, fname)
            for path, value, declared in list(slots(args, props)):
                ok, new = vary(value, mode, declared, pool(entry.answers, fname, path), norm)
                if ok:
                    set_path(args, path, new)
                    changes.append({"call": i, "path": list(path), "from": value, "to": new})
                    if first_only:
                        return changes
        if changes:
            return changes
        # Nothing present could change (e.g. a call with no arguments): supply an omitted
        # optional parameter with a value the entry allows nowhere, which the checker must reject.
        for i, call in enumerate(calls):
            ((fname, args),) = call.items()
            props = _properties(entry, fname)
            for param, value in omitted_optionals(entry.answers, fname, args, props):
                declared = props.get(param, {}).get("type")
                ok, new = vary(value, mode, declared, pool(entry.answers, fname, (param,)), norm)
                if ok:
                    args[param] = new
                    return [{"call": i, "path": [param], "from": None, "to": new, "added": True}]
        return changes


def _properties(entry: BfclEntry, fname: str) -> dict[str, Any]:
    """Return the declared parameter schemas of `fname` ({} when the entry lacks it)."""
    try:
        props: dict[str, Any] = entry.declaration(fname)["parameters"].get("properties", {})
    except KeyError:
        return {}
    return props


def _wrong_function_name(entry: BfclEntry, calls: Calls) -> Forged:
    """Move the first call's correct arguments under a name the entry never declares."""
    if not calls:
        return calls, False, {"reason": "the correct answer makes no call"}
    ((fname, args),) = calls[0].items()
    taken = {fn.get("name") for fn in entry.functions} | {n for a in entry.answers for n in a}
    new, k = f"{fname}_undeclared", 1
    while new in taken:  # names are compared exactly, so any undeclared name is wrong
        k += 1
        new = f"{fname}_undeclared{k}"
    calls[0] = {new: args}
    return calls, True, {"call": 0, "from": fname, "to": new}


def _empty_arguments(entry: BfclEntry, calls: Calls) -> Forged:
    """Call the right function with no arguments (not degraded if the answer allows that)."""
    if not calls:
        return calls, False, {"reason": "the correct answer makes no call"}
    ((fname, _),) = calls[0].items()
    calls[0] = {fname: {}}
    try:
        allowed = accepts_empty(entry.answers, fname, entry.declaration(fname))
    except KeyError:
        allowed = False
    if allowed:
        return calls, False, {"call": 0, "reason": "every parameter is optional: {} is correct"}
    return calls, True, {"call": 0}


def _load_entries(questions: list[dict[str, Any]], answers: list[dict[str, Any]],
                  limit: int | None) -> dict[str, BfclEntry]:
    """Return {id: entry} for questions that have possible answers, in file order, up to limit."""
    truth = {a["id"]: a["ground_truth"] for a in answers if "ground_truth" in a}
    out: dict[str, BfclEntry] = {}
    for q in questions:
        if limit is not None and len(out) >= limit:
            break
        if q.get("id") in truth:
            out[q["id"]] = BfclEntry(q["id"], list(q.get("function", [])), truth[q["id"]])
    return out


def bfcl_target(category: str = "simple_python", limit: int | None = None) -> NamedTarget:
    """Return the `bfcl` audit target (audit/registry.py) with its category and checker version;
    raise BfclUnavailable without the optional extra, ValueError for an unknown category."""
    target = BfclTarget(category, limit)
    return NamedTarget(target, {"category": target.category,
                                "bfcl_eval_version": target.version})
