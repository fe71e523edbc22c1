"""`agm serve openenv`'s HTTP edge against hostile clients: foreign Host or Origin (DNS
rebinding), bodies over the limit, non-finite numbers and long values that must not come back.

Every request goes to a real server on 127.0.0.1 (port 0), started by `running` as
`agm serve openenv` starts it, so the guard under test is the one the command serves behind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from agentmetrology.adapters.openenv_env import running
from agentmetrology.edges import http_guard

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")
LIMIT = 4096  # the body limit while these tests run (the real one is 8 MiB)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(http_guard, "MAX_BODY_BYTES", LIMIT)
        with running("comtrade", task="T3_duplicates", level="L2") as base:
            yield base


def _post(url: str, path: str, body: bytes, **headers: str) -> httpx.Response:
    headers.setdefault("content-type", "application/json")
    return httpx.post(url + path, content=body, headers=headers, timeout=30)


def test_own_host_and_origin_are_served(url: str) -> None:
    port = url.rsplit(":", 1)[1]
    r = _post(url, "/reset", b"{}", origin=f"http://127.0.0.1:{port}")
    assert r.status_code == 200 and r.json()["observation"]["task"] == "T3_duplicates"
    assert _post(url, "/reset", b"{}", host=f"localhost:{port}").status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000",
                                  "localhost:80@evil.example", "127.0.0.1.evil.example"])
def test_foreign_or_malformed_host_is_421(url: str, host: str) -> None:
    r = _post(url, "/reset", b"{}", host=host)
    assert r.status_code == 421 and "not served here" in r.text


@pytest.mark.parametrize("origin", ["http://evil.example", "http://localhost:9999", "null"])
def test_foreign_origin_is_403(url: str, origin: str) -> None:
    assert _post(url, "/reset", b"{}", origin=origin).status_code == 403


def test_websocket_from_a_foreign_origin_is_refused(url: str) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    ws_url = url.replace("http://", "ws://") + "/ws"
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url, origin="http://evil.example", open_timeout=30)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403


def test_body_over_the_limit_is_413_and_not_echoed(url: str) -> None:
    body = b'{"task": "' + b"A" * (LIMIT * 4) + b'"}'
    r = _post(url, "/reset", body)
    assert r.status_code == 413 and "A" * 32 not in r.text
    assert f"{LIMIT:,} bytes" in r.text


def test_non_finite_seed_is_422_without_traceback(url: str) -> None:
    for raw in (b'{"seed": NaN}', b'{"seed": Infinity}', b'{"seed": 1e400}'):
        r = _post(url, "/reset", raw)
        assert r.status_code == 422, (raw, r.status_code, r.text)
        assert r.json()["detail"][0]["loc"] == ["body", "seed"]
        assert "Traceback" not in r.text and "input" not in r.json()["detail"][0]


def test_errors_quote_at_most_a_prefix_of_the_input(url: str) -> None:
    long = "B" * 3000
    for body in (b'{"seed": "' + long.encode() + b'"}', b'{"task": "' + long.encode() + b'"}'):
        r = _post(url, "/reset", body)
        assert r.status_code in (400, 422) and len(r.text) < 1200, r.status_code
        assert "B" * (http_guard.PREFIX_CHARS + 1) not in r.text


def test_websocket_errors_quote_at_most_a_prefix(url: str) -> None:
    from websockets.sync.client import connect

    long = "A" * 3000
    with connect(url.replace("http://", "ws://") + "/ws", open_timeout=30) as ws:
        for msg in ({"type": "reset", "data": {"seed": long}},
                    {"type": "reset", "data": {"task": long}},
                    {"type": "reset", "data": {"seed": -1}}, {"type": long}):
            ws.send(json.dumps(msg))
            frame = json.loads(ws.recv(timeout=30))
            assert frame["type"] == "error", frame
            text = json.dumps(frame)
            assert "A" * (http_guard.PREFIX_CHARS + 1) not in text and len(text) < 600, text
