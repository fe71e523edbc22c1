"""Rows of two groups matched on pair-by columns: complete pairs, and the pairs dropped (a key
in one group only, or a key whose row was excluded on either side), counted apart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmetrology.results.errors import TableError
from agentmetrology.results.exclusions import Coercions, Exclusions
from agentmetrology.results.table import ResultsTable, label
from agentmetrology.results.values import Excluded, take_value

# A pair key's (value, cluster, stratum); cluster and stratum are None when not asked for.
Pairing = dict[tuple[str, ...], tuple[float, str | None, str | None]]
_MISSING_KEY = "missing pair-by, cluster or strata field"


@dataclass(frozen=True)
class PairSpec:
    """Which columns define a comparison."""

    value: str
    group: str
    a: str
    b: str
    pair_by: tuple[str, ...]
    cluster: str | None
    strata: str | None


@dataclass
class PairSide:
    """One group's values by pair key, and the pair keys of its excluded rows."""

    values: Pairing = field(default_factory=dict)
    excluded_keys: set[tuple[str, ...]] = field(default_factory=set)
    excluded: Exclusions = field(default_factory=Exclusions)
    lines: dict[tuple[str, ...], int] = field(default_factory=dict)  # key -> its row's line


@dataclass
class Pairs:
    """A's and B's sides of a comparison, and the rows excluded from either or from both."""

    a: PairSide
    b: PairSide
    excluded: Exclusions
    coerced: Coercions


def check_groups(table: ResultsTable, spec: PairSpec) -> None:
    """Raise TableError unless both group names occur in the group column and differ."""
    if spec.a == spec.b:
        raise TableError(f"--a and --b must name different groups, both are {spec.a!r}")
    present = {label(table.get(row, spec.group)) for row in table.rows} - {None}
    for option, name in (("--a", spec.a), ("--b", spec.b)):
        if name not in present:
            shown = ", ".join(sorted(str(p) for p in present)[:20])
            raise TableError(
                f"{option} group {name!r} not found in column {spec.group!r} (values: {shown})"
            )


def collect_pairs(table: ResultsTable, spec: PairSpec) -> Pairs:
    """Return A's and B's values keyed by the pair-by columns, and the rows excluded."""
    sides = {spec.a: PairSide(), spec.b: PairSide()}
    excluded = Exclusions()
    coerced = Coercions()
    for row, line in zip(table.rows, table.line_numbers, strict=True):
        name = label(table.get(row, spec.group))
        if name is None:
            excluded.add(f"missing {spec.group}", line)
            continue
        side = sides.get(name)
        if side is None:
            continue  # a row of some other group: not part of this comparison
        key = tuple(label(table.get(row, col)) for col in spec.pair_by)
        cl = label(table.get(row, spec.cluster)) if spec.cluster else ""
        st = label(table.get(row, spec.strata)) if spec.strata else ""
        if any(part is None for part in key) or cl is None or st is None:
            excluded.add(_MISSING_KEY, line)
            side.excluded.add(_MISSING_KEY, line)
            continue
        skey = tuple(str(p) for p in key)
        if skey in side.lines:
            # Also when either row is excluded: a failed attempt beside a scored one would
            # otherwise be dropped silently and the pair counted complete.
            raise TableError(
                f"line {line}: a second row for pair {', '.join(skey)} in one group (the "
                f"first is line {side.lines[skey]}); add columns to --pair-by so each pair "
                "is unique"
            )
        side.lines[skey] = line
        got = take_value(table, row, line, spec.value, coerced)
        if isinstance(got, Excluded):
            excluded.add(got.reason, line, got.detail)
            side.excluded.add(got.reason, line, got.detail)
            side.excluded_keys.add(skey)
        else:
            side.values[skey] = (got, cl or None, st or None)
    return Pairs(a=sides[spec.a], b=sides[spec.b], excluded=excluded, coerced=coerced)


def align_pairs(pairs: Pairs) -> tuple[list[tuple[str, ...]], dict[str, Any]]:
    """Return the complete pair keys (sorted) and the counts of pairs dropped, and why.

    A pair is dropped because of an exclusion when one side's row for its key was excluded
    (e.g. a measurement failure); it is incomplete when one side has no row for the key at all.
    """
    a_side, b_side = pairs.a.values, pairs.b.values
    complete = sorted(set(a_side) & set(b_side))
    for key in complete:
        if a_side[key][1:] != b_side[key][1:]:
            raise TableError(
                f"pair {', '.join(key)} has a different cluster or stratum in A and B; "
                "make --cluster/--strata part of the pair or constant within it"
            )
    a_excl, b_excl = pairs.a.excluded_keys - set(a_side), pairs.b.excluded_keys - set(b_side)
    a_seen, b_seen = set(a_side) | a_excl, set(b_side) | b_excl
    # A key with an excluded row on either side is dropped because of the exclusion, whether
    # the other side was usable, excluded too, or absent.
    dropped = sorted(a_excl | b_excl)
    only_a = sorted(set(a_side) - b_seen)
    only_b = sorted(set(b_side) - a_seen)
    return complete, {
        "complete": len(complete),
        "incomplete": len(only_a) + len(only_b),
        "only_a": len(only_a),
        "only_b": len(only_b),
        "examples_only_a": [list(k) for k in only_a[:10]],
        "examples_only_b": [list(k) for k in only_b[:10]],
        "dropped_excluded": len(dropped),
        "excluded_a": len(a_excl),
        "excluded_b": len(b_excl),
        "examples_dropped_excluded": [list(k) for k in dropped[:10]],
    }
