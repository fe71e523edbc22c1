"""Before a whole evidence check of a large store, `campaign status` and `evidence verify` say on
stderr why this one takes longer; a check from a verified head, a memoised answer and a small
store say nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import store.tamper_fixtures as tf
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.cli.main import app
from agentmetrology.report.terminal import evidence_text
from agentmetrology.store.verify import store_head


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tf.record_store(tmp_path_factory.mktemp("notice"))


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_VERIFY_CACHE", str(tmp_path / "cache"))  # nothing checked yet


@pytest.mark.parametrize("mode", ["full", "ledger"])
def test_a_whole_check_is_told_its_length_and_one_from_a_head_is_not(recorded: Path,
                                                                     mode: str) -> None:
    told: list[int] = []
    assert qualify_store(recorded, mode, incremental=True, notice=told.append)["qualified"]
    assert told == [store_head(recorded)[0]]  # the first check here: the whole store
    assert qualify_store(recorded, mode, incremental=True, notice=told.append)["qualified"]
    assert len(told) == 1  # from the verified head (or, cheap, the memo): nothing to tell


def test_status_and_verify_say_why_on_stderr_only_for_a_large_store(
        recorded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    length = store_head(recorded)[0]
    runner = CliRunner()
    quiet = runner.invoke(app, ["campaign", "status", "--store", str(recorded), "--json"])
    assert quiet.exit_code == 0 and "chain entries" not in quiet.stderr  # below NOTICE_FROM
    monkeypatch.setenv("AGM_VERIFY_CACHE", str(recorded.parent / "other-cache"))
    monkeypatch.setattr(evidence_text, "NOTICE_FROM", length)
    r = runner.invoke(app, ["campaign", "status", "--store", str(recorded), "--json"])
    assert r.exit_code == 0, r.output
    assert f"checking all {length:,} chain entries of the store (no verified head" in r.stderr
    assert "chain entries of the store" not in r.stdout  # the JSON stays JSON
    again = runner.invoke(app, ["campaign", "status", "--store", str(recorded)])
    assert again.exit_code == 0 and "chain entries of the store" not in again.stderr
    v = runner.invoke(app, ["evidence", "verify", str(recorded)])
    assert v.exit_code == 0 and f"checking all {length:,} chain entries" in v.stderr
    assert "and every blob" in v.stderr
