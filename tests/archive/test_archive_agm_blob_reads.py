"""`agm archive audit` of our own store reads each blob once: the full store check takes what
the import found in the blobs it read (store.blob_reads) and reports exactly what it reports
reading them itself, for an intact store and for every way a blob or a row can be damaged."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.archive.importers.agm_store import load_agm
from agentmetrology.records.canonical import canonical_json, decode_json, digest
from agentmetrology.store import verify_blobs
from agentmetrology.store.blob_reads import BlobReads
from agentmetrology.store.blobs import MAGIC, MAX_INFLATED, contents, pack
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.verify_blobs import BlobChecks
from agentmetrology.store.verify_memo import MEMO_ENV

Edit = Callable[[sqlite3.Connection, Path], None]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("reads"))
    yield store, tf.snapshot(store)


@contextmanager
def _fresh_memo() -> Iterator[None]:
    """Point the verified-head memo at an empty folder for one check: each compared check then
    starts from the same knowledge of the store (a head the first one saves, or one an earlier
    test saved before the store was edited, was noted as moved by the next one alone)."""
    before = os.environ.get(MEMO_ENV)
    with tempfile.TemporaryDirectory(prefix="agm-verify-memo-") as folder:
        os.environ[MEMO_ENV] = folder
        try:
            yield
        finally:
            if before is None:
                del os.environ[MEMO_ENV]
            else:
                os.environ[MEMO_ENV] = before


def _both(store: Path) -> tuple[dict[str, Any], dict[str, Any], BlobReads]:
    """Return the full check with the import's reads, the full check alone, and the reads."""
    reads = load_agm(store).blob_reads
    assert reads is not None
    with _fresh_memo():
        shared = qualify_store(store, "full", reads=reads)
    with _fresh_memo():
        alone = qualify_store(store, "full")
    return shared, alone, reads


def _first(c: sqlite3.Connection, column: str = "episode_digest") -> str:
    return str(c.execute(f"SELECT {column} FROM episodes ORDER BY administration").fetchone()[0])


def _rewrite(edit_plain: Callable[[dict[str, Any]], None]) -> Edit:
    """The first episode's blob replaced by an edited copy under its own name (row repointed)."""
    def edit(c: sqlite3.Connection, store: Path) -> None:
        old = _first(c)
        plain = decode_json(contents(tf._blob(store, old).read_bytes()))
        edit_plain(plain)
        data = canonical_json(plain)
        new = hashlib.sha256(data).hexdigest()
        tf._blob(store, new).parent.mkdir(exist_ok=True)
        tf._blob(store, new).write_bytes(pack(data))
        c.execute("UPDATE episodes SET episode_digest=? WHERE episode_digest=?", (new, old))
    return edit


def _raw(write: Callable[[bytes], bytes]) -> Edit:
    """The first episode's blob file given other bytes (`write` of its contents)."""
    def edit(c: sqlite3.Connection, store: Path) -> None:
        path = tf._blob(store, _first(c))
        data = contents(path.read_bytes())
        path.chmod(0o644)
        path.write_bytes(write(data))
    return edit


def _symlinked(c: sqlite3.Connection, store: Path) -> None:
    path = tf._blob(store, _first(c))
    outside = store.parent / "outside-blob"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    os.symlink(outside, path)


