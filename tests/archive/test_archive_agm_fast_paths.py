"""`agm archive audit` of our own store with its fast paths and without them: the same bytes.

The audit's faster ways of doing what it always did (row digests written by msgspec, ledger
texts read by msgspec, replay memo keys by repr, the record's canonical text by json alone,
details redacted once per text in an import)
are switched off here one and all, and the reports (archive.json, report.md, report.html) and
the full store check, of an intact store and after every byte, row and binding intervention
of the tamper study, must be exactly what they are with them on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

import store.tamper_fixtures as tf
from agentmetrology.archive import load_archive, recovery
from agentmetrology.archive import redact as redact_module
from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.archive.importers import agm_store
from agentmetrology.archive.redact import redact, redact_memo
from agentmetrology.cli.archive_cmd import archive_app
from agentmetrology.records.canonical import canonical_json
from agentmetrology.store import chain, verify_json
from archive.agm_fixtures import build_store

REPORTS = ("archive.json", "report.md", "report.html")


def _refuse(*_: Any) -> Any:
    raise msgspec.DecodeError("fast path off")


def _slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch every fast path off: each falls back to what the code did before it."""
    monkeypatch.setattr(chain, "_fast_row_text", lambda *_: None)
    monkeypatch.setattr(verify_json, "_DECODE", _refuse)
    monkeypatch.setattr(recovery, "_plain_json", lambda *_: None)
    monkeypatch.setattr(recovery, "_SCALARS", frozenset())
    monkeypatch.setattr(agm_store, "redact_memo", nullcontext)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm-fast") / "store")


def _audit(store: Path, out: Path) -> dict[str, bytes]:
    res = CliRunner().invoke(archive_app, ["audit", str(store), "--format", "agm",
                                           "--out", str(out)])
    assert res.exit_code == 0, res.output
    return {name: (out / name).read_bytes() for name in REPORTS}


