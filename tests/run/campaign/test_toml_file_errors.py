"""A plan or campaign path that cannot be read says what is wrong and what to do, in one line.

Before, a file that is not UTF-8 said only that byte 0xff "cannot be decoded" (no fix), and a
directory showed `[Errno 21] Is a directory: 'PATH'`, repeating the path. Every command reading
a plan or campaign shares the reader, so each is checked: exit 2, nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app

COMMANDS = (("campaign", "validate"), ("campaign", "run"), ("experiment", "run"),
            ("experiment", "report"))


def _errors(tmp_path: Path, command: tuple[str, ...], file: Path) -> list[str]:
    store, out = tmp_path / "store", tmp_path / "out"
    args = [*command, str(file)]
    if command != ("campaign", "validate"):
        args += ["--store", str(store)]
    if command == ("experiment", "report"):
        args += ["--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert not store.exists() and not out.exists()  # nothing written
    return res.stderr.splitlines()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_not_in_utf8_says_to_save_it_as_utf8(tmp_path: Path,
                                                     command: tuple[str, ...]) -> None:
    plan = tmp_path / "p.toml"
    plan.write_bytes(b'[experiment]\nname = "caf\xe9"\n')
    assert _errors(tmp_path, command, plan) == [
        f"{plan}:2:12: byte 0xe9 is not UTF-8 text: save the file as UTF-8",
        f"error: {plan}: 1 problem; nothing was run"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_directory_says_to_give_the_toml_file(tmp_path: Path,
                                                command: tuple[str, ...]) -> None:
    folder = tmp_path / "plans"
    folder.mkdir()
    assert _errors(tmp_path, command, folder) == [
        f"{folder}: is a directory: give the path of the .toml file",
        f"error: {folder}: 1 problem; nothing was run"]


def test_a_missing_file_says_to_check_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert _errors(tmp_path, ("campaign", "validate"), missing)[0] == \
        f"{missing}: no such file: check the path"
