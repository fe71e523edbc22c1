"""Task contracts: a goal and obligations, each a named predicate over captured evidence.

A contract Γ names the goal of a task and its obligations (permission, side effect, transaction,
interaction). Each is a predicate over an evidence document: plain data an environment captures
from an execution (initial and final state, events, receipts, replies). A predicate reads the
document only through `Evidence.get(path)`, and declares the dotted paths it reads, so that

- a contract naming a path the environment's evidence does not have is refused when the
  contract is built (`Contract.validate`), and
- a path withheld from an evaluator-facing copy is told apart from a violation: the raw checker
  turns the missing path into FAIL, the completeness-aware gate into UNKNOWN "withheld".

The contract-level verdict is the three-valued conjunction (`conjunction`): INVALID when the
evidence is bound to another identity or contract; FAIL when any check is established violated
(a missing fact elsewhere does not hide it); PASS when every check passes; otherwise UNKNOWN.
Goal-only and full-contract are two estimands on the same execution and both are reported. It
lives in `records` because environment plug-ins ship their contracts and import only `records`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from agentmetrology.records.assessment import Status
from agentmetrology.records.errors import UserError
from agentmetrology.records.events import Event
from agentmetrology.records.names import repeated

ObligationKind = Literal["goal", "permission", "side_effect", "transaction", "interaction"]
OBLIGATION_KINDS: tuple[str, ...] = get_args(ObligationKind)
Gate = Literal["complete", "raw"]
WITHHELD = "withheld"  # the reason the completeness-aware gate gives for a withheld path
IDENTITY = "identity"  # the evidence document's binding: {"contract": ..., "task": ..., ...}


class ContractError(UserError):
    """A contract that cannot be built: a duplicate name, an unknown kind, a path that is not."""


class MissingEvidence(KeyError):
    """Raised by `Evidence.get` for a path the document does not hold."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _step(node: Any, part: str) -> Any:
    if isinstance(node, Mapping):
        if part in node:
            return node[part]
        raise KeyError(part)
    if isinstance(node, Sequence) and not isinstance(node, str) and part.isdigit() \
            and int(part) < len(node):
        return node[int(part)]
    raise KeyError(part)


def lookup(doc: Mapping[str, Any], path: str) -> Any:
    """Return the value at a dotted path (list items by index), or raise MissingEvidence."""
    node: Any = doc
    for part in path.split("."):
        try:
            node = _step(node, part)
        except KeyError:
            raise MissingEvidence(path) from None
    return node


def has_path(doc: Mapping[str, Any], path: str) -> bool:
    """Return True when the dotted path exists in the document."""
    try:
        lookup(doc, path)
    except MissingEvidence:
        return False
    return True


