"""Billable attempts written as responses arrive: kept for interrupted attempts, counted once."""

from __future__ import annotations

import pytest

from agentmetrology.records import BillableAttempt
from agentmetrology.store import Administration, EvidenceStore
from support.stores import episode_key, make_episode, register


def _adm(st: EvidenceStore, i: int) -> Administration:
    adm = st.ledger.administration(episode_key(i))
    assert adm is not None
    return adm


def _request(n: int, cost: float | None, rid: str | None = None) -> BillableAttempt:
    return BillableAttempt(f"a{n}", "fake", "m", rid or f"req{n}", 100, 10, 0, cost, 0.01, "ok")


def test_requests_of_an_interrupted_attempt_count_in_status_once(store: EvidenceStore) -> None:
    register(store, 3)
    # Key 0: recorded; its requests were streamed first and must not count twice.
    done = store.start_attempt(_adm(store, 0), None, "inline")
    for n in range(2):
        assert store.record_billable(done, _request(n, 0.25))
    assert not store.record_billable(done, _request(1, 0.25))  # the same request again: no-op
    store.record_episode(done, *make_episode(episode_key(0), costs=(0.25, 0.25)))
    # Key 1: the run died after three answered requests; one had no price.
    killed = store.start_attempt(_adm(store, 1), None, "inline")
    for n, cost in enumerate((0.5, 0.125, None)):
        store.record_billable(killed, _request(n, cost))
    assert store.recover() == 1
    t = store.status("c1").total
    assert (t.unrecorded_requests, t.unrecorded_cost, t.unrecorded_cost_unknown) == (3, 0.625, 1)
    assert t.cost == pytest.approx(0.5 + 0.625) and t.cost_unknown == 1
    assert (t.input_tokens, t.output_tokens) == (500, 50)
    doc = store.status("c1").to_json()["total"]
    assert doc["cost"] is None and doc["cost_known"] == pytest.approx(1.125)
    # Key 1 is measured again and recorded: the killed attempt's requests still count, once.
    again = store.start_attempt(_adm(store, 1), None, "inline")
    store.record_billable(again, _request(0, 0.0625))
    store.record_episode(again, *make_episode(episode_key(1), costs=(0.0625,)))
    t = store.status("c1").total
    assert t.unrecorded_requests == 3 and t.cost == pytest.approx(0.5 + 0.625 + 0.0625)


def test_billable_request_ids_are_redacted(store: EvidenceStore) -> None:
    register(store, 1)
    store.add_secrets(["sk-live-SECRET"])
    attempt = store.start_attempt(_adm(store, 0), None, "inline")
    store.record_billable(attempt, _request(0, 0.1, rid="id-sk-live-SECRET"))
    [row] = store.billable_attempts(attempt)
    assert "SECRET" not in row["request_id"] and row["cost"] == 0.1


def test_known_costs_stay_known_without_billing_rows(store: EvidenceStore) -> None:
    register(store, 1)
    attempt = store.start_attempt(_adm(store, 0), None, "inline")
    store.record_episode(attempt, *make_episode(episode_key(0), costs=(0.5,)))
    doc = store.status("c1").to_json()["total"]
    assert doc["cost"] == 0.5 and doc["unrecorded_requests"] == 0
