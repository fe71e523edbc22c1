"""`make test` runs the serial modules by path: the Makefile's list is conftest's list."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SERIAL_MODULES

ROOT = Path(__file__).resolve().parent.parent


def test_the_makefile_runs_exactly_the_serial_modules() -> None:
    text = (ROOT / "Makefile").read_text()
    (listed,) = re.findall(r"^SERIAL_TESTS := (.*)$", text, flags=re.M)
    assert tuple(listed.split()) == SERIAL_MODULES
    assert "$(BIN)/pytest -m serial $(SERIAL_TESTS)" in text
    assert all((ROOT / m).is_file() for m in SERIAL_MODULES)
