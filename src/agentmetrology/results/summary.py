"""The `agm stats summarize` document: per group, the reliability row of its usable values,
with every row left out counted per group and reason; a group with no usable value is listed
under `groups_without_values`, never scored as 0."""

from __future__ import annotations

from typing import Any

from agentmetrology.results.errors import TableError, statistics_refusals
from agentmetrology.results.exclusions import describe
from agentmetrology.results.grouping import Groups, collect_groups
from agentmetrology.results.reading import read_results
from agentmetrology.results.request import SummaryRequest
from agentmetrology.stats import reliability_table


def _group_entries(
    request: SummaryRequest, collected: Groups, usable: dict[tuple[str, ...], list[float]]
) -> list[dict[str, Any]]:
    """Return one entry per group with usable values, in the reliability table's order."""
    rows = reliability_table(
        usable,
        tau=request.tau,
        alpha=request.alpha,
        confidence=request.confidence,
        resamples=request.resamples,
        seed=request.analysis_seed,
    )
    none = {"count": 0, "by_reason": {}}
    out = []
    for row in rows:
        entry = row.summary.to_dict()
        entry["group"] = dict(zip(request.group_by, row.key, strict=True))
        entry["rank_mean"], entry["rank_worst"] = row.rank_mean, row.rank_worst
        excluded = collected.by_group.get(row.key)
        entry["excluded"] = excluded.to_dict() if excluded else none
        out.append(entry)
    return out


def build_summary(request: SummaryRequest) -> dict[str, Any]:
    """Return the `summarize` JSON document for a results file (UserError on bad input)."""
    with statistics_refusals():
        groups = list(request.group_by)
        table = read_results(request.source)
        table.require([request.value, *groups])
        collected = collect_groups(table, request.value, groups)
        usable = {key: values for key, values in collected.values.items() if values}
        if not usable:
            raise TableError(
                f"no row of {table.source} has a usable {request.value!r} "
                f"({describe(collected.excluded.to_dict())})"
            )
        entries = _group_entries(request, collected, usable)
    # A group whose every row was excluded still appears, with its exclusions, never as a 0.
    without = [
        {
            "group": dict(zip(groups, key, strict=True)),
            "excluded": collected.by_group[key].to_dict(),
        }
        for key in sorted(collected.values)
        if not collected.values[key]
    ]
    return {
        "command": "stats summarize",
        "source": table.source,
        "format": table.fmt,
        "value": request.value,
        "group_by": groups,
        "parameters": request.parameters,
        "rows": {
            "read": len(table.rows),
            "used": sum(len(v) for v in usable.values()),
            "excluded": collected.excluded.count,
        },
        "excluded": collected.excluded.to_dict(),
        "coerced": collected.coerced.to_dict(),
        "groups": entries,
        "groups_without_values": without,
    }
