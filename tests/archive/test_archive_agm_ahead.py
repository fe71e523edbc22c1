"""The agm import's episode blobs read ahead by a reader process (archive.importers.agm_ahead)
give the archive, and the store check's verdicts, that reading them in the importing process
gives: intact and damaged stores, a reader that dies, a walk left early (no reader left)."""

from __future__ import annotations

import dataclasses
import os
import signal
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive import recovery
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.archive.importers import agm_ahead, agm_store
from agentmetrology.archive.importers.agm_ahead import BlobsAhead, reader_count
from agentmetrology.archive.importers.agm_blob import _kept, read_episode
from agentmetrology.archive.importers.agm_store import _bound_environment, load_agm
from agentmetrology.archive.model import Archive, actor_counts
from agentmetrology.records.errors import UserError
from agentmetrology.store.blobs import BlobStore
from agentmetrology.store.ledger import binding_environment
from archive.test_archive_agm_blob_reads import EXTRA
from archive.test_archive_agm_replay_memo import _counted


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("ahead"))
    yield store, tf.snapshot(store)


def _digests(store: Path) -> list[str]:
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        return [str(r[0]) for r in c.execute(
            "SELECT episode_digest FROM episodes ORDER BY administration")]


def _seen(archive: Archive) -> dict[str, Any]:
    reads = archive.blob_reads
    assert reads is not None
    return dict(reads._seen)


def _plain(archive: Archive) -> Any:
    """Everything the import built, events walked (read from the blobs again), comparable."""
    episodes = [{**dataclasses.asdict(dataclasses.replace(e, events=[])),
                 "events": [dataclasses.asdict(x) for x in e.events],
                 "actors": dict(actor_counts(e.events)),
                 "fingerprint": getattr(e.events, "replay_fingerprint", None)}
                for e in archive.episodes]
    return (episodes, [dataclasses.asdict(s) for s in archive.spans],
            [dataclasses.asdict(p) for p in archive.problems], archive.notes, _seen(archive))


def _load(store: Path, readers: int, monkeypatch: pytest.MonkeyPatch) -> Archive:
    monkeypatch.setattr(agm_ahead, "CHUNK", 5)  # several chunks of the 36 episodes
    monkeypatch.setenv(agm_ahead.READERS_ENV, str(readers))
    return load_agm(store)


