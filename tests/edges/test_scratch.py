"""edges.scratch: third-party temporary files removed with a private folder."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from agentmetrology.edges.scratch import scratch_tempdir


def test_files_made_inside_go_with_the_folder_and_the_setting_is_restored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(RuntimeError), scratch_tempdir("agm-test-") as folder:
        assert tempfile.gettempdir() == folder and Path(folder).parent == tmp_path
        with tempfile.NamedTemporaryFile(delete=False) as kept:  # what a leaky library does
            kept.write(b"x")
        raise RuntimeError("however the block ends")
    assert tempfile.tempdir == str(tmp_path)
    assert not Path(kept.name).exists() and list(tmp_path.iterdir()) == []


def test_a_tau2_kit_leaves_no_database_copy(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # inspect-evals inflates the airline database into a temporary file it never removes
    # (7 MB each); a re-grade opens a kit per domain, an Inspect tau2 run one per sample.
    from agentmetrology.archive.tau2_world import open_kit  # `make test` installs the extra

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kit = open_kit("airline")
    assert kit.bases["assistant"][1].startswith("{")
    assert list(tmp_path.iterdir()) == []