def test_the_reports_are_byte_identical_without_the_fast_paths(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _audit(store, tmp_path / "fast")
    _slow(monkeypatch)
    assert _audit(store, tmp_path / "slow") == fast
    assert b'"agrees":true,' in fast["archive.json"]  # replays ran and matched the record


def test_the_audit_leaves_the_collector_as_it_found_it(store: Path, tmp_path: Path) -> None:
    # the heap is frozen while the reports are written (cli.archive_cmd), then thawed
    enabled = gc.isenabled()
    _audit(store, tmp_path / "out")
    assert gc.get_freeze_count() == 0 and gc.isenabled() == enabled


def test_the_audit_leaves_a_callers_frozen_heap_frozen(store: Path, tmp_path: Path) -> None:
    # a caller (a server freezing its heap before it forks) froze objects of its own: the
    # audit's thaw must not move them back to the collector's generations
    mine = [[]]  # a container the collector tracks
    gc.freeze()
    try:
        assert not _collectable(mine)  # frozen: in no generation
        _audit(store, tmp_path / "out")
        assert not _collectable(mine)
    finally:
        gc.unfreeze()
    assert _collectable(mine)


def _collectable(obj: object) -> bool:
    """Return True when `obj` is in one of the collector's generations (not frozen)."""
    return any(o is obj for o in gc.get_objects())


def test_the_records_canonical_text_is_canonical_json(store: Path) -> None:
    episodes = [e for e in load_archive(store, "agm").episodes if e.events]
    assert episodes
    for ep in episodes:
        recorded = recovery._recorded(ep)
        assert recovery._plain_json(ep, recorded) == canonical_json(recorded)
        ep.events[0] = ep.events[0]  # edited: held, no fingerprint, not taken
        assert recovery._plain_json(ep, recovery._recorded(ep)) is None


def test_replay_memo_keys_tell_types_apart(store: Path) -> None:
    ep = next(e for e in load_archive(store, "agm").episodes if e.grade is not None)
    key = ep.meta["key"]
    steps = ep.meta["max_steps"]
    assert type(steps) is int
    seen = set()
    for value in (steps, float(steps), str(steps), None, 0, 0.0, -0.0, False):
        ep.meta["max_steps"] = value
        seen.add(recovery.replay_inputs(ep, key))
    assert None not in seen and len(seen) == 8
    ep.meta["max_steps"] = steps
    assert recovery.replay_inputs(ep, dict(key)) == recovery.replay_inputs(ep, key)
    ep.meta["max_steps"] = [steps]  # not a scalar: the canonical digest, as before
    assert recovery.replay_inputs(ep, key) == recovery.digest({
        "environment": ep.meta["environment"], "profile": ep.meta["profile"],
        "max_steps": [steps], **{k: key[k] for k in ("task", "seed", "level", "condition")},
        "recorded": ep.events.replay_fingerprint})  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    root = tf.record_store(tmp_path_factory.mktemp("fast-tamper"))
    yield root, tf.snapshot(root)


STUDY = ([(label, edit, reseal) for _, label, edit, reseal in tf.byte_interventions()]
         + [(label, edit, True) for _, label, edit in tf.binding_interventions()[::4]])


@pytest.mark.parametrize("label, edit, reseal", STUDY, ids=[s[0] for s in STUDY])
def test_the_store_check_finds_the_same_without_the_fast_paths(
        tampered: tuple[Path, dict[str, bytes]], label: str, edit: Any, reseal: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    root, files = tampered
    tf.apply(root, edit, reseal)
    try:
        fast = qualify_store(root, "full")
        _slow(monkeypatch)
        slow = qualify_store(root, "full")
    finally:
        monkeypatch.undo()
        tf.restore(root, files)
    assert fast == slow, label
    assert not fast["qualified"], label


def test_episode_tokens_tell_values_apart_type_for_type() -> None:
    from agentmetrology.store.verify_episodes import _token

    key = {"campaign": "c", "seed": 0}
    facts = ("submitted", 0, 0.0, 1, 2, 3, 4, 5)
    tokens = [_token(key, "s", facts), _token({**key, "seed": 0.0}, "s", facts),
              _token({**key, "seed": False}, "s", facts), _token(key, None, facts),
              _token(key, "s", ("submitted", 0, -0.0, 1, 2, 3, 4, 5)),
              _token(key, "s", ("submitted", 0, 0, 1, 2, 3, 4, 5)),
              _token(key, "\ud800", facts), _token({**key, "nested": [1]}, "s", facts)]
    assert None not in tokens and len(set(tokens)) == len(tokens)
    assert _token(dict(reversed(key.items())), "s", facts) == tokens[0]  # key order aside
    assert _token(key, "s", ("submitted", 0, float("nan"), 1, 2, 3, 4, 5)) is None
    assert _token(key, "s", ("submitted", 0, float("inf"), 1, 2, 3, 4, 5)) is None


def test_a_redaction_memo_gives_what_redact_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-" + "q" * 40
    monkeypatch.setenv("SOME_API_KEY", "a-credential-value-of-this-machine")
    texts = ["connection reset", f"bad key {secret}", "  ", "", "x" * 400,
             "value a-credential-value-of-this-machine quoted", "connection reset"]
    plain = [redact(t) for t in texts] + [redact(t, limit=10) for t in texts]
    with redact_memo():
        with redact_memo():  # nested: the outer memo serves both
            inner = [redact(t) for t in texts]
        memo = redact_module._memo
        assert memo is not None and len(memo) == 4  # the distinct texts with something in them
        again = [redact(t) for t in texts] + [redact(t, limit=10) for t in texts]
    assert redact_module._memo is None
    assert inner == plain[:len(texts)] and again == plain
    assert "[redacted]" in plain[1] and "a-credential" not in plain[5]


def test_a_redaction_memo_keeps_a_bounded_number_of_details(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_module, "_MEMO_ENTRIES", 3)
    with redact_memo():
        out = [redact(f"row {i} failed") for i in range(10)]
        assert len(redact_module._memo or {}) == 3  # details unique to a row are not all kept
        assert redact("row 7 failed") == "row 7 failed"  # beyond the bound: redacted anew
    assert out == [f"row {i} failed" for i in range(10)]
