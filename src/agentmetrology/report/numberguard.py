"""The number guard: every number in generated prose must appear in the source JSON.

A report may format numbers but never compute new ones. The guard collects every number of the
source JSON (numbers, and number tokens inside its strings) and the forms a report may print
them in: the exact value, the value at the report's precision (`fmt`), with the report's
significant digits (`sig`, for amounts such as costs), and as a percentage at the report's
percent precision (`pct`). A prose number matching none of these makes the guard
refuse the report. Identifiers (task ids, digests, versions) belong in `code spans`, which the
guard skips; digits glued to letters (`gpt-4o`, `sha256`) are not numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# a minus sign belongs to the number only when it does not join two words ("30-80%" is a range);
# an exponent as Python prints one (a sign and two or more digits: 8e+307, 1e-06) belongs to
# its number, so the guard checks `8e+307` whole, never a bare 307
NUMBER = re.compile(
    r"(?:(?<![^\s(\[{=:;,])-)?(?<![\w.])\d+(?:\.\d+)?(?:e[+-]\d{2,})?%?(?!\w)(?!\.\d)")
# a float this large prints in scientific notation (8e+307, not a 308-digit number)
SCIENTIFIC_FROM = 1e15
CODE_SPAN = re.compile(r"`[^`]*`")


class NumberGuardError(ValueError):
    """Raised when prose contains a number absent from the source JSON; the report is refused."""

    def __init__(self, offending: list[tuple[str, str]]) -> None:
        self.offending = offending
        shown = "; ".join(f"{tok!r} in {ctx!r}" for tok, ctx in offending[:5])
        super().__init__(f"report refused: {len(offending)} number(s) not in the source JSON: "
                         f"{shown}")


def _numbers(value: Any) -> Iterable[int | float | str]:
    """Yield every number of a JSON value, and every number token inside its strings (each
    distinct string's tokens once: what they add to a set is the same)."""
    # A walk with its own stack, not nested generators: an audit's source holds some 50,000
    # values, and every level of `yield from` re-yielded each number below it. Its 26,000
    # strings are some 2,300 distinct ones (keys and labels repeat in every cell): the regex
    # runs on each once (an audit's guard took 40 ms, most of it the regex).
    stack = [value]
    pop, push = stack.pop, stack.extend
    read: set[str] = set()
    while stack:
        v = pop()
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int | float):
            yield v
        elif isinstance(v, str):
            if v not in read:
                read.add(v)
                for m in NUMBER.finditer(v):
                    yield m.group(0)
        elif isinstance(v, dict):
            push(v.keys())
            push(v.values())
        elif isinstance(v, list | tuple):
            push(v)


def p_text(value: float, precision: int = 3) -> str:
    """Return a p-value at `precision` decimals, or, where that would print a nonzero p as 0,
    with 3 significant digits in plain notation (0.00000191): a permutation p is never 0."""
    if 0.0 < value < 0.5 * 10.0**-precision:
        return f"{value:.{2 - math.floor(math.log10(value))}f}"
    return _clean(f"{value:.{precision}f}")


def _clean(token: str) -> str:
    return "0" + token[2:] if token.startswith("-0") and set(token) <= set("-0.%") else token


@dataclass
class NumberGuard:
    """Checks prose against a source JSON at a fixed precision (see module docstring)."""

    source: Any
    precision: int = 3
    percent_precision: int = 1
    significant: int = 4  # for amounts of any scale (costs), printed with `sig`
    _allowed: set[str] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        allowed, seen = self._allowed, set()
        for num in _numbers(self.source):
            if isinstance(num, str):
                allowed.add(num)
                continue
            # Each distinct number's forms once (an audit's source repeats a few thousand
            # values some 40,000 times): by type (1 and 1.0 print apart) and by sign at zero
            # (-0.0 == 0.0, but str() tells them apart).
            key = (num.__class__, num, math.copysign(1.0, num) if num == 0 else 1.0)
            if key not in seen:
                seen.add(key)
                allowed.update(self.forms(num))

    def fmt(self, value: float | int | None, missing: str = "n/a") -> str:
        """Return a number as the report prints it: ints as is, floats at the precision (from
        SCIENTIFIC_FROM on, in scientific notation with the precision's significant digits)."""
        if value is None:
            return missing
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if abs(value) >= SCIENTIFIC_FROM:  # the precision's digits, significant
            return f"{value:.{self.precision}g}"
        return _clean(f"{value:.{self.precision}f}")

    def p(self, value: float | None, missing: str = "n/a") -> str:
        """Return a p-value as `p_text` prints it at the report's precision."""
        return missing if value is None else p_text(value, self.precision)

    def pct(self, value: float | None, missing: str = "n/a") -> str:
        """Return a fraction as a percentage at the report's percent precision."""
        if value is None:
            return missing
        return _clean(f"{100 * value:.{self.percent_precision}f}%")

    def sig(self, value: float | int | None, missing: str = "n/a") -> str:
        """Return a number with the report's significant digits (plain notation only)."""
        if value is None:
            return missing
        text = f"{value:.{self.significant}g}"
        return self.fmt(value) if "e" in text else _clean(text)

    def forms(self, num: float | int) -> set[str]:
        """Return every printed form the guard accepts for one source number."""
        if isinstance(num, float) and not math.isfinite(num):
            return set()
        out = {str(num), self.fmt(num), self.pct(float(num)), self.sig(num)}
        if isinstance(num, float):
            out.add(_clean(f"{num:.{self.precision}f}"))
            out.add(self.p(num))
            if num.is_integer():
                out.add(str(int(num)))
        return out

    def offending(self, text: str) -> list[tuple[str, str]]:
        """Return (token, context) for every number in `text` that the source does not hold."""
        bare = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
        bad = []
        for m in NUMBER.finditer(bare):
            if _clean(m.group(0)) not in self._allowed:
                lo, hi = max(0, m.start() - 30), min(len(bare), m.end() + 30)
                bad.append((m.group(0), text[lo:hi]))
        return bad

    def check(self, *texts: str) -> None:
        """Raise NumberGuardError when any text holds a number absent from the source."""
        bad = [item for t in texts for item in self.offending(t)]
        if bad:
            raise NumberGuardError(bad)
