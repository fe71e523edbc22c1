"""Parsing of CLI argument values that typer cannot check by itself (seed ranges, lists)."""

from __future__ import annotations

MAX_SEEDS = 100_000


def parse_seeds(text: str) -> list[int]:
    """Return the seeds of '0-9', '3', '1,4,7' or '0-4,10' in order; raise ValueError if bad."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"bad seed list {text!r}: empty item")
        lo_s, dash, hi_s = part.partition("-")
        try:
            lo = int(lo_s)
            hi = int(hi_s) if dash else lo
        except ValueError:
            raise ValueError(f"bad seed list {text!r}: use forms like 0-9, 3 or 1,4,7") from None
        if lo < 0 or hi < lo:
            raise ValueError(f"bad seed range {part!r}: seeds are non-negative and lo <= hi")
        if hi - lo + 1 + len(seeds) > MAX_SEEDS:
            raise ValueError(f"too many seeds in {text!r} (at most {MAX_SEEDS})")
        seeds.extend(range(lo, hi + 1))
    return seeds


def split_names(text: str) -> list[str]:
    """Return the non-empty comma-separated names of `text`."""
    return [p.strip() for p in text.split(",") if p.strip()]
