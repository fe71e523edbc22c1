"""A campaign recorded into an evidence store by `agm campaign run`, in-process, for tests."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app


def record_campaign(root: Path, toml: str, store: str = "store") -> Path:
    """Write `toml` as root/c.toml, run `agm campaign run` on it into root/STORE; return that."""
    (root / "c.toml").write_text(toml)
    res = CliRunner().invoke(app, ["campaign", "run", str(root / "c.toml"), "--store",
                                   str(root / store), "--quiet"])
    assert res.exit_code == 0, res.output
    return root / store
