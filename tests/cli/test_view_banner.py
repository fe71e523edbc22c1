"""`agm view`'s first line names what it shows: the file itself when one file was given."""

from __future__ import annotations

import json
from pathlib import Path

from agentmetrology.view.server import banner
from agentmetrology.view.source import detect_source

BASE = "http://127.0.0.1:8765/"


def test_a_tau2_file_is_announced_as_the_file_not_its_folder(tmp_path: Path) -> None:
    """It read `(tau2 /work/shared/data/tau2; ...)`: a folder of three results files, one shown."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"simulations": [], "tasks": [], "info": {}}), encoding="utf-8")
    source = detect_source(path)
    assert source.kind == "tau2"
    assert banner(source, BASE, "read-only") == (
        f"agm view: {BASE} (tau2 {path.resolve()}; read-only; Ctrl-C to stop)")


def test_a_directory_is_announced_as_the_directory(tmp_path: Path) -> None:
    (tmp_path / "card.json").write_text("{}", encoding="utf-8")
    assert banner(detect_source(tmp_path), BASE, "read-only") == (
        f"agm view: {BASE} (audit {tmp_path.resolve()}; read-only; Ctrl-C to stop)")