def test_the_walk_reads_in_a_reader_and_gives_what_a_read_here_gives(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    blobs, digests = BlobStore(store), _digests(store)
    monkeypatch.setattr(agm_ahead, "CHUNK", 4)
    pids = set()
    with BlobsAhead(blobs, readers=1) as ahead:
        got = []
        for row, found in ahead.walk([*digests, None], lambda d: d):
            got.append((row, found))
            if ahead._pool is not None:
                pids |= set(ahead._pool._processes)  # type: ignore[attr-defined]
    assert pids and os.getpid() not in pids  # a reader process was used
    assert got == [(d, read_episode(blobs, d)) for d in digests] + [(None, None)]
    assert all(f is not None and f.error is None and f.verdict.token for _, f in got[:-1])
    for pid in pids:  # stopped when the walk's context ended
        assert not Path(f"/proc/{pid}").exists() or _zombie_or_gone(pid)


def _zombie_or_gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


@pytest.mark.parametrize("label, edit, reseal", [
    ("intact", None, False),
    ("episode blob deleted", tf.blob_deleted("episode_digest"), False),
    ("episode blob bytes changed", tf.blob_changed("episode_digest"), False),
    *[e for e in EXTRA if e[0] in ("zip bomb", "truncated stream", "symbolic link",
                                   "not an episode", "a NaN cost")]],
    ids=lambda v: v if isinstance(v, str) else "")
def test_a_store_imports_the_same_with_a_reader(recorded: tuple[Path, dict[str, bytes]],
                                                monkeypatch: pytest.MonkeyPatch, label: str,
                                                edit: Any, reseal: bool) -> None:
    store, files = recorded
    if edit is not None:
        tf.apply(store, edit, reseal)
    try:
        here, ahead = _load(store, 0, monkeypatch), _load(store, 1, monkeypatch)
        assert _plain(here) == _plain(ahead), label
        assert (qualify_store(store, "full", reads=ahead.blob_reads)
                == qualify_store(store, "full", reads=here.blob_reads)), label
    finally:
        tf.restore(store, files)


def test_a_reader_that_dies_is_replaced_by_a_read_here(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    blobs, digests = BlobStore(store), _digests(store)
    monkeypatch.setattr(agm_ahead, "CHUNK", 3)
    got = []
    with BlobsAhead(blobs, readers=1) as ahead:
        for i, (row, found) in enumerate(ahead.walk(digests, lambda d: d)):
            if i == 3 and ahead._pool is not None:
                for pid in ahead._pool._processes:  # type: ignore[attr-defined]
                    os.kill(pid, signal.SIGKILL)
            got.append((row, found))
    assert got == [(d, read_episode(blobs, d)) for d in digests]


def test_a_reader_that_cannot_be_forked_is_replaced_by_a_read_here(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    blobs, digests = BlobStore(store), _digests(store)
    monkeypatch.setattr(agm_ahead, "CHUNK", 3)

    def no_fork(*args: object, **kwargs: object) -> None:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork at its limit

    monkeypatch.setattr(ProcessPoolExecutor, "submit", no_fork)
    with BlobsAhead(blobs, readers=1) as ahead:
        got = list(ahead.walk(digests, lambda d: d))
        assert ahead._pool is None and ahead.readers == 0
    assert got == [(d, read_episode(blobs, d)) for d in digests]


def test_a_walk_left_early_leaves_no_reader(recorded: tuple[Path, dict[str, bytes]],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    monkeypatch.setattr(agm_ahead, "CHUNK", 2)
    pids: set[int] = set()
    with pytest.raises(KeyError), BlobsAhead(BlobStore(store), readers=1) as ahead:
        for _ in ahead.walk(_digests(store), lambda d: d):
            assert ahead._pool is not None
            pids |= set(ahead._pool._processes)  # type: ignore[attr-defined]
            raise KeyError("the import failed")
    assert pids and all(_zombie_or_gone(pid) for pid in pids)


def _recovered(archive: Archive) -> tuple[dict[str, Any], Any]:
    """The recovery's summary and the archive as it leaves it."""
    return recovery.recover_grades(archive), _plain(archive)[:3]


def test_replays_run_ahead_by_a_reader_recover_what_replays_run_here_do(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    here = _load(store, 0, monkeypatch)
    assert not here.replays  # read here: nothing run ahead
    runs = _counted(monkeypatch)  # replays run in this process
    want = _recovered(here)
    all_here = len(runs)
    ahead = _load(store, 1, monkeypatch)
    assert ahead.replays and all(isinstance(r, recovery.Replayed) for r in ahead.replays.values())
    runs.clear()
    assert _recovered(ahead) == want
    assert len(runs) < all_here  # the reader's replays were not run again here
    assert not ahead.replays  # handed to the recovery, then let go


def test_a_replay_that_fails_ahead_is_run_by_the_recovery(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = recorded
    want = _recovered(_load(store, 0, monkeypatch))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError("no room for a replay in the reader")
    monkeypatch.setattr(agm_store, "replay_episode", broken)  # inherited by the reader's fork
    ahead = _load(store, 1, monkeypatch)
    assert not ahead.replays
    assert _recovered(ahead) == want


def test_the_readers_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    for text, want in (("0", 0), (" 2 ", 2)):
        monkeypatch.setenv(agm_ahead.READERS_ENV, text)
        assert reader_count() == want
    for bad in ("-1", "many", "65"):
        monkeypatch.setenv(agm_ahead.READERS_ENV, bad)
        with pytest.raises(UserError, match=agm_ahead.READERS_ENV):
            reader_count()
    monkeypatch.delenv(agm_ahead.READERS_ENV)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0})
    assert reader_count() == 0  # one CPU: read in the importing process
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    assert reader_count() == 1


BINDINGS = ['{"environment":"comtrade","seed":1}', '{"seed":1}', '{"environment":null}',
            '{"environment":"a","environment":"b"}', '{"x":NaN,"environment":"a"}', "[1]",
            '{"environment":1e999}', '{"environment":"\\ud800"}',
            '{"environment":12345678901234567890123}',
            '{"environment":{"a":[1,2.5,true,null]}}', '{"environment":-0.0}', "", "not json",
            '{"environment":""}', '{"environment":false}', '"text"']


@pytest.mark.parametrize("text", [*BINDINGS, None])
def test_the_bound_environment_is_read_as_the_ledger_reads_it(text: str | None) -> None:
    assert _bound_environment(text) == binding_environment(text)


def _reads(plain: dict[str, Any]) -> tuple[Any, ...]:
    """What the import reads of a blob's kept fields (agm_store._episode and _spans)."""
    out: list[Any] = []
    for name, keys in (("meta", (("profile", "seeded"), ("max_steps", None))),
                       ("digests", (("submission", None),)), ("usage", (("attempts", None),))):
        value = plain.get(name) or {}
        try:
            out.append(tuple(value.get(k, default) for k, default in keys))
        except AttributeError as exc:  # the import raises it there too
            out.append(("raises", type(exc)))
    return tuple(out)


SHAPES = [None, {}, [], "", 0, "text", [1], 7, {"profile": "x", "max_steps": 3, "other": [1]},
          {"submission": "ab", "transcript": "cd"}, {"attempts": [{"cost": 1}], "requests": 2},
          {"profile": None}, {"max_steps": 0.0}, {"attempts": None}, {"x": {"y": 1}}]


@pytest.mark.parametrize("value", SHAPES, ids=repr)
def test_the_kept_fields_read_as_the_whole_fields_do(value: Any) -> None:
    for plain in ({"meta": value, "digests": value, "usage": value}, {"meta": value},
                  {"digests": value, "events": []}, {"usage": value, "key": {}}):
        assert _reads(_kept(plain)) == _reads(plain)
        assert set(_kept(plain)) == {"meta", "digests", "usage"}


@pytest.mark.parametrize("label, edit, reseal", [
    ("intact", None, False),
    ("episode blob bytes changed", tf.blob_changed("episode_digest"), False),
    *[e for e in EXTRA if e[0] in ("not an episode", "a NaN cost")]],
    ids=lambda v: v if isinstance(v, str) else "")
def test_the_audit_writes_the_same_files_with_its_checks_forked(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, label: str, edit: Any, reseal: bool) -> None:
    # With a reader, the audit's checks run in a forked copy of the process while it checks
    # the store (cli.archive_cmd._body_ahead); with none, all of it runs in one process.
    from typer.testing import CliRunner

    from agentmetrology.cli import archive_cmd
    from agentmetrology.cli.archive_cmd import archive_app
    from agentmetrology.store import forked

    store, files = recorded
    if edit is not None:
        tf.apply(store, edit, reseal)
    calls: list[int] = []
    real = forked.ForkedCall.__enter__

    def counted(self: Any) -> Any:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(forked.ForkedCall, "__enter__", counted)
    # an `agm` process runs no other thread here; a test worker (xdist) runs its own, which
    # rules the fork out (the guard has its own test below)
    monkeypatch.setattr(archive_cmd.threading, "active_count", lambda: 1)
    try:
        written = {}
        for readers in (0, 1):
            monkeypatch.setenv(agm_ahead.READERS_ENV, str(readers))
            out = tmp_path / f"readers-{readers}"
            res = CliRunner().invoke(archive_app, ["audit", str(store), "--format", "agm",
                                                   "--out", str(out)])
            assert res.exit_code in (0, 1), res.output
            written[readers] = {f: (out / f).read_bytes()
                                for f in ("archive.json", "report.md", "report.html")}
        assert written[0] == written[1], label
        assert calls == [1]  # forked with the reader only
    finally:
        tf.restore(store, files)


def test_the_checks_are_not_forked_while_another_thread_runs(
        recorded: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    # A fork copies the calling thread alone: a lock another thread held stays held in the copy
    import threading

    from agentmetrology.cli import archive_cmd
    from agentmetrology.cli.archive_cmd import _body_ahead

    monkeypatch.setenv(agm_ahead.READERS_ENV, "1")
    archive = load_agm(recorded[0])
    monkeypatch.setattr(archive_cmd.threading, "active_count", lambda: 1)
    with _body_ahead(archive, None, True) as call:
        assert call._proc is not None  # forked
        forked = call.result()
    monkeypatch.setattr(archive_cmd.threading, "active_count", lambda: 2)
    with _body_ahead(archive, None, True) as call:
        assert call._proc is None  # not forked: computed here when asked for
        assert call.result() == forked
    assert threading.active_count() >= 1
