"""Inspect audit tests are skipped, visibly, without the `inspect` extra."""

import pytest

pytest.importorskip("inspect_ai", reason="needs the `inspect` extra (inspect-ai)")
