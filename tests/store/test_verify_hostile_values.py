"""Hostile values in a ledger: the check names each as a problem, never raises (store.verify).

A raw SQLite BLOB in a digested column, sealed texts nested deeper than Python can walk, a
resealed binding holding an escaped lone surrogate, a resealed assessment whose score is a
boolean, and a resealed chain entry naming a table the ledger has not.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

import store.verify_fixtures as vf
from agentmetrology.cli.main import app
from agentmetrology.store.blobs import contents
from agentmetrology.store.chain import TABLES, columns, head, next_head
from agentmetrology.store.verify import verify_store
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    built_store,  # noqa: F401
    store_copy,  # noqa: F401
)

MODES = ("full", "ledger", "hash-only")


def _kinds(root: Path, mode: str) -> list[tuple[str, str, str]]:
    q = verify_store(root, mode=mode)
    assert not q.qualified
    return [(p.kind, p.where, p.detail) for p in q.problems]


def _digested_cells(built: Path) -> list[tuple[str, str, object, str]]:
    """Return (table, identity column, ref, column) of one row's every non-null digested column
    of each table of the fixture store that has rows."""
    out = []
    with sqlite3.connect(built / "ledger.sqlite") as c:
        for table, (ident, _) in TABLES.items():
            cols = columns(c, table)
            row = c.execute(f"SELECT {ident}, {', '.join(cols)} FROM {table} LIMIT 1").fetchone()
            if row is not None:
                out += [(table, ident, row[0], col) for col, v in zip(cols, row[1:], strict=True)
                        if col != ident and v is not None]
    return out


def test_a_raw_blob_in_any_digested_column_is_a_changed_row(built: Path, tmp_path: Path) -> None:
    cells = _digested_cells(built)
    assert len(cells) > 60
    for i, (table, ident, ref, col) in enumerate(cells):
        root = vf.copy(built, tmp_path / str(i))
        vf.execute(root, "PRAGMA ignore_check_constraints=ON",
                   f"UPDATE {table} SET {col}=CAST(CAST({col} AS TEXT) AS BLOB) "
                   f"WHERE {ident}=?".replace("?", repr(ref) if isinstance(ref, str) else
                                               str(ref)))
        for mode in MODES:
            first = _kinds(root, mode)[0]
            assert first == ("row_changed", f"{table} {ident}={ref}", f"{col} (bytes) holds a "
                             "value the ledger never writes (a raw BLOB): the row has no "
                             "content digest, so it is not the row sealed"), (table, col, mode)


def test_a_raw_blob_binding_and_digest(root: Path) -> None:
    vf.execute(root, "UPDATE administrations SET binding=CAST(binding AS BLOB) WHERE id=1",
               "UPDATE episodes SET episode_digest=CAST(episode_digest AS BLOB) "
               "WHERE administration=1")
    kinds = [k for k, _, _ in _kinds(root, "full")]
    assert kinds[:2] == ["row_changed", "row_changed"]
    assert {"binding_text_changed", "binding_unreadable", "blob_missing"} <= set(kinds)


def _assessment(root: Path, aid: int, text: str) -> None:
    """Replace an assessment's text, digest recomputed and resealed (a careful forger)."""
    vf.reseal(root, f"UPDATE assessments SET assessment='{text}', assessment_digest="
              f"'{hashlib.sha256(text.encode()).hexdigest()}' WHERE id={aid}",
              rows=(("assessments", aid),))


def test_texts_nested_deeper_than_python_reads(root: Path) -> None:
    deep = 100_000
    vf.set_binding(root, 1, '{"a":' * deep + "1" + "}" * deep)
    _assessment(root, 1, "[" * deep + "]" * deep)
    for mode in ("full", "ledger"):
        found = _kinds(root, mode)
        assert ("binding_unreadable", "administration 1",
                "the sealed binding is nested too deep to read") in found
        assert ("assessment_unreadable", "assessments id=1 (administration 1)",
                "nested too deep to read") in found
    assert verify_store(root, mode="hash-only").qualified  # the texts hash to their digests


