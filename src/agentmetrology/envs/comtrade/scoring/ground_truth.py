"""The valid ComtradeBench scorer: F1 of submitted record ids against the exact ground truth.

S = record_ids of submitted lines that parse (a JSON object with a string `record_id`),
G = the ground-truth ids of (task, seed, profile), U = S ∩ G counted once.
R = |U|/|G|, P = |U|/lines where *every* non-blank line counts (duplicates, totals rows,
fabricated and unparsable lines all inflate the denominator), F1 = 2RP/(R+P), 0 when U is empty.

Beside the spec's F1 the assessment reports `value_mismatches` (matched ids whose first submitted
row differs from the generated row in any of its ten fields) and `f1_exact`, the same F1 counting
only rows that match exactly. Record ids are `{task_id}-{i:06d}` for every seed, so id-only F1
can be earned by guessing ids with invented values (or by replaying another seed's rows);
`f1_exact` cannot.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from agentmetrology.envs.comtrade.generator import (
    ROW_FIELDS,
    ground_truth_ids,
    record_ids,
    row_tuples,
)
from agentmetrology.envs.comtrade.scoring.columns import Columns, uniform_columns
from agentmetrology.envs.comtrade.scoring.genuine import adopt_genuine, id_index
from agentmetrology.envs.comtrade.scoring.streamed import StreamedSubmission
from agentmetrology.envs.comtrade.scoring.submission import (
    BOM_REASON,
    Scorable,
    Submission,
    make_submission,
)
from agentmetrology.envs.comtrade.tasks import PROFILES, TASKS, Profile
from agentmetrology.records.assessment import Assessment, Status

GROUND_TRUTH_SCORER: Final = "ground_truth_f1"
GROUND_TRUTH_VERSION: Final = "1.1.0"  # 1.1.0: a leading UTF-8 byte order mark is ignored


@dataclass(frozen=True, slots=True)
class LineCounts:
    """What the submitted lines were: parsed ids, duplicates, totals rows, spurious, unparsable."""

    lines: int  # non-blank lines: the precision denominator
    matched: int  # |U|
    duplicates: int  # parsed lines whose record_id was already seen earlier in the file
    totals_rows: int  # parsed lines that are totals rows (may also be duplicates)
    spurious: int  # distinct ids of non-totals rows that are not in G
    unparsable: int  # lines that are not a JSON object with a string record_id
    mismatched: int = 0  # matched ids whose first submitted row differs from the generated row


@lru_cache(maxsize=64)
def _truth(task_id: str, seed: int | None, profile: Profile) -> frozenset[str]:
    # Building G allocates one string per row (2,345 for T2): do it once per (task, seed).
    # A small cache: a T2 entry holds ~0.3 MB, and a rebuild costs far less than a scoring.
    return ground_truth_ids(task_id, seed, profile)


@lru_cache(maxsize=64)
def _truth_rows(task_id: str, seed: int | None, profile: Profile) -> dict[str, tuple[Any, ...]]:
    """Return the generated rows of (task, seed, profile) keyed by record id."""
    # row[-1] is the row's record id, record_ids(task_id)[i] (generator.row_tuples)
    return dict(zip(record_ids(task_id), row_tuples(task_id, seed, profile), strict=True))


_FIELDS = operator.itemgetter(*ROW_FIELDS)
_FIELD_SET = frozenset(ROW_FIELDS)
TruthColumns = tuple[dict[str, int], tuple[tuple[Any, ...], ...]]


# A campaign scores every episode of one (task, seed) before the next (run/campaign/plan.py
# orders seed, task, then condition, level and target innermost), so a few entries serve it.
# Kept few on purpose: ten new column tuples per entry stay tracked by the cyclic collector
# until a collection walks them, and 64 entries of T2 made that walk ~600,000 elements long.
@lru_cache(maxsize=8)
def _truth_columns(task_id: str, seed: int | None, profile: Profile) -> TruthColumns:
    """Return each generated record id's row index and the generated rows as columns."""
    rows = row_tuples(task_id, seed, profile)
    return (id_index(task_id),
            tuple(zip(*rows, strict=True)) if rows else ((),) * len(ROW_FIELDS))


def _mismatch(value: dict[str, Any], expected: tuple[Any, ...] | None) -> bool:
    if expected is None:
        return False
    try:
        got = _FIELDS(value)
    except KeyError:
        return True
    # Type-sensitive: 2020 and "2020" differ, as do 1 and True (type objects compare by
    # identity, so comparing the tuples of types is the per-field `is` test).
    return got != expected or tuple(map(type, got)) != tuple(map(type, expected))


