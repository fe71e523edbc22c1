"""Fixtures shared by the campaign tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound, never listening."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    yield s.getsockname()[1]
    s.close()
