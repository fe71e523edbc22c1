"""Anything an agent or client sends is recorded, non-finite numbers included."""

from __future__ import annotations

import math

from agentmetrology.records import Event
from agentmetrology.store import EvidenceStore
from support.stores import episode_key, make_episode, register


def test_episode_with_nan_and_infinite_arguments_is_recorded(store: EvidenceStore) -> None:
    register(store, 1)
    (adm,) = store.pending("c1")
    ep, scored = make_episode(episode_key(0))
    ep.events.append(Event(1, "agent", "tool_call", "fetch_page", {"page": math.nan},
                           {"error": "page must be an integer"}, 0.0))
    ep.events.append(Event(2, "agent", "tool_call", "fetch_page",
                           {"page": math.inf, "limit": -math.inf}, None, 0.0))
    attempt = store.start_attempt(adm, None, "inline")
    digests = store.record_episode(attempt, ep, scored)
    assert b'{"page":{"$float":"nan"}}' in store.get_bytes(digests.episode)
    loaded = store.load_episode(episode_key(0))
    assert math.isnan(loaded["events"][1]["args"]["page"])
    assert loaded["events"][2]["args"] == {"page": math.inf, "limit": -math.inf}
    assert [a["status"] for a in store.attempts(episode_key(0))] == ["finished"]
