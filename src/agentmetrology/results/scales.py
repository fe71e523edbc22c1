"""The score range of a value column, so margins and thresholds mean what they say.

`--margin 0.1` on a 0-1 F1 is a tenth of the scale; on the 0-100 shape judge, read as points,
it would be a thousandth, and every comparison would be "inconclusive" or "different" for a
reason nobody chose. So `agm stats compare` takes `--margin` and `--tau` as fractions of each
column's range: a column whose range is not 0-1 is compared on the fraction of its range (a
0-100 score divided by 100) and the document says so, with the margin and tau in points.

A column's range is declared by its scorer (`EnvSpec.score_ranges`; a scorer not listed scores
0-1) or given with `--range LOW,HIGH`. A column no scorer declares (cost, latency, a component)
without `--range` keeps its own units: margin and tau are then in those units, and the
document says that too. A value outside a known range is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.records.errors import UserError
from agentmetrology.results.errors import TableError

UNIT = (0.0, 1.0)


@dataclass(frozen=True)
class Scale:
    """A column's score range and where it comes from."""

    low: float | None  # None: the range is unknown, values keep their own units
    high: float | None
    source: str

    @property
    def unit(self) -> bool:
        """Return True when values are compared as they are (0-1, or units of their own)."""
        return self.low is None or (self.low, self.high) == UNIT

    def fraction(self, values: Sequence[float]) -> list[float]:
        """Return values as fractions of the range (unchanged on 0-1 or an unknown range)."""
        if self.unit or self.low is None or self.high is None:
            return list(values)
        width = self.high - self.low
        return [(v - self.low) / width for v in values]

    def describe(self, column: str, margin: float, tau: float) -> dict[str, Any]:
        """Return the scale's part of a comparison: range, source, margin and tau in units."""
        if self.low is None or self.high is None:
            return {"column": column, "range": None, "source": self.source, "normalised": False,
                    "margin_fraction": None, "margin_units": margin, "tau_fraction": None,
                    "tau_units": tau,
                    "text": f"{column}: range not declared by a scorer; margin {margin:g} and tau "
                            f"{tau:g} in the column's own units (give --range LOW,HIGH to take "
                            "them as fractions of a range)"}
        width = self.high - self.low
        span = f"{self.low:g}-{self.high:g}"
        text = f"{column}: range {span} ({self.source}); " + (
            f"margin {margin:g} and tau {tau:g} on that scale" if self.unit else
            f"margin {margin * width:g} points ({margin:g} of range {span}), tau "
            f"{self.low + tau * width:g} points ({tau:g} of range); compared as fractions of "
            f"the range (values - {self.low:g}) / {width:g}")
        return {"column": column, "range": [self.low, self.high], "source": self.source,
                "normalised": not self.unit, "margin_fraction": margin,
                "margin_units": margin * width, "tau_fraction": tau,
                "tau_units": self.low + tau * width, "text": text}


def parse_range(text: str | None) -> tuple[float, float] | None:
    """Return (low, high) of a `--range LOW,HIGH` option, or raise a UserError saying why."""
    if text is None:
        return None
    parts = text.split(",")
    try:
        low, high = (float(p) for p in parts) if len(parts) == 2 else (math.nan, math.nan)
    except ValueError:
        low = high = math.nan
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise UserError(f"--range {text!r} is not a score range: give LOW,HIGH with LOW < HIGH, "
                        "e.g. --range 0,100")
    return low, high


@cache
def declared() -> dict[str, Scale]:
    """Return the range every registered scorer declares, by the columns its score is under."""
    out: dict[str, Scale] = {}
    for name in env_names():
        try:
            spec = get_env(name)
        except UserError:
            continue  # a broken plug-in declares nothing; `agm envs` reports it
        for sc in spec.scorers:
            low, high = spec.score_ranges.get(sc.name, UNIT)
            scale = Scale(low, high, f"declared by scorer {sc.name}")
            # the export's column, and a result row's (`agm run --json`) total
            for column in (f"{sc.name}.score", f"{sc.label}.score", f"{sc.label}.total"):
                out.setdefault(column, scale)
    return out


def scale_of(column: str, values: Sequence[float], given: tuple[float, float] | None,
             margin: float) -> Scale:
    """Return the range of `column` (declared, given, or unknown), or refuse it."""
    values = [v for v in values if math.isfinite(v)]  # the statistics refuse the others
    mine = declared().get(column)
    if mine is not None and given is not None and given != (mine.low, mine.high):
        raise TableError(f"--range {given[0]:g},{given[1]:g} contradicts the range of {column} "
                         f"({mine.low:g}-{mine.high:g}, {mine.source}): drop --range")
    scale = mine or (Scale(*given, "given with --range") if given is not None else None)
    if scale is None or scale.low is None or scale.high is None:
        return Scale(None, None, "not declared")
    if margin > 1.0:  # a margin <= 0 is refused by the statistics themselves
        raise TableError(f"--margin {margin:g} is a fraction of the range of {column} (0.1 = a "
                         "tenth of it) and must be at most 1: for 5 points on a 0-100 score "
                         "give --margin 0.05")
    outside = [v for v in values if not scale.low <= v <= scale.high]
    if outside:
        raise TableError(f"{column} has values outside its range {scale.low:g}-{scale.high:g} "
                         f"({scale.source}), e.g. {outside[0]:g}: check the column or --range")
    return scale
