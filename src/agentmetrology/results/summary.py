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
from agentmetrology.results.scales import Scale, scale_of
from agentmetrology.stats import reliability_at, reliability_table


def _scale_doc(scale: Scale, column: str, tau: float) -> dict[str, Any]:
    """Return the column's range and --tau as a fraction of it and in points, with one line."""
    if scale.low is None or scale.high is None:
        return {"column": column, "range": None, "source": scale.source, "tau_fraction": None,
                "tau_units": tau, "text": f"{column}: range not declared by a scorer; tau "
                f"{tau:g} in the column's own units (give --range LOW,HIGH to take it as a "
                "fraction of a range)"}
    span, units = f"{scale.low:g}-{scale.high:g}", scale.low + tau * (scale.high - scale.low)
    return {"column": column, "range": [scale.low, scale.high], "source": scale.source,
            "tau_fraction": tau, "tau_units": units,
            "text": f"{column}: range {span} ({scale.source}); tau {tau:g} of the range = "
                    f"{units:g} points"}


def _group_entries(
    request: SummaryRequest, collected: Groups, usable: dict[tuple[str, ...], list[float]],
    scale: Scale,
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
        if not scale.unit:  # Reliability@tau on the fraction of the declared range
            entry["reliability"] = reliability_at(scale.fraction(usable[row.key]),
                                                  request.tau).to_dict()
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
        # Each group's numbers are a function of its values, not of the rows' order: a float
        # sum's last bit and the bootstrap's draws follow the order, so a group's values are
        # taken sorted (the same runs listed in another order ranked 1, 2, 3 by mean).
        usable = {key: sorted(values) for key, values in collected.values.items() if values}
        if not usable:
            raise TableError(
                f"no row of {table.source} has a usable {request.value!r} "
                f"({describe(collected.excluded.to_dict())})"
            )
        scale = scale_of(request.value, [v for vs in usable.values() for v in vs],
                         request.score_range, 0.0)
        entries = _group_entries(request, collected, usable, scale)
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
        "scale": _scale_doc(scale, request.value, request.tau),
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
