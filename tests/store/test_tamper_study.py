"""The tamper study: every intervention is caught by the full check; the hash-only baseline
misses exactly the resealed ones; restoring the files restores qualification exactly."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import store.tamper_fixtures as tf
from agentmetrology.archive.evidence_check import qualify_store


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("tamper"))
    yield store, tf.snapshot(store)


def _check(store: Path) -> tuple[dict[str, object], dict[str, object]]:
    return qualify_store(store, "full"), qualify_store(store, "hash-only")


def test_the_recorded_store_qualifies(recorded: tuple[Path, dict[str, bytes]]) -> None:
    store, _ = recorded
    full, hash_only = _check(store)
    assert full["result"] == hash_only["result"] == "qualified", full["problems"]
    assert full["checked"]["administrations"] == 36
    assert full["checked"]["specifications_reopened"] == 36


def test_tamper_study(recorded: tuple[Path, dict[str, bytes]]) -> None:
    store, files = recorded
    original = _check(store)
    caught_full: Counter[str] = Counter()
    caught_hash: Counter[str] = Counter()
    total: Counter[str] = Counter()
    results: Counter[str] = Counter()
    study = [(k, label, edit, True) for k, label, edit in tf.binding_interventions()]
    study += tf.byte_interventions()
    for kind, label, edit, reseal in study:
        tf.apply(store, edit, reseal)
        full, hash_only = _check(store)
        total[kind] += 1
        caught_full[kind] += not full["qualified"]
        caught_hash[kind] += not hash_only["qualified"]
        results[f"{kind}:{full['result']}"] += 1
        assert not full["qualified"], label
        tf.restore(store, files)
        assert _check(store) == original, f"restoring after {label!r} did not restore"
    assert len(study) == 68 and sum(total[k] for k in (
        "specification", "seed", "registration", "instrument", "scope")) == 52
    assert dict(total) == {"specification": 10, "seed": 10, "registration": 6,
                           "instrument": 10, "scope": 16, "blob": 4, "row": 8,
                           "resealed row": 4}
    assert caught_full == total
    # The baseline misses every resealed binding edit and resealed row edit except the one
    # whose blob is gone (missing bytes are visible to a bytes-only check).
    assert dict(+caught_hash) == {"blob": 4, "row": 8, "resealed row": 1}
    assert results == Counter({
        "specification:invalid_binding": 10, "seed:invalid_binding": 10,
        "registration:invalid_binding": 6, "instrument:invalid_binding": 10,
        "scope:invalid_binding": 16, "blob:invalid_binding": 2, "blob:unavailable": 2,
        "row:invalid_binding": 7, "row:unavailable": 1, "resealed row:unavailable": 1,
        "resealed row:invalid_binding": 3})
