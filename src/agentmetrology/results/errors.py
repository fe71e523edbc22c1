"""The user errors of reading and analysing a results table, and the one place that turns the
statistics' own refusals (plain ValueError, as `stats` imports nothing) into user errors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from agentmetrology.records.errors import UserError


class TableError(UserError):
    """A results table that cannot be read or used; the message says what to do."""


class StatisticsRefused(UserError):
    """A parameter or value the statistics refused; the message names it (e.g. `tau`)."""


@contextmanager
def statistics_refusals() -> Iterator[None]:
    """Run an analysis so that every refusal of bad input ends as a UserError.

    `agentmetrology.stats` validates its arguments with ValueError and reports an overflowing
    statistic the same way; both are the user's input, so they become StatisticsRefused with
    the message unchanged. numpy's overflow warnings are silenced because the statistics
    detect and report overflow themselves.
    """
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            yield
    except UserError:
        raise
    except (ValueError, OverflowError) as exc:
        raise StatisticsRefused(str(exc)) from None