def _readable_depth() -> int:
    """Return about the deepest nesting msgspec decodes from this stack (its limit moves with
    the interpreter and the stack: the sweep below goes round it)."""
    lo, hi = 1, 100_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            msgspec.json.decode("[" * mid + "]" * mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("where", ["details", "key", "seed", "score"])
def test_nesting_round_the_interpreters_limit_never_raises(built: Path, tmp_path: Path,
                                                           where: str) -> None:
    # Each depth reaches the limit at another step (decoding, comparing, showing, hashing).
    limit = _readable_depth()
    for depth in range(max(1, limit - 120), limit + 8, 4):
        root = vf.copy(built, tmp_path / str(depth))
        value = '{"a":' * depth + "1" + "}" * depth
        if where == "score":
            text = vf.query(root, "SELECT assessment FROM assessments WHERE id=1")[0][0]
            _assessment(root, 1, str(text).replace('"score":1.0', f'"score":{value}'))
        else:
            bound = json.loads(str(vf.query(root, "SELECT binding FROM administrations "
                                                  "WHERE id=1")[0][0]))
            bound["max_steps" if where == "details" else where] = "@"
            text = json.dumps(bound, sort_keys=True, separators=(",", ":"))
            vf.set_binding(root, 1, text.replace('"@"', value))
        for mode in ("full", "ledger"):
            assert _kinds(root, mode), (depth, mode)


@pytest.mark.parametrize("tag", ["", "\\u0041"])
def test_a_resealed_binding_holding_a_lone_surrogate(root: Path, tag: str) -> None:
    # "\u0041" makes the plan take the canonical walk: it meets the surrogate too
    bound = json.loads(str(vf.query(root, "SELECT binding FROM administrations "
                                          "WHERE id=1")[0][0]))
    bound["max_steps"] = "\ud800"
    text = json.dumps(bound, sort_keys=True, separators=(",", ":"))
    assert "\\ud800" in text
    vf.set_binding(root, 1, text.replace('"comtrade"', f'"comtrade{tag}"'))
    for mode in ("full", "ledger"):
        assert ("plan_mismatch", "campaign c1",
                "the sealed bindings give no plan digest (a sealed binding holds a lone "
                "surrogate, which no UTF-8 text holds), the campaign was registered with "
                f"{vf.query(root, 'SELECT plan_digest FROM campaigns')[0][0]!s:.12}"
                ) in _kinds(root, mode)
    assert verify_store(root, mode="hash-only").qualified  # the baseline sees no edit


def test_a_resealed_boolean_score(root: Path) -> None:
    text = str(vf.query(root, "SELECT assessment FROM assessments WHERE id=1")[0][0])
    assert '"score":1.0' in text and vf.query(root, "SELECT score FROM assessments "
                                                    "WHERE id=1") == [(1.0,)]
    _assessment(root, 1, text.replace('"score":1.0', '"score":true'))
    for mode in ("full", "ledger"):
        assert _kinds(root, mode) == [(
            "row_disagrees_with_evidence", "assessments id=1 (administration 1)",
            "score is 1.0 in the ledger but True (a boolean, not a number) in the sealed "
            "assessment")]


def test_a_resealed_chain_entry_of_a_table_the_ledger_has_not(root: Path) -> None:
    with sqlite3.connect(root / "ledger.sqlite") as c:
        _, h = head(c)
        c.execute("INSERT INTO chain (tbl, ref, row_digest, head) VALUES (?, ?, ?, ?)",
                  ("nosuch", "1", "a" * 64, next_head(h, "nosuch", "1", "a" * 64)))
    c.close()
    for mode in MODES:
        assert _kinds(root, mode) == [("schema_changed", "chain entries of table 'nosuch'",
                                       "the chain seals rows of a table the ledger's code "
                                       "never creates")]


def test_the_cli_names_a_hostile_store_without_a_traceback(root: Path) -> None:
    vf.execute(root, "UPDATE runs SET backend=CAST(backend AS BLOB) WHERE id=1")
    deep = 100_000
    vf.set_binding(root, 2, '{"a":' * deep + "1" + "}" * deep)
    r = CliRunner().invoke(app, ["evidence", "verify", str(root), "--json"])
    assert r.exit_code == 1 and (r.exception is None or isinstance(r.exception, SystemExit))
    doc = json.loads(r.stdout)
    assert doc["result"] == "invalid_binding"
    assert {"row_changed", "binding_unreadable"} <= set(doc["problem_kinds"])


def test_campaign_status_of_a_raw_blob_binding(root: Path) -> None:
    # Its cells read the binding too: they are not shown, the banner says why; no traceback.
    vf.execute(root, "UPDATE administrations SET binding=CAST(binding AS BLOB) WHERE id=1")
    r = CliRunner().invoke(app, ["campaign", "status", "--store", str(root)])
    assert r.exit_code == 0 and r.exception is None
    assert r.stderr.startswith("UNQUALIFIED EVIDENCE (invalid_binding)")
    assert "c1: scores per level and condition not shown: the bindings of" in r.stderr


def test_a_resealed_episode_blob_nested_too_deep(root: Path) -> None:
    # A forger's own blob (named by its digest), the row pointed at it and resealed.
    deep = 100_000
    data = ('{"key":' * deep + "1" + "}" * deep).encode()
    d = hashlib.sha256(data).hexdigest()
    vf.blob(root, d).parent.mkdir(exist_ok=True)
    vf.blob(root, d).write_bytes(data)
    vf.reseal(root, f"UPDATE episodes SET episode_digest='{d}' WHERE administration=1",
              rows=(("episodes", 1),))
    for mode in ("full", "ledger"):
        assert ("row_disagrees_with_evidence", "episodes administration=1",
                f"the episode blob {d[:12]} is nested too deep to read") in _kinds(root, mode)


def test_a_transcript_nested_too_deep(root: Path) -> None:
    # The episode blob rewritten to bind a forger's transcript document, resealed.
    deep = 100_000
    doc = ("[" * deep + "]" * deep).encode()
    ep, _ = vf.episode_digests(root, 1)
    plain = json.loads(contents(vf.blob(root, ep).read_bytes()))
    plain["digests"]["transcript"] = hashlib.sha256(doc).hexdigest()
    data = json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()
    new = hashlib.sha256(data).hexdigest()
    for digest, body in ((plain["digests"]["transcript"], doc), (new, data)):
        vf.blob(root, digest).parent.mkdir(exist_ok=True)
        vf.blob(root, digest).write_bytes(body)
    vf.reseal(root, f"UPDATE episodes SET episode_digest='{new}' WHERE administration=1",
              rows=(("episodes", 1),))
    for mode in ("full", "ledger"):
        found = _kinds(root, mode)
        assert [k for k, w, _ in found if "transcript" in w] == ["transcript_unreadable"], found


def test_archive_audit_of_texts_nested_too_deep_is_unqualified(root: Path,
                                                                tmp_path: Path) -> None:
    # The audit imports the store, reading its bindings and assessments: a text nested deeper
    # than Python reads is a problem the store check names (unqualified), never a refusal.
    deep = 100_000
    vf.set_binding(root, 1, '{"a":' * deep + "1" + "}" * deep)
    _assessment(root, 2, "[" * deep + "]" * deep)
    r = CliRunner().invoke(app, ["archive", "audit", str(root), "--out", str(tmp_path / "o")])
    assert r.exit_code == 0 and r.exception is None, r.output
    assert r.stderr.startswith("UNQUALIFIED EVIDENCE (invalid_binding)")
    doc = json.loads((tmp_path / "o" / "archive.json").read_text())
    assert doc["evidence"]["qualified"] is False