def _set(section: str, name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit_plain(plain: dict[str, Any]) -> None:
        plain[section][name] = value
    return edit_plain


def _cost(value: Any) -> Callable[[dict[str, Any]], None]:
    def edit_plain(plain: dict[str, Any]) -> None:
        plain["usage"]["attempts"] = [{"cost": value, "input_tokens": 0, "output_tokens": 0}]
    return edit_plain


EXTRA: list[tuple[str, Edit, bool]] = [
    ("zip bomb", _raw(lambda _: MAGIC + zlib.compress(b"\0" * (MAX_INFLATED + 1), 9)), False),
    ("truncated stream", _raw(lambda d: pack(d)[:len(pack(d)) // 2]), False),
    ("stored uncompressed (legacy)", _raw(lambda d: d), False),
    ("symbolic link", _symlinked, False),
    ("seed of another type in the blob", _rewrite(_set("key", "seed", "0")), True),
    ("seed 0.0 in the blob", _rewrite(_set("key", "seed", 0.0)), True),
    ("requests changed in the blob", _rewrite(_set("usage", "requests", 99)), True),
    ("submission named otherwise", _rewrite(_set("digests", "submission", "ab" * 32)), True),
    ("submission left out", _rewrite(_set("digests", "submission", None)), True),
    ("a NaN cost", _rewrite(_cost({"$float": "nan"})), True),
    ("an infinite cost", _rewrite(_cost({"$float": "inf"})), True),
    ("termination not an object", _rewrite(lambda p: p.update(termination=[1])), True),
    ("not an episode", _rewrite(lambda p: p.clear()), True),
]
# Not damage the check names: 0.0 == 0, and a blob may leave its submission out (their tokens
# are not the row's, so the check reads the blob again, as it always did).
QUALIFIES = ("stored uncompressed (legacy)", "seed 0.0 in the blob", "submission left out")
STUDY = ([(label, edit, reseal) for _, label, edit, reseal in tf.byte_interventions()]
         + [(label, edit, True) for kind, label, edit in tf.binding_interventions()
            if kind == "scope"] + EXTRA)


def test_an_intact_store_is_checked_without_reading_an_episode_blob_again(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    archive = load_agm(store)
    reads = archive.blob_reads
    assert reads is not None and len(reads) == 36  # every recorded episode's blob
    hashed: list[str] = []
    real = verify_blobs.problem
    monkeypatch.setattr(verify_blobs, "problem", lambda raw, d: hashed.append(d) or real(raw, d))
    monkeypatch.setattr(BlobChecks, "episode_json", lambda self, d: pytest.fail("read again"))
    shared = qualify_store(store, "full", reads=reads)
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        episodes = {r[0] for r in c.execute("SELECT episode_digest FROM episodes")}
    assert hashed and not episodes & set(hashed)  # the others (submissions, config): hashed
    monkeypatch.undo()
    alone = qualify_store(store, "full")
    assert shared == alone and shared["result"] == "qualified"
    assert shared["checked"]["blobs_hashed"] == len(hashed) + len(episodes)


@pytest.mark.parametrize("label, edit, reseal", STUDY, ids=[s[0] for s in STUDY])
def test_a_damaged_store_is_reported_the_same(recorded: tuple[Path, dict[str, bytes]],
                                              label: str, edit: Edit, reseal: bool) -> None:
    store, files = recorded
    tf.apply(store, edit, reseal)
    try:
        shared, alone, reads = _both(store)
        assert shared == alone, label
        assert shared["qualified"] == (label in QUALIFIES), label
    finally:
        tf.restore(store, files)
    if label in ("zip bomb", "truncated stream", "episode blob bytes changed"):
        with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
            seen = reads.seen(_first(c))
        assert seen is not None and seen.why, label  # found by the import's read, not re-read


def _transcript_store(root: Path) -> tuple[Path, str]:
    """A store of one model episode binding a transcript; return it and a message blob."""
    from store.test_transcript_store import _transcript
    from support.stores import episode_key, make_episode, open_store, register

    with open_store(root) as st:
        register(st, 1)
        (adm,) = st.pending("c1")
        ep, scored = make_episode(episode_key(0))
        transcript = _transcript(3)
        ep.transcript, ep.digests["transcript"] = transcript, transcript.digest
        ep.digests["submission"] = digest(ep.submission)  # as the runner records it
        recorded = st.record(st.start_attempt(adm, None, "inline"),
                             EpisodeEvidence.from_records(ep, scored))
        doc = st.get_json(st.get_json(recorded.episode)["digests"]["transcript"])
    return root, str(doc["messages"][1])


def test_the_transcript_an_episode_binds_is_still_checked(tmp_path: Path) -> None:
    store, message = _transcript_store(tmp_path / "s")
    shared, alone, reads = _both(store)
    assert shared == alone and len(reads) == 1
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        seen = reads.seen(_first(c))
    assert seen is not None and seen.token and seen.transcript  # so the blob is not read again
    assert shared["checked"]["transcripts"] == 1 and shared["checked"]["transcript_blobs"] == 8
    assert not _transcript_problems(shared)  # (its hand-made plan is not checked here)
    path = tf._blob(store, message)
    path.chmod(0o644)
    path.write_bytes(pack(contents(path.read_bytes()) + b" "))
    shared, alone, _ = _both(store)
    assert shared == alone
    assert _transcript_problems(shared) == ["transcript_changed"]


def _transcript_problems(q: dict[str, Any]) -> list[str]:
    return [p["kind"] for p in q["problems"] if p["kind"].startswith("transcript")]


SERVED = [json.dumps(doc).encode() for doc in (
    {"key": {"seed": 1}, "meta": {"served_over": "mcp"}, "usage": {"attempts": [{"cost": 1}]}},
    {"key": {"seed": 1}, "meta": {"other": 1}, "usage": {"attempts": [{"cost": 1.5}]}},
    {"key": {"seed": 1}, "meta": 5, "usage": {}},
    {"key": {"seed": 1}, "meta": None, "digests": {"transcript": "ab" * 32}},
    {"key": {"seed": 1}, "digests": {"transcript": 7}, "termination": {"kind": "infra_error"}},
    {"key": {"seed": 1}, "digests": [], "termination": "x"},
    {"key": [{"$float": "inf"}], "usage": {"requests": "3", "tool_calls": 2.0}})]


def test_the_import_tokens_exactly_what_the_check_reads() -> None:
    from agentmetrology.archive.importers.agm_store import decode_blob
    from agentmetrology.store.episode_head import episode_fields
    from agentmetrology.store.verify_episodes import episode_token
    from store.test_episode_head import ODD

    tokens = 0
    for data in ODD + SERVED:
        try:
            imported = decode_blob(data)
        except (ValueError, RecursionError):
            continue  # the import names the blob unreadable and keeps no token
        got = episode_token(imported)
        assert got is None or got == episode_token(episode_fields(data)), data
        tokens += got is not None
    assert tokens >= 6



def _alone_and_reading_twice(store: Path, monkeypatch: pytest.MonkeyPatch
                             ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the full check alone (each episode blob read once: its blob check keeps the
    token) and the same check made to read each episode blob again, as it did before."""
    with _fresh_memo():
        alone = qualify_store(store, "full")
    with monkeypatch.context() as m, _fresh_memo():
        m.setattr(BlobChecks, "_keep_token", lambda self, d, stored: None)
        twice = qualify_store(store, "full")
    return alone, twice


def test_a_full_check_alone_reads_each_episode_blob_once(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    real = BlobChecks.episode_json
    again: list[str] = []
    monkeypatch.setattr(BlobChecks, "episode_json",
                        lambda self, d: again.append(d) or real(self, d))
    alone, twice = _alone_and_reading_twice(store, monkeypatch)
    assert alone == twice and alone["result"] == "qualified"
    assert len(again) == 36  # the check made to read twice; the check alone read none again


@pytest.mark.parametrize("label, edit, reseal", STUDY, ids=[s[0] for s in STUDY])
def test_a_full_check_alone_reports_damage_as_reading_twice_did(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch,
        label: str, edit: Edit, reseal: bool) -> None:
    store, files = recorded
    tf.apply(store, edit, reseal)
    try:
        alone, twice = _alone_and_reading_twice(store, monkeypatch)
        assert alone == twice, label
        assert alone["qualified"] == (label in QUALIFIES), label
    finally:
        tf.restore(store, files)
