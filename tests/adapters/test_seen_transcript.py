"""An episode driven from outside keeps the conversation its driver showed (EpisodeSession.see)."""

from __future__ import annotations

from agentmetrology.adapters.seen_transcript import plain_message, seen_transcript
from agentmetrology.adapters.session import EpisodeSession
from agentmetrology.envs.registry import get_env
from agentmetrology.records.policy import ToolCall

SYSTEM = {"role": "system", "content": "You extract trade data."}
USER = {"role": "user", "content": "Task T3."}


def _call(i: int, name: str, args: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": args}}]}


def test_each_assistant_turn_is_an_exchange_over_what_came_before() -> None:
    chat = [SYSTEM, USER, _call(0, "get_task_info", "{}"),
            {"role": "tool", "tool_call_id": "c0", "content": "{}"},
            {"role": "assistant", "content": "done", "reasoning": "nothing left"}]
    t = seen_transcript(chat, [{"type": "function"}], "verifiers")
    assert [x.messages for x in t.exchanges] == [(0, 1), (0, 1, 2, 3)]
    assert t.exchanges[1].response == {"content": "done", "reasoning": "nothing left"}
    assert t.exchanges[0].attempts == () and t.settings["billed_by"] == "verifiers"
    repeated = seen_transcript([SYSTEM, USER, SYSTEM, USER], [], "x")
    assert len(repeated.messages) == 2  # each distinct message kept once


def test_a_session_binds_the_last_conversation_seen() -> None:
    s = EpisodeSession(get_env("comtrade"), "T3_duplicates", 0, "L2")
    chat = [SYSTEM, USER, _call(0, "get_task_info", "{}")]
    s.see(chat, [], "test")
    s.act(ToolCall("get_task_info", {}))
    chat += [{"role": "tool", "tool_call_id": "c0", "content": "{}"},
             {"role": "assistant", "content": "I stop here"}]
    s.see(chat, [], "test")
    s.stop("I stop here")
    ep = s.episode
    assert ep is not None and ep.transcript is not None
    assert ep.digests["transcript"] == ep.transcript.digest
    assert len(ep.transcript.exchanges) == 2
    assert ep.transcript.messages[-1] == {"role": "assistant", "content": "I stop here"}


def test_an_undriven_session_keeps_no_transcript_and_odd_messages_are_kept_plain() -> None:
    s = EpisodeSession(get_env("comtrade"), "T3_duplicates", 0, "L2")
    s.stop()
    assert s.episode is not None and s.episode.transcript is None
    assert "transcript" not in s.episode.digests
    assert plain_message(42) == {"role": "unknown", "content": "42"}
