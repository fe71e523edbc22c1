"""Transcripts in the store: one blob per distinct message, bound by the episode, redacted like
every record (references renamed when redaction changes bytes), checked by verify; a model-free
episode has none and its bytes do not move."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

from agentmetrology.agents.llm.transcript_log import Opened, TranscriptLog
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import canonical_json
from agentmetrology.records.transcript import Transcript
from agentmetrology.run.episode import make_policy
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import contents
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.verify import verify_store
from support.comtrade_runs import COMTRADE
from support.stores import episode_key, make_episode, register

STORE_ONLY = "store-only-SECRET-value-0123456789"  # registered with the store alone
SYSTEM = {"role": "system", "content": "You are careful."}


def _transcript(turns: int, leak: str = "") -> Transcript:
    """A conversation of `turns` requests; each request resends every earlier message."""
    conversation = [SYSTEM, {"role": "user", "content": f"Task. {leak}"}]
    log = TranscriptLog([{"type": "function", "function": {"name": "f"}}], {"model": "m"})
    for n in range(turns):
        opened = Opened(len(conversation), 0, float(n), True)
        log.close(opened, [f"r{n + 1:03d}.1"], n + 0.5,
                  {"content": f"step {n}", "tool_calls": [], "finish_reason": "stop",
                   "request_id": f"req_{n}", "usage": {}})
        conversation += [{"role": "assistant", "content": f"step {n}"},
                         {"role": "user", "content": "again"}]
    return log.transcript(conversation, ())


def test_each_distinct_message_is_kept_once_and_a_request_names_its_messages() -> None:
    t = _transcript(20)
    # 2 + 20 assistant turns + one "again" (the same text every time: one message)
    assert len(t.messages) == 2 + 20 + 1
    assert [len(x.messages) for x in t.exchanges] == [2 + 2 * n for n in range(20)]
    assert all(x.messages[:2] == (0, 1) for x in t.exchanges)
    document, parts = t.encoded()
    assert len(parts) == len(t.messages) + 1  # and the tool declarations
    # What grows with the square of the conversation is a list of small indexes, not the
    # messages again: under half of what the requests' messages weigh even with these tiny ones.
    resent = sum(len(canonical_json([t.messages[i] for i in x.messages])) for x in t.exchanges)
    assert len(document) < resent / 2


def _record(store: EvidenceStore, transcript: Transcript) -> str:
    register(store, 1)
    (adm,) = store.pending("c1")
    ep, scored = make_episode(episode_key(0))
    ep.transcript = transcript
    ep.digests["transcript"] = transcript.digest
    digests = store.record(store.start_attempt(adm, None, "inline"),
                           EpisodeEvidence.from_records(ep, scored))
    return digests.episode


def test_redaction_renames_the_references_so_verify_still_passes(tmp_path: Path) -> None:
    # A credential pattern (redacted where the episode ran) and a value only the store knows
    # (redacted by the writer) change two messages' bytes, hence their digests.
    transcript = _transcript(3, leak=f"sk-proj-{'A1b2' * 8} {STORE_ONLY}")
    with EvidenceStore.open(tmp_path / "s", scrub_env=False, secrets=[STORE_ONLY]) as store:
        episode = store.get_json(_record(store, transcript))
        doc = store.get_json(episode["digests"]["transcript"])
        assert episode["digests"]["transcript"] != transcript.digest
        user = store.get_json(doc["messages"][1])
        assert user["role"] == "user" and "[redacted]" in user["content"]
        assert store.get_json(doc["messages"][0]) == SYSTEM
    assert not [p for p in (tmp_path / "s").rglob("*")
                if p.is_file() and STORE_ONLY.encode() in contents(p.read_bytes())]
    q = verify_store(tmp_path / "s")  # (the fixture's hand-made plan is not checked here)
    assert not [p for p in q.problems if p.kind.startswith("transcript")], q.problems
    # the document, 6 distinct messages, the tool declarations
    assert q.checked["transcripts"] == 1 and q.checked["transcript_blobs"] == 1 + 6 + 1


def test_a_transcript_that_is_not_one_is_a_named_problem(tmp_path: Path) -> None:
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as store:
        register(store, 1)
        (adm,) = store.pending("c1")
        ep, scored = make_episode(episode_key(0))
        ep.digests["transcript"] = store.put_bytes(b'{"messages": 3}')
        store.record_episode(store.start_attempt(adm, None, "inline"), ep, scored)
    q = verify_store(tmp_path / "s")
    assert [p.kind for p in q.problems if p.kind.startswith("transcript")] \
        == ["transcript_unreadable"]


def test_a_model_free_episode_has_no_transcript_and_the_same_bytes() -> None:
    ep = asyncio.run(run_episode_async(COMTRADE, ComtradeEnv("T3_duplicates", 0),
                                       make_policy(COMTRADE, "rule"), "L2"))
    assert ep.transcript is None and "transcript" not in ep.digests
    ev = EpisodeEvidence.from_records(ep)
    assert ev.transcript is None and b"transcript" not in ev.body
    assert ev.body == canonical_json(json.loads(ev.body))
    assert hashlib.sha256(ev.body).hexdigest() == hashlib.sha256(canonical_json(ep)).hexdigest()
