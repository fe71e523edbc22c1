"""Rows to numbers per group key, recording every row left out and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentmetrology.results.exclusions import Coercions, Exclusions
from agentmetrology.results.table import ResultsTable, label
from agentmetrology.results.values import Excluded, take_value


@dataclass
class Groups:
    """Values per group key, with the rows excluded from each group and from no group."""

    values: dict[tuple[str, ...], list[float]] = field(default_factory=dict)
    excluded: Exclusions = field(default_factory=Exclusions)
    by_group: dict[tuple[str, ...], Exclusions] = field(default_factory=dict)
    coerced: Coercions = field(default_factory=Coercions)


def collect_groups(table: ResultsTable, value: str, groups: Sequence[str]) -> Groups:
    """Return the numeric values per group key and the rows excluded (with reasons)."""
    out = Groups()
    for row, line in zip(table.rows, table.line_numbers, strict=True):
        key = tuple(label(table.get(row, g)) for g in groups)
        if any(part is None for part in key):
            out.excluded.add(f"missing {','.join(groups)}", line)
            continue
        skey = tuple(str(p) for p in key)
        got = take_value(table, row, line, value, out.coerced)
        if isinstance(got, Excluded):
            out.excluded.add(got.reason, line, got.detail)
            out.by_group.setdefault(skey, Exclusions()).add(got.reason, line, got.detail)
            out.values.setdefault(skey, [])
        else:
            out.values.setdefault(skey, []).append(got)
    return out