def overlaps(a: str, b: str) -> bool:
    """Return True when one dotted path is the other or lies under it."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


@dataclass(frozen=True, slots=True)
class Evidence:
    """A read-only view of an evidence document and the paths withheld from it."""

    doc: Mapping[str, Any]
    withheld: tuple[str, ...] = ()

    def get(self, path: str) -> Any:
        """Return the value at `path`, or raise MissingEvidence."""
        return lookup(self.doc, path)

    def has(self, path: str) -> bool:
        """Return True when `path` is present."""
        return has_path(self.doc, path)


Verdict = tuple[Status, str]  # a predicate's status and its one reason ('' for none)
Predicate = Callable[[Evidence], Verdict]


@dataclass(frozen=True, slots=True)
class Obligation:
    """A named predicate of one kind, with the evidence paths it reads."""

    name: str
    kind: ObligationKind
    reads: tuple[str, ...]
    predicate: Predicate
    description: str = ""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's result: which obligation, its kind, status and reasons."""

    name: str
    kind: str
    status: Status
    reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the result as plain data."""
        return {"name": self.name, "kind": self.kind, "status": self.status,
                "reasons": list(self.reasons)}


@dataclass(frozen=True, slots=True)
class Contract:
    """A task contract: its goal and obligations; `ident` binds it to evidence."""

    name: str
    version: str
    goal: Obligation
    obligations: tuple[Obligation, ...] = ()

    def __post_init__(self) -> None:
        names = [o.name for o in self.checks]
        dup = repeated(names)
        if dup:
            raise ContractError(f"contract {self.name!r} names {', '.join(dup)} twice; "
                                "obligation names must be unique")
        if self.goal.kind != "goal":
            raise ContractError(f"contract {self.name!r}: its goal {self.goal.name!r} has kind "
                                f"{self.goal.kind!r}; a goal has kind 'goal'")
        for o in self.obligations:
            if o.kind not in OBLIGATION_KINDS or o.kind == "goal":
                raise ContractError(
                    f"contract {self.name!r}: obligation {o.name!r} has kind {o.kind!r}; use "
                    f"one of {', '.join(k for k in OBLIGATION_KINDS if k != 'goal')}")

    @property
    def ident(self) -> str:
        """Return the contract's identity, `name@version` (bound in its evidence)."""
        return f"{self.name}@{self.version}"

    @property
    def checks(self) -> tuple[Obligation, ...]:
        """Return the goal followed by the obligations."""
        return (self.goal, *self.obligations)

    def paths(self) -> tuple[str, ...]:
        """Return every evidence path the contract reads, once each, in order."""
        return tuple(dict.fromkeys(p for o in self.checks for p in o.reads))

    def validate(self, schema: Mapping[str, Any]) -> Contract:
        """Return the contract if every path it reads exists in `schema`, else raise one line.

        `schema` is an evidence document of the task (any execution's capture holds every path).
        """
        for o in self.checks:
            for path in o.reads:
                if not has_path(schema, path):
                    known = ", ".join(sorted(schema))
                    raise ContractError(
                        f"contract {self.name!r}: {o.name!r} reads state path {path!r}, which "
                        f"the evidence does not have (top level: {known})")
        return self


def check(obligation: Obligation, evidence: Evidence, gate: Gate = "complete") -> CheckResult:
    """Return one obligation's result on the evidence, under the raw or completeness gate.

    The completeness-aware gate refuses to judge a check whose paths overlap a withheld path
    (UNKNOWN "withheld: PATH") or are missing (UNKNOWN "missing evidence: PATH"); the raw
    checker runs the predicate anyway and reads a missing path as a violation (FAIL).
    """
    o = obligation
    if gate == "complete":
        for path in o.reads:
            hidden = [w for w in evidence.withheld if overlaps(path, w)]
            if hidden:
                return CheckResult(o.name, o.kind, "UNKNOWN", (f"{WITHHELD}: {hidden[0]}",))
            if not evidence.has(path):
                return CheckResult(o.name, o.kind, "UNKNOWN", (f"missing evidence: {path}",))
    try:
        status, reason = o.predicate(evidence)
    except MissingEvidence as exc:
        if gate == "raw":
            return CheckResult(o.name, o.kind, "FAIL", (f"missing path {exc.path}",))
        was_withheld = any(overlaps(exc.path, w) for w in evidence.withheld)
        why = f"{WITHHELD}: {exc.path}" if was_withheld else f"missing evidence: {exc.path}"
        return CheckResult(o.name, o.kind, "UNKNOWN", (why,))
    except Exception as exc:  # a predicate that cannot read what it was given
        why = f"the predicate raised {type(exc).__name__}: {exc}"
        if gate == "raw" and evidence.withheld:  # a naive checker on incomplete data fails it
            return CheckResult(o.name, o.kind, "FAIL", (why,))
        return CheckResult(o.name, o.kind, "INVALID", (why,))  # a checker bug is no verdict
    return CheckResult(o.name, o.kind, status, (reason,) if reason else ())


