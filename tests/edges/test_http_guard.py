"""The shared request guard's parsing: strict Host, exact Origins, short quotes of input."""

from __future__ import annotations

import pytest

from agentmetrology.edges.http_guard import origins, parse_host, prefix


@pytest.mark.parametrize(("header", "parsed"), [
    ("127.0.0.1:8765", ("127.0.0.1", 8765)), ("LOCALHOST", ("localhost", None)),
    ("[::1]:80", ("::1", 80)), ("example.com", ("example.com", None))])
def test_well_formed_hosts(header: str, parsed: tuple[str, int | None]) -> None:
    assert parse_host(header) == parsed


@pytest.mark.parametrize("header", [
    "localhost:80@evil.example", "user@localhost", "localhost:", "localhost:8a", "::1",
    "localhost:65536", "localhost:0", "local host", "localhost/x", "", ":80", "[::1"])
def test_malformed_hosts(header: str) -> None:
    assert parse_host(header) is None


def test_origins_are_exact_scheme_host_port() -> None:
    assert origins(("127.0.0.1", "::1"), 8000) == {"http://127.0.0.1:8000", "http://[::1]:8000"}
    assert "http://localhost" in origins(("localhost",), 80)  # the default port may be omitted


def test_prefix_quotes_at_most_the_limit() -> None:
    assert prefix("abc") == "'abc'"
    cut = prefix("x" * 10_000, 8)
    assert cut.startswith("'xxxxxxxx'") and "10,000" in cut and "x" * 9 not in cut
