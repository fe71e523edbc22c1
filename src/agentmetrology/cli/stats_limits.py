"""The documented bounds of `agm stats` resampling options."""

from __future__ import annotations

from agentmetrology.cli.results_table import TableError

# Documented bounds: beyond them the run would take minutes and gigabytes for no gain in
# precision (2000 resamples suffice for a 95% interval, 10000 for 99%).
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
