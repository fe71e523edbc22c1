"""`agm campaign status`'s line: counts agree with their nouns ("1 request", "2 requests")."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from agentmetrology.report.terminal.campaign_text import print_status
from agentmetrology.store.status import CampaignStatus, Counts


def _line(superseded: int, requests: int) -> str:
    t = Counts(planned=2, done=2, submitted=2, cost=0.5, superseded=superseded,
               superseded_cost=0.1, unrecorded_requests=requests, unrecorded_cost=0.25)
    out = io.StringIO()
    print_status(Console(file=out, width=400, color_system=None),
                 CampaignStatus("c", "r", "d", t, {"m": t}))
    return out.getvalue().splitlines()[0]


@pytest.mark.parametrize(("n", "requests", "failures"), [
    (1, "1 request of", "superseded 1 measurement failure (cost"),
    (2, "2 requests of", "superseded 2 measurement failures (cost")])
def test_counts_agree_with_their_nouns(n: int, requests: str, failures: str) -> None:
    # Before, one request read "1 requests of interrupted or failed attempts".
    line = _line(n, n)
    assert f", {requests} interrupted or failed attempts (cost 0.250000, included)" in line
    assert failures in line
