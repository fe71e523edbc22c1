"""The archive tests' zip writer, for the hand-built `.eval` logs of these tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from archive.conftest import write_zip


@pytest.fixture
def zip_writer() -> Callable[..., None]:
    """Return `write_zip`, a minimal zip writer that can use any compression method id."""
    return write_zip
