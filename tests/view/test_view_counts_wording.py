"""The campaign page's notes agree in number with their counts ('1 provider request', not
'1 provider requests'), as `agm campaign status` does."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentmetrology.view.html import Html
from agentmetrology.view.store_pages import campaign_page


def _page(superseded: int, requests: int) -> str:
    total: dict[str, Any] = {"planned": 2, "done": 2, "remaining": 0, "failed_agent": 0,
                             "failed_infra": 0, "errored": 0, "cost": 0.0, "cost_unknown": 0,
                             "superseded": superseded, "unrecorded_requests": requests}
    s = SimpleNamespace(campaign="c", complete=True, grid=[], not_launched_reasons={},
                        plan_digest="0" * 64, registration_id="r", total=total)
    return campaign_page(Html(), s)  # type: ignore[arg-type]


@pytest.mark.parametrize(("n", "failures", "requests"), [
    (1, "1 measurement failure was re-opened", "1 provider request of interrupted"),
    (2, "2 measurement failures were re-opened", "2 provider requests of interrupted")])
def test_a_count_and_its_noun_agree(n: int, failures: str, requests: str) -> None:
    page = _page(n, n)
    assert failures in page and requests in page
