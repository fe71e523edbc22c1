"""The export's ledger reads give what the plain reads gave: a binding hashed as its stored bytes
(and, in a ledger whose text is not UTF-8, as the text the ledger gives), the scorers found by
index seeks, the default environment of a binding naming none.

The store is test_export_stream's realistic one (two campaigns, measurement failures, ungraded
episodes, unrecorded administrations).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT
from agentmetrology.run import export_values
from agentmetrology.run.export import export_rows, stream_rows
from agentmetrology.run.export_write import export_store, render
from agentmetrology.store import EvidenceStore
from agentmetrology.store.export_query import _SCORERS_BY_JOIN, _in, scorer_names
from run.campaign import test_export_stream

store = test_export_stream.store  # the same realistic store (a fixture)


def _utf16_copy(root: Path, dest: Path) -> None:
    """Copy the store with its ledger rewritten as a UTF-16 database (same rows, same text)."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns("ledger.sqlite*"))
    src = sqlite3.connect(root / "ledger.sqlite")
    out = sqlite3.connect(dest / "ledger.sqlite")
    out.execute("PRAGMA encoding = 'UTF-16le'")
    objects = src.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                          "ORDER BY type = 'index'").fetchall()
    for _, _, sql in objects:
        out.execute(sql)
    for kind, name, _ in objects:  # (an attached database must share the encoding)
        rows = src.execute(f'SELECT * FROM "{name}"').fetchall() if kind == "table" else []
        if rows:
            marks = ", ".join("?" * len(rows[0]))
            out.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
    out.commit()
    assert out.execute("PRAGMA encoding").fetchone()[0] == "UTF-16le"
    out.close()
    src.close()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_utf16_ledger_exports_the_same_bytes(store: Path, tmp_path: Path, fmt: str) -> None:
    # its bindings' stored bytes are UTF-16: each is checked again as the ledger's text
    copy = tmp_path / "utf16"
    _utf16_copy(store, copy)
    export_store(copy, None, fmt, tmp_path / f"a.{fmt}", force=False)
    export_store(store, None, fmt, tmp_path / f"b.{fmt}", force=False)
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()


def _join_scorers(st: EvidenceStore, campaigns: list[str]) -> list[str]:
    where, params = _in(campaigns)
    return sorted(r[0] for r in st.ledger.conn.execute(
        _SCORERS_BY_JOIN.format(where=where), params))


def test_scorers_by_seeks_are_those_of_recorded_episodes(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "s"
    shutil.copytree(store, copy)
    conn = sqlite3.connect(copy / "ledger.sqlite")
    # an assessment of an administration with no episode: its scorer is no column
    [(adm,)] = conn.execute("SELECT id FROM administrations a WHERE NOT EXISTS (SELECT 1 FROM "
                            "episodes e WHERE e.administration = a.id) LIMIT 1").fetchall()
    conn.execute("INSERT INTO assessments (administration, scorer, scorer_version, status, "
                 "score, evidence_digest, assessment, assessment_digest) "
                 "VALUES (?, 'zz_orphan', '1', 'PASS', 1.0, 'x', '{}', 'y')", (adm,))
    conn.commit()
    conn.close()
    with EvidenceStore.open_readonly(copy, scrub_env=False) as st:
        names = st.campaigns()
        assert len(names) == 2
        for campaigns in (names, names[:1], names[1:], []):
            assert scorer_names(st, campaigns) == _join_scorers(st, campaigns)
        assert "zz_orphan" not in scorer_names(st, names) and scorer_names(st, names)


def test_a_ledger_without_the_scorer_index_gives_the_same_scorers(store: Path,
                                                                  tmp_path: Path) -> None:
    copy = tmp_path / "s"
    shutil.copytree(store, copy)
    conn = sqlite3.connect(copy / "ledger.sqlite")
    conn.execute("DROP INDEX assessments_scorers")
    conn.commit()
    conn.close()
    with EvidenceStore.open_readonly(copy, scrub_env=False) as st, \
            EvidenceStore.open_readonly(store, scrub_env=False) as whole:
        assert scorer_names(st, st.campaigns()) == scorer_names(whole, whole.campaigns())


def test_a_binding_naming_no_environment_has_the_default(store: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    decode = export_values._decode_bound
    monkeypatch.setattr(export_values, "_decode_bound",
                        lambda text: export_values._Bound(None, decode(text).profile))
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        stream = stream_rows(st, None)
        rows = list(stream.rows)
        whole = export_rows(st, None)
    at = stream.columns.index("environment")
    assert {r["environment"] for r in rows} == {DEFAULT_ENVIRONMENT}
    assert [r["profile"] for r in rows] == [r["profile"] for r in whole.rows]
    assert [list(r.values())[:at] for r in rows] == [list(r.values())[:at] for r in whole.rows]


def test_the_rows_are_counted(store: Path, tmp_path: Path) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        whole = export_rows(st, ["second"])
    out = tmp_path / "e.jsonl"
    assert export_store(store, ["second"], "jsonl", out, force=False) == (
        len(whole.rows), whole.unrecorded)
    assert out.read_bytes() == render(whole, "jsonl")