class LineTally:
    """The line counts of parsed JSONL values against G, accumulated batch by batch."""

    __slots__ = ("_rows", "_rows_of", "columns", "duplicates", "lines", "mismatched", "seen",
                 "spurious", "totals", "totals_only", "truth", "unparsable")

    def __init__(self, truth: frozenset[str], rows: dict[str, tuple[Any, ...]] | None,
                 columns: TruthColumns | None = None, *,
                 rows_of: tuple[str, int | None, Profile] | None = None) -> None:
        # `rows_of` names (task, seed, profile) whose rows are built on first use instead:
        # rows that match their generated row column by column never need them.
        self.truth, self._rows, self._rows_of, self.columns = truth, rows, rows_of, columns
        self.seen: set[str] = set()
        # Ids outside G seen so far only on totals rows: a later non-totals line makes them
        # spurious. Counting spurious ids this way keeps one set of ids, not two.
        self.totals_only: set[str] = set()
        self.lines = self.duplicates = self.totals = self.unparsable = self.mismatched = 0
        self.spurious = 0

    @property
    def rows(self) -> dict[str, tuple[Any, ...]] | None:
        """Return the generated rows by record id (None: values are not checked)."""
        if self._rows is None and self._rows_of is not None:
            self._rows = _truth_rows(*self._rows_of)
        return self._rows

    @property
    def checks_values(self) -> bool:
        """Return True when matched rows are compared with their generated rows."""
        return self._rows is not None or self._rows_of is not None

    def add(self, values: Sequence[Any]) -> None:
        """Absorb one batch of parsed lines, in file order."""
        if self._add_plain(values):
            return
        seen, totals_only, truth, rows = self.seen, self.totals_only, self.truth, self.rows
        duplicates = totals = unparsable = mismatched = spurious = 0
        for value in values:
            if type(value) is not dict:
                unparsable += 1
                continue
            get = value.get
            rid = get("record_id")
            if type(rid) is not str:
                unparsable += 1
                continue
            # generator.is_totals_row, inlined (value is a dict here)
            is_totals = get("isTotal") or get("is_total") or get("hs") == "TOTAL"
            if is_totals:
                totals += 1
            if rid in seen:
                duplicates += 1
                if not is_totals and rid in totals_only:
                    totals_only.discard(rid)
                    spurious += 1
                continue
            seen.add(rid)
            if rid in truth:
                if rows is not None and _mismatch(value, rows.get(rid)):
                    mismatched += 1
            elif is_totals:
                totals_only.add(rid)
            else:
                spurious += 1
        self.lines += len(values)
        self.duplicates += duplicates
        self.totals += totals
        self.unparsable += unparsable
        self.mismatched += mismatched
        self.spurious += spurious

    def _add_plain(self, values: Sequence[Any]) -> bool:
        """Absorb a batch of plain rows column by column; return False, absorbing nothing, else.

        Plain: every line an object with the ten row fields and no other key (so no
        isTotal/is_total flag), in one order, no hs "TOTAL", string record ids none of which
        was seen before or repeats. Then no line is unparsable, a totals row or a duplicate,
        and the counts the per-line loop would make are set operations and, for the value
        check, column comparisons (row by row only when a column differs).
        """
        c = uniform_columns(values)
        if c is None or len(c.keys) != len(ROW_FIELDS) or set(c.keys) != _FIELD_SET:
            return False
        cols = dict(zip(c.keys, c.cols, strict=True))
        rids = cols["record_id"]
        if c.kinds[c.keys.index("record_id")] != {str}:  # before the set: a list id is no key
            return False
        ids = c.value_set("record_id")
        if len(ids) != len(rids) or "TOTAL" in cols["hs"] or not self.seen.isdisjoint(ids):
            return False
        known = len(ids) if ids <= self.truth else len(ids & self.truth)  # <=: no new set
        if self.checks_values and not (known == len(rids) and self._columns_match(c)):
            rows = self.rows
            assert rows is not None
            self.mismatched += sum(1 for v, e in zip(values, map(rows.get, rids),
                                                     strict=True) if _mismatch(v, e))
        self.seen |= ids
        self.spurious += len(ids) - known
        self.lines += len(values)
        return True

    def _columns_match(self, c: Columns) -> bool:
        """Return True when every row equals its generated row in every field and type (the
        ids all in G and distinct): then none mismatches.

        A run of the generated rows in order compares column slices; rows in any other order
        (an agent that keeps first copies of shuffled or duplicated pages) compare each column
        gathered by the rows' generated indices, still one comparison per column.
        """
        if self.columns is None:
            return False
        index, truth_cols = self.columns
        if c.gathered_from is truth_cols:  # each row is its generated row (scoring/genuine.py)
            return True
        rids = c.column("record_id")
        assert rids is not None
        k = index.get(rids[0])
        if k is None:
            return False
        end = k + len(rids)
        gather: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None
        if len(rids) > 1 and truth_cols[ROW_FIELDS.index("record_id")][k:end] != rids:
            # every id is in G (the caller checked); with two or more indices an itemgetter
            # returns the tuple of them, gathered in C
            gather = operator.itemgetter(*map(index.__getitem__, rids))
        # each generated column holds one type (generator.row_tuples), so want[0]'s is all's
        for key, col, kinds in zip(c.keys, c.cols, c.kinds, strict=True):
            truth = truth_cols[ROW_FIELDS.index(key)]
            want = truth[k:end] if gather is None else gather(truth)
            if kinds != {type(want[0])} or col != want:
                return False
        return True

    def counts(self) -> LineCounts:
        """Return the counts so far."""
        seen, truth = self.seen, self.truth
        # |U| = |S ∩ G|; a subset test builds no set, and a valid answer's ids are all in G
        matched = len(seen) if seen <= truth else len(seen & truth)
        return LineCounts(self.lines, matched, self.duplicates, self.totals, self.spurious,
                          self.unparsable, self.mismatched)


