"""The documented bounds on what `agentmetrology.results` reads and how long it resamples.

Every bound is checked before the work it guards: a file's size before it is opened for
reading, a line's length before it is parsed, the resampling options before any resampling.
"""

from __future__ import annotations

from agentmetrology.results.errors import TableError

# A results table holds one row per run, a few hundred bytes to a few KB each: 256 MiB is a
# million runs with room to spare. Rows are held in memory as Python objects, several times
# their size on disk, so a larger file would need gigabytes; aggregate or split it first.
MAX_FILE_BYTES = 256 * 1024 * 1024
# One row of JSON Lines, CSV or TSV. 1 MiB of characters holds rows with long text fields;
# a longer line (e.g. a multi-gigabyte file with no line breaks) is not a results row, and is
# refused after reading at most this much of it.
MAX_LINE_CHARS = 1024 * 1024
MAX_DEPTH = 32  # nesting levels of a JSON row; results rows need a handful

# Beyond these the run would take minutes and gigabytes for no gain in precision (2000
# resamples suffice for a 95% interval, 10000 for 99%).
MAX_RESAMPLES = 1_000_000
MAX_DRAWS = 1_000_000


def check_limits(resamples: int, draws: int | None = None) -> None:
    """Raise TableError when --resamples or --draws exceed their documented bounds."""
    if resamples > MAX_RESAMPLES:
        raise TableError(
            f"--resamples {resamples} is above the limit of {MAX_RESAMPLES:,}; "
            "2000 (the default) is enough for a 95% interval, 10000 for 99%"
        )
    if draws is not None and draws > MAX_DRAWS:
        raise TableError(
            f"--draws {draws} is above the limit of {MAX_DRAWS:,}; "
            "100000 (the default) gives p-values to about 0.001"
        )