def conjunction(results: Iterable[CheckResult]) -> tuple[Status, tuple[str, ...]]:
    """Return the three-valued conjunction of check results and the reasons that decide it.

    INVALID if any check is INVALID (the evidence is not this contract's); FAIL if any check is
    established violated (FAIL, or PARTIAL: partly met is not met), whatever else is UNKNOWN;
    PASS if every check passes; otherwise UNKNOWN.
    """
    rs = list(results)
    bad = [r for r in rs if r.status == "INVALID"]
    if bad:
        return "INVALID", tuple(f"{r.name}: {'; '.join(r.reasons)}" for r in bad)
    violated = [r for r in rs if r.status in ("FAIL", "PARTIAL")]
    if violated:
        return "FAIL", tuple(f"{r.name} {r.status.lower()}"
                             + (f": {'; '.join(r.reasons)}" if r.reasons else "")
                             for r in violated)
    if rs and all(r.status == "PASS" for r in rs):
        return "PASS", ()
    open_ = [r for r in rs if r.status != "PASS"]
    return "UNKNOWN", tuple(f"{r.name} unknown" + (f": {'; '.join(r.reasons)}" if r.reasons
                                                   else "") for r in open_) or ("no checks",)


@dataclass(frozen=True, slots=True)
class ContractResult:
    """A contract's verdicts on one execution: goal-only and full-contract, and every check."""

    contract: str
    goal: CheckResult
    checks: tuple[CheckResult, ...]  # goal first, then the obligations
    status: Status  # the full-contract conjunction
    reasons: tuple[str, ...] = ()
    gate: Gate = "complete"
    withheld: tuple[str, ...] = field(default=())

    @property
    def goal_status(self) -> Status:
        """Return the goal-only estimand's status."""
        return self.goal.status

    def as_dict(self) -> dict[str, Any]:
        """Return the result as plain data."""
        return {"contract": self.contract, "gate": self.gate, "withheld": list(self.withheld),
                "goal": self.goal.status, "status": self.status, "reasons": list(self.reasons),
                "checks": [c.as_dict() for c in self.checks]}


def identity_mismatch(contract: Contract, evidence: Evidence,
                      expected: Mapping[str, Any] | None) -> str:
    """Return why the evidence is not bound to this contract and identity ('' when it is)."""
    try:
        bound = evidence.get(IDENTITY)
    except MissingEvidence:
        return "the evidence carries no identity"
    if not isinstance(bound, Mapping):
        return "the evidence identity is not an object"
    if bound.get("contract") != contract.ident:
        return f"evidence bound to contract {bound.get('contract')!r}, not {contract.ident!r}"
    for key, value in (expected or {}).items():
        if bound.get(key) != value:
            return f"evidence bound to {key} {bound.get(key)!r}, expected {value!r}"
    problem = bound.get("problem")
    if problem:  # the environment could not reproduce the execution it was given
        return str(problem)
    return ""


def evaluate(contract: Contract, doc: Mapping[str, Any], *, gate: Gate = "complete",
             withheld: Sequence[str] = (),
             expected: Mapping[str, Any] | None = None) -> ContractResult:
    """Return the contract's result on an evidence document (INVALID on an identity mismatch)."""
    evidence = Evidence(doc, tuple(withheld))
    mismatch = identity_mismatch(contract, evidence, expected)
    if mismatch:
        results = tuple(CheckResult(o.name, o.kind, "INVALID", (mismatch,))
                        for o in contract.checks)
        return ContractResult(contract.ident, results[0], results, "INVALID", (mismatch,), gate,
                              tuple(withheld))
    results = tuple(check(o, evidence, gate) for o in contract.checks)
    status, reasons = conjunction(results)
    return ContractResult(contract.ident, results[0], results, status, reasons, gate,
                          tuple(withheld))


EvidenceCapture = Callable[[Any, str, int | None, str, Sequence[Event] | None], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ContractHooks:
    """What an environment offers for contract checking.

    `contract(task)` returns the task's contract (validated against the task's evidence);
    `capture(submission, task, seed, profile, trajectory)` returns the evidence document of an
    execution, with an `identity` naming the contract and the execution it was captured from.
    """

    contract: Callable[[str], Contract]
    capture: EvidenceCapture