def f1_components(counts: LineCounts, truth_size: int) -> dict[str, float | int]:
    """Return recall, precision, f1 and the counts as the assessment's components."""
    u = counts.matched
    recall = u / truth_size if truth_size else 0.0
    precision = u / counts.lines if counts.lines else 0.0
    f1 = 2 * recall * precision / (recall + precision) if u else 0.0
    exact = u - counts.mismatched
    r_x = exact / truth_size if truth_size else 0.0
    p_x = exact / counts.lines if counts.lines else 0.0
    return {
        "f1": f1, "recall": recall, "precision": precision, "matched": u,
        "f1_exact": 2 * r_x * p_x / (r_x + p_x) if exact else 0.0,
        "value_mismatches": counts.mismatched,
        "truth": truth_size, "lines": counts.lines, "duplicates": counts.duplicates,
        "totals_rows": counts.totals_rows, "spurious": counts.spurious,
        "unparsable": counts.unparsable,
    }


def _reasons(c: dict[str, float | int]) -> tuple[str, ...]:
    """Return one short reason per kind of shortfall (empty for a perfect submission)."""
    out = []
    if not c["lines"]:
        out.append("empty submission: no non-blank data lines")
    missing = int(c["truth"]) - int(c["matched"])
    if missing and c["lines"]:
        out.append(f"{missing} of {c['truth']} ground-truth records missing")
    for key, label in (("duplicates", "duplicate lines"), ("totals_rows", "totals rows kept"),
                       ("spurious", "ids not in the ground truth"),
                       ("value_mismatches", "matched ids whose row values differ from the "
                                            "ground truth (see f1_exact)"),
                       ("unparsable", "lines that are not a JSON object with a string record_id")):
        if c[key]:
            out.append(f"{c[key]} {label}")
    return tuple(out)


def _invalid(reasons: list[str] | tuple[str, ...], evidence_digest: str) -> Assessment:
    return Assessment(GROUND_TRUTH_SCORER, GROUND_TRUTH_VERSION, "INVALID", None, {},
                      tuple(reasons), evidence_digest)


def _check_target(task_id: str, seed: int | None, profile: str) -> str | None:
    """Return why (task, seed, profile) names no ground truth, or None."""
    if task_id not in TASKS:
        return f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}"
    if profile not in PROFILES:
        return f"unknown profile {profile!r}; known profiles: {', '.join(PROFILES)}"
    if profile == "seeded" and (type(seed) is not int):
        return f"the seeded profile needs an integer seed, got {seed!r}"
    return None


def ground_truth_f1(submission: Scorable | str | bytes | None, task_id: str,
                    seed: int | None, profile: str = "seeded", *,
                    evidence_digest: str | None = None) -> Assessment:
    """Return the ground-truth F1 Assessment of a submission (or of its data.jsonl text)."""
    if submission is not None and not isinstance(submission, Submission | StreamedSubmission):
        submission = make_submission(data_jsonl=submission)
    ev = evidence_digest
    if ev is None:
        ev = submission.digest if submission is not None else ""
    bad_target = _check_target(task_id, seed, profile)
    if bad_target:
        return _invalid([bad_target], ev)
    prof: Profile = "legacy" if profile == "legacy" else "seeded"
    truth = _truth(task_id, None if prof == "legacy" else seed, prof)
    if submission is not None and (problems := submission.problems_for("data_jsonl")):
        return _invalid(problems, ev)
    if submission is None or not submission.present("data_jsonl"):
        # No submission is the agent's failure to answer, a measurement of 0, not INVALID.
        comps = f1_components(LineCounts(0, 0, 0, 0, 0, 0), len(truth))
        reason = "no submission" if submission is None else "no submission: data.jsonl is missing"
        return Assessment(GROUND_TRUTH_SCORER, GROUND_TRUTH_VERSION, "FAIL", 0.0, comps,
                          (reason,), ev)
    key = (task_id, None if prof == "legacy" else seed, prof)
    columns = _truth_columns(*key)
    if isinstance(submission, Submission):  # the usual clean answer is not parsed at all
        adopt_genuine(submission, *key, columns[1])
    tally = LineTally(truth, None, columns, rows_of=key)
    for batch in submission.record_batches():  # one batch in memory, many for a streamed file
        tally.add(batch)
    comps = f1_components(tally.counts(), len(truth))
    f1 = float(comps["f1"])
    # PASS needs the rows themselves to be right, not only their ids.
    exact = f1 == 1.0 and comps["value_mismatches"] == 0
    status: Status = "PASS" if exact else ("PARTIAL" if f1 > 0.0 else "FAIL")
    reasons = _reasons(comps)
    if submission.starts_with_bom:
        reasons = (BOM_REASON, *reasons)
    return Assessment(GROUND_TRUTH_SCORER, GROUND_TRUTH_VERSION, status, f1, comps, reasons, ev)
