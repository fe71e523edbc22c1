"""Eta squared of group x factor for `agm stats compare --factor`: the factor is one of the
pair-by columns, the remaining pair-by columns are the blocks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentmetrology.results.pairing import PairSpec, collect_pairs
from agentmetrology.results.table import ResultsTable
from agentmetrology.stats import eta_squared


def eta_by_factor(
    table: ResultsTable, spec: PairSpec, groups: list[str], factor: str
) -> dict[str, Any]:
    """Return eta squared of group x factor on spec.value, blocks complete in every cell only."""
    at = spec.pair_by.index(factor)
    cells: dict[tuple[str, ...], dict[tuple[str, str], float]] = {}
    for g in groups:
        side = collect_pairs(table, replace(spec, a=g, b=g)).a.values
        for key, (v, _, _) in side.items():
            block = key[:at] + key[at + 1:]
            cells.setdefault(block, {})[(g, key[at])] = v
    levels = sorted({lv for c in cells.values() for _, lv in c})
    blocks = sorted(b for b, c in cells.items() if len(c) == len(groups) * len(levels))
    out: dict[str, Any] = {"value": spec.value, "factors": {"a": spec.group, "b": factor},
                           "groups": groups, "levels": levels, "blocks": len(blocks)}
    if len(levels) < 2 or len(blocks) < 2:
        out.update(shares=None, why="needs 2 levels of the factor and 2 blocks complete in "
                                    "every group x level cell")
        return out
    arr = [[[cells[b][(g, lv)] for lv in levels] for g in groups] for b in blocks]
    out.update(shares=eta_squared(arr).to_dict()["shares"], why="")
    return out
