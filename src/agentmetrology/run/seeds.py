"""The one parser of episode seed lists (`--seeds` on every command, `seeds` in campaign files)."""

from __future__ import annotations

from agentmetrology.records.errors import UserError

MAX_SEEDS = 100_000
MAX_SEED = 2**63 - 1  # the ledger stores seeds as SQLite integers (signed 64-bit)


def parse_seeds(text: str) -> list[int]:
    """Return the seeds of '0-9', '3', '1,4,7' or '0-4,10' in order; raise UserError if bad.

    A seed listed twice is refused: running it twice would silently weight it double.
    """
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise UserError(f"bad seed list {text!r}: empty item")
        lo_s, dash, hi_s = part.partition("-")
        try:
            lo = int(lo_s)
            hi = int(hi_s) if dash else lo
        except ValueError:
            raise UserError(f"bad seed list {text!r}: use forms like \"0-9\", \"3\", "
                            "\"1,4,7\" or \"0-4,10\"") from None
        if lo < 0:
            raise UserError(f"bad seed range {part!r}: seeds are non-negative")
        if hi < lo:  # say the fix: the user meant the same seeds, low first
            raise UserError(f"bad seed range {part!r}: write the low seed first ({hi}-{lo})")
        if hi > MAX_SEED:
            raise UserError(f"seed {hi} is too large (at most 2**63-1)")
        if len(seeds) + hi - lo + 1 > MAX_SEEDS:
            raise UserError(f"too many seeds in {text!r} (at most {MAX_SEEDS:,})")
        seeds.extend(range(lo, hi + 1))
    check_distinct(seeds, text)
    return seeds


def check_distinct(seeds: list[int], text: str) -> None:
    """Raise UserError naming the seeds that `seeds` lists more than once."""
    if len(set(seeds)) != len(seeds):
        seen: set[int] = set()
        dupes = sorted({s for s in seeds if s in seen or seen.add(s)})  # type: ignore[func-returns-value]
        raise UserError(f"seed list {text!r} repeats seed(s) {', '.join(map(str, dupes))}; "
                        "list each seed once")
