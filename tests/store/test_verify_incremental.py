"""The incremental store check: only what was appended since the verified head is re-checked.

What it catches (an appended row edited, a row added or removed outside the API, a rewritten
chain) and what it leaves to the full check (an old row edited in place), and how `campaign
status` and `evidence verify` say which check they made.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import evidence_check
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.cli.main import app
from agentmetrology.store.verify import store_head
from archive.agm_fixtures import RECORDED
from store.incremental_fixtures import append as _append
from store.incremental_fixtures import first_store, fresh_copy

runner = CliRunner()


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return first_store(tmp_path_factory)


@pytest.fixture
def store(first: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_copy(first, tmp_path, monkeypatch)


def _sql(store: Path, *statements: str) -> None:
    with sqlite3.connect(store / "ledger.sqlite") as c:
        for s in statements:
            c.execute(s)


def test_an_append_is_re_checked_from_the_verified_head(store: Path) -> None:
    first = qualify_store(store, "full", incremental=True)  # nothing verified yet: full
    assert first["qualified"] and "incremental_since" not in first
    length, head = store_head(store)
    _append(store)
    doc = qualify_store(store, "full", incremental=True)
    assert doc["qualified"] and doc["incremental_since"] == f"{length}:{head}"
    assert doc["checked"]["chain_entries"] == store_head(store)[0] - length > 0
    assert doc["checked"]["episodes"] == RECORDED and doc["checked"]["administrations"] == 24
    assert doc["evidence_digest"] == store_head(store)[1]
    full = qualify_store(store, "full")
    assert full["qualified"] and full["checked"]["episodes"] == 2 * RECORDED


def test_an_appended_row_edited_is_caught(store: Path) -> None:
    qualify_store(store, "full", incremental=True)
    _append(store)
    _sql(store, "UPDATE assessments SET score = 0.5 WHERE id = (SELECT MAX(id) FROM assessments)")
    doc = qualify_store(store, "full", incremental=True)
    assert "incremental_since" in doc and doc["problem_kinds"]["row_changed"] == 1


def test_an_old_row_edited_is_left_to_the_full_check(store: Path) -> None:
    qualify_store(store, "full", incremental=True)
    _sql(store, "UPDATE assessments SET score = 1.0 WHERE id = 2")  # verified before: old
    _append(store)
    doc = qualify_store(store, "full", incremental=True)
    assert doc["qualified"] and "incremental_since" in doc  # not re-read: the stated limit
    full = qualify_store(store, "full")
    assert full["problem_kinds"]["row_changed"] == 1 and "incremental_since" not in full


@pytest.mark.parametrize("statement", [
    "INSERT INTO runs (campaign, backend, pid, host, started_at) "
    "VALUES ('first', 'inline', 1, 'h', 'now')",
    "DELETE FROM episodes WHERE administration = 1",
    "DELETE FROM assessments WHERE id = 1",
])
def test_a_row_added_or_removed_outside_the_api_is_counted(store: Path, statement: str) -> None:
    qualify_store(store, "full", incremental=True)
    _append(store)
    _sql(store, statement)
    doc = qualify_store(store, "full", incremental=True)
    assert "incremental_since" in doc and "row_count_mismatch" in doc["problem_kinds"]
    assert qualify_store(store, "full")["result"] != "qualified"


def test_a_rewritten_chain_is_checked_in_full(store: Path) -> None:
    qualify_store(store, "full", incremental=True)
    length, _ = store_head(store)
    _sql(store, f"UPDATE chain SET head = '{'1' * 64}' WHERE seq = {length}")
    doc = qualify_store(store, "full", incremental=True)
    assert "incremental_since" not in doc and "chain_broken" in doc["problem_kinds"]
    assert any("chain no longer has that head there" in n and n.endswith(
        "checked in full, not incrementally") for n in doc["notes"])


def test_an_unqualified_check_leaves_no_head_to_start_from(store: Path) -> None:
    _sql(store, "UPDATE assessments SET score = 1.0 WHERE id = 2")
    assert qualify_store(store, "full", incremental=True)["problem_kinds"]["row_changed"] == 1
    _append(store)
    again = qualify_store(store, "full", incremental=True)  # still full: nothing was verified
    assert "incremental_since" not in again and again["problem_kinds"]["row_changed"] == 1


def test_a_changed_specification_makes_the_next_check_full(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qualify_store(store, "full", incremental=True)
    _append(store)
    monkeypatch.setattr(evidence_check, "reopened_spec_digest", lambda e, t, p: "0" * 64)
    doc = qualify_store(store, "full", incremental=True)
    assert "incremental_since" not in doc and "specification_mismatch" in doc["problem_kinds"]


def test_status_is_incremental_only_when_the_chain_grew(store: Path) -> None:
    def status(*extra: str) -> tuple[dict, str]:  # type: ignore[type-arg]
        r = runner.invoke(app, ["campaign", "status", "--store", str(store), "--json", *extra])
        return json.loads(r.stdout)["evidence"], r.stderr

    first, _ = status()
    assert first["qualified"] and "incremental_since" not in first
    length, head = store_head(store)
    _append(store)
    grown, _ = status()
    assert grown["qualified"] and grown["incremental_since"] == f"{length}:{head}"
    text = runner.invoke(app, ["campaign", "status", "--store", str(store)]).stdout
    # the memo's hit says so
    assert "evidence: ledger check of what was appended since head" in text
    full, _ = status("--full-check")
    assert "incremental_since" not in full and full["checked"]["episodes"] == 2 * RECORDED
    # an edit that does not grow the chain: the check is full and names it
    _sql(store, "UPDATE assessments SET score = 1.0 WHERE id = 2")
    edited, err = status()
    assert "incremental_since" not in edited and edited["problem_kinds"]["row_changed"] == 1
    assert "UNQUALIFIED EVIDENCE" in err


def test_verify_says_which_check_it_made(store: Path) -> None:
    r = runner.invoke(app, ["evidence", "verify", str(store)])
    assert r.exit_code == 0 and "incremental" not in r.stdout
    length, head = store_head(store)
    _append(store)
    r = runner.invoke(app, ["evidence", "verify", str(store), "--incremental"])
    assert r.exit_code == 0
    assert f"full check of what was appended since head {length}:{head[:12]}" in r.stdout
    r = runner.invoke(app, ["evidence", "verify", str(store), "--incremental", "--hash-only"])
    assert r.exit_code == 2 and "do not combine" in r.stderr


def test_a_head_log_rewritten_before_the_verified_head_is_read_whole(store: Path) -> None:
    qualify_store(store, "full", incremental=True)
    _append(store)
    log = store / "ledger.heads"
    lines = log.read_bytes().split(b"\n")
    n, _ = lines[1].split(b" ")
    lines[1] = n + b" " + b"2" * 64  # a witnessed head before the verified one, rewritten
    log.write_bytes(b"\n".join(lines))
    doc = qualify_store(store, "full", incremental=True)
    assert "incremental_since" in doc and doc["problem_kinds"] == {"head_log_mismatch": 1}
    assert f"length {int(n)}" in doc["problems"][0]["where"]


@pytest.mark.parametrize("statement", [None, "DELETE FROM episodes WHERE administration = 1"])
def test_the_chain_index_changes_no_answer(store: Path, tmp_path: Path,
                                           statement: str | None) -> None:
    """`chain_by_ref` (a writer creates it) makes whether a touched row was live at the
    verified head a lookup; a store read without it answers the same by reading the chain."""
    qualify_store(store, "full", incremental=True)
    _append(store)
    if statement is not None:
        _sql(store, statement)
    with sqlite3.connect(store / "ledger.sqlite") as c:
        assert c.execute("SELECT 1 FROM sqlite_master WHERE name = 'chain_by_ref'").fetchone()
    cache = tmp_path / "cache"
    kept = shutil.copytree(cache, tmp_path / "kept")  # the verified head, before either check
    with_index = qualify_store(store, "full", incremental=True)
    _sql(store, "DROP INDEX chain_by_ref")
    shutil.rmtree(cache)
    shutil.copytree(kept, cache)
    without = qualify_store(store, "full", incremental=True)
    assert "incremental_since" in with_index and with_index == without
    assert with_index["qualified"] is (statement is None)
    if statement is not None:
        assert "row_count_mismatch" in with_index["problem_kinds"]


ROLLED = ("this machine verified the store at head {}:{} and its chain no longer has that head "
          "there: the ledger was rewritten or rolled back since, or another store was put at "
          "this path; the store alone cannot tell which (a head kept outside it can: "
          "--expect-head)")


def _rewrite_chain(store: Path) -> None:
    """Rewrite the whole chain and the head log consistently, as a forger without an outside
    pin does after an edit (here: every row sealed again as it is)."""
    from agentmetrology.store.chain import GENESIS, head, seal_all

    c = sqlite3.connect(store / "ledger.sqlite", isolation_level=None)
    try:
        c.execute("BEGIN")
        c.execute("DELETE FROM chain")
        seal_all(c)
        c.execute("COMMIT")
        now = head(c)
    finally:
        c.close()
    (store / "ledger.heads").write_text(f"0 {GENESIS}\n{now[0]} {now[1]}\n")


@pytest.mark.parametrize("incremental", [False, True])
def test_a_consistent_rewrite_after_a_verified_head_is_said(store: Path,
                                                            incremental: bool) -> None:
    # A forger who rewrites the whole chain and head log consistently (a score changed in its
    # column and its sealed text) leaves a store that qualifies: by design, without a head
    # kept outside it. The head this machine verified last is such a head: before, a full
    # check did not look at it and said nothing, an incremental one only that it checked in
    # full; both now say what a moved head means.
    assert qualify_store(store, "full")["result"] == "qualified"
    length, old = store_head(store)
    _rewrite_chain(store)
    doc = qualify_store(store, "full", incremental=incremental)
    assert doc["result"] == "qualified"
    assert [n for n in doc["notes"] if n.startswith(ROLLED.format(length, old[:12]))]
    assert qualify_store(store, "full")["notes"] == []  # said once: the new head is kept


def test_campaign_status_says_a_moved_verified_head(store: Path) -> None:
    # The status shows the numbers a rewrite left; its check noted the moved head only in
    # --json (evidence.notes), the text said nothing.
    res = CliRunner().invoke(app, ["campaign", "status", "--store", str(store)])
    assert res.exit_code == 0 and "no longer has that head" not in res.stderr
    length, old = store_head(store)
    _rewrite_chain(store)
    res = CliRunner().invoke(app, ["campaign", "status", "--store", str(store)])
    assert res.exit_code == 0
    assert ("evidence: " + ROLLED.format(length, old[:12])) in " ".join(res.stderr.split())
