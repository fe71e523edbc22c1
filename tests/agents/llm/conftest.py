"""Run the client-behaviour tests on both HTTP paths: the lean client and the openai SDK."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentmetrology.agents.llm.client import HTTP_CLIENT_ENV, HTTP_CLIENTS


@pytest.fixture(params=HTTP_CLIENTS)
def both_http_clients(request: pytest.FixtureRequest,
                      monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Select the lean or the SDK path for every policy the test makes."""
    monkeypatch.setenv(HTTP_CLIENT_ENV, request.param)
    yield request.param
