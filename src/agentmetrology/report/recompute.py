"""A report derived again from its store and compared, for `agm evidence qualify --recompute`.

Qualify alone binds a report's score rows and chain head to the store, not the numbers the
report derives from the evidence: a forger who edits a number and renders the files again
passes it. Every report agm derives from a store (an archive audit, a regrade, a diagnose, an
experiment report) is derived again here from the store at the report's chain length, by the
analysis that wrote it, and compared section by section (records.json_diff).

What is not derived again is said, never passed over: a store that grew or shrank since the
report (another state: a note), a store that does not qualify (its problems are the finding),
inputs the store does not hold (an audit's spans or claim: a note). A report bound to this
store's chain that says it is not a report of a store, or whose parameters no analysis takes,
was edited: that is a problem, not a note, so a forger cannot step around the comparison.

The builds are compared first (report.build_id): a report this build wrote is compared section
by section as above; one another build wrote (or one that names no build: written before
builds were recorded) is compared on the values both builds write (report.build_compare), so an
honest report of an earlier build is not called edited, and a number both write that differs is
still named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from agentmetrology.archive import report_recompute as archived
from agentmetrology.diagnose.recompute import (
    diagnose_again,
    diagnose_comparable,
    diagnose_left_out,
    diagnose_notes,
    is_diagnose,
)
from agentmetrology.experiment.recompute import (
    experiment_again,
    experiment_comparable,
    is_experiment,
)
from agentmetrology.records.errors import NotDerivedAgain, UserError
from agentmetrology.records.json_diff import SHOWN, differences
from agentmetrology.report.build_compare import other_build
from agentmetrology.report.build_id import BUILD, build_of, this_build
from agentmetrology.store.qualify import INVALID

Doc = dict[str, Any]
ROW_IDS = "score_rows[].row_id"  # each score row's digest of its other fields


def _none(doc: Doc) -> str | None:
    return None


def _no_notes(doc: Doc, again: Doc) -> list[str]:
    return []


def _all_compared(doc: Doc, again: Doc) -> frozenset[str]:
    return frozenset()


@dataclass(frozen=True, slots=True)
class Recomputer:
    """How one kind of report is derived again from its store and compared."""

    noun: str  # in "a recomputed {noun} would cover another state"
    cost: str  # what --recompute costs, in words
    of_store: Callable[[Doc], bool]  # the report says it was derived from a store
    again: Callable[[Doc, Path, Doc], Doc]  # (report, store, qualification now) -> again
    comparable: Callable[[Doc], Doc]  # a document's compared sections
    other_inputs: Callable[[Doc], str | None] = _none  # inputs the store does not hold
    # (report, again) -> what the comparison left out, in words; the sections it left out
    notes: Callable[[Doc, Doc], list[str]] = _no_notes
    left_out: Callable[[Doc, Doc], frozenset[str]] = _all_compared
    # digests over the report's other values, left out across builds (report.build_compare)
    digests: tuple[str, ...] = ()


RECOMPUTERS = {
    "archive.json": Recomputer(
        "audit", "one audit of the store",
        archived.audit_of_store, lambda d, store, now: archived.audit_again(store, now),
        archived.audit_comparable, archived.audit_other_inputs, digests=(ROW_IDS,)),
    "regrade.json": Recomputer(
        "regrade", "one regrade of the store",
        archived.regrade_of_store, lambda d, store, now: archived.regrade_again(store, now),
        archived.regrade_comparable, digests=(ROW_IDS,)),
    "diagnose.json": Recomputer(
        "diagnose", "one diagnose of the store (a judge is not asked again)",
        is_diagnose, lambda d, store, now: diagnose_again(d, store), diagnose_comparable,
        notes=diagnose_notes, left_out=diagnose_left_out, digests=("digest",)),
    "experiment.json": Recomputer(
        "experiment report", "one experiment report of the store", is_experiment,
        lambda d, store, now: experiment_again(d, store), experiment_comparable),
}


def _bound(doc: Doc) -> bool:
    """Return True when the report names the evidence it was built from."""
    evidence = doc.get("evidence")
    return isinstance(evidence, dict) and bool(evidence.get("evidence_digest"))


def recompute_cost(path: Path) -> str:
    """Return what `--recompute` costs for the report at `path`, in words."""
    r = RECOMPUTERS.get(path.name)
    return r.cost if r else "not applicable"


def not_recomputable(path: Path, doc: Doc, current: Doc) -> str | None:
    """Return why the report `doc` (read from `path`) is not derived again from its store,
    whose qualification now is `current` (None: it is)."""
    r = RECOMPUTERS.get(path.name)
    if r is None:
        return f"{path.name} is no report agm derives from a store"
    if not r.of_store(doc):
        return f"{path.name} is not a report of an evidence store (schema {doc.get('schema')!r})"
    if (why := r.other_inputs(doc)) is not None:
        return why
    was = (doc.get("evidence") or {}).get("chain_length")
    now = current.get("chain_length")
    if was != now:
        return (f"the store's chain is {now} entries long, the report's was {was}; a "
                f"recomputed {r.noun} would cover another state")
    if not current.get("qualified"):  # a broken store: its problems are the finding
        return "the store does not qualify now"
    return None


class Recomputation(NamedTuple):
    """What deriving a report again found: problems, notes, whether it was derived, the
    qualification's `recomputed` section (None: not derived) and how many of the report's values
    were not compared (another build's fields)."""

    problems: list[dict[str, str]]
    notes: list[str]
    derived: bool
    block: dict[str, Any] | None = None
    uncompared: int = 0


def recomputed(path: Path, doc: Doc, store: Path, current: Doc) -> Recomputation:
    """Return the problems and notes of deriving the report `doc` (read from `path`) again
    from `store`, whose qualification now is `current`, and whether it was derived."""
    r = RECOMPUTERS.get(path.name)
    why = not_recomputable(path, doc, current)
    if r is not None and not r.of_store(doc) and _bound(doc):
        return Recomputation([_problem(
            "report_not_derivable", f"{path.name} is bound to the store's chain but says it "
            f"is not a report of a store (schema {doc.get('schema')!r}): edited; its numbers "
            "cannot be re-derived")], [], False)
    if why is not None or r is None:
        return Recomputation([], [f"not recomputed: {why}"], False)
    try:
        again = r.again(doc, store, current)
    except NotDerivedAgain as exc:  # an input the store does not keep: no edit
        return Recomputation([], [f"not recomputed: {exc}"], False)
    except UserError as exc:
        return Recomputation([_problem("report_not_derivable", f"{path.name} cannot be derived "
                                       f"again from the store: {exc}")], [], False)
    # the sections this report's comparison leaves out, on both sides; the build apart
    skip = r.left_out(doc, again) | {BUILD}
    mine = {k: v for k, v in r.comparable(doc).items() if k not in skip}
    theirs = {k: v for k, v in r.comparable(again).items() if k not in skip}
    notes = r.notes(doc, again)
    written = build_of(doc)
    if written != this_build():
        other = other_build(path.name, written, mine, theirs, r.digests)
        return Recomputation(other.problems, [*other.notes, *notes], True, other.block,
                             other.uncompared)
    found = differences(mine, theirs)
    block = {"status": "report_recomputed_differs" if found else "equal", "same_build": True,
             "report_build": written, "this_build": written}
    if not found:
        what = "every compared section" if skip - {BUILD} else "every section"
        return Recomputation(
            [], [f"recomputed from the store: {what} of the report is equal", *notes], True,
            block)
    return Recomputation([_problem(
        "report_recomputed_differs", f"recomputed from the store, {path.name} differs: "
        + "; ".join(found) + ("; ..." if len(found) >= SHOWN else ""))], notes, True, block)


def _problem(kind: str, detail: str) -> dict[str, str]:
    return {"kind": kind, "result": INVALID, "detail": detail}
