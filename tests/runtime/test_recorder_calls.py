"""The recorder's call path: a Tool's own __call__ kept, arguments that are not a JSON object
refused and kept beside the refusal (the event's args stay {})."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records.canonical import canonical_json, decode_json, digest
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.tools import Observation, Tool
from agentmetrology.runtime.recorder import (
    Recorder,
    _escaped_surrogates,
    _surely_unicode,
    kept_arguments,
)


class _Loud(Tool):
    """A Tool whose __call__ does more than forward: the recorder must still call it."""

    __slots__ = ()

    def __call__(self, **kwargs: Any) -> Observation:
        return {"wrapped": self.fn(**kwargs)}


def test_recorder_calls_a_tool_subclass_through_its_call_and_records_bad_arguments() -> None:
    env = ComtradeEnv("T3_duplicates", 0)
    plain = env.tools["get_task_info"]
    env.tools["get_task_info"] = _Loud(plain.spec, plain.fn)
    rec = Recorder(env, FakeClock())
    assert set(rec.call("agent", "get_task_info", {})) == {"wrapped"}
    assert "rows" in rec.call("agent", "fetch_page", {"page": 1})
    bad = rec.call("agent", "fetch_page", [1])
    assert bad == {"error": "fetch_page: arguments must be a JSON object", "arguments_sent": [1]}
    unknown = rec.call("agent", "nope", "x")
    assert unknown["error"].startswith("unknown tool 'nope'")
    assert unknown["arguments_sent"] == "x"
    assert [(e.seq, e.name, e.args) for e in rec.events] == [
        (0, "get_task_info", {}), (1, "fetch_page", {"page": 1}), (2, "fetch_page", {}),
        (3, "nope", {})]
    assert rec.tool_calls == 4


SURROGATE_ERROR = (": the arguments hold a lone surrogate (a \\ud800-style code point, written "
                   "here as its escape), which is not Unicode text; the call was not executed: "
                   "send the text as UTF-8")


def test_a_lone_surrogate_is_refused_and_recorded_as_its_escape() -> None:
    # No record can hold a lone surrogate (canonical JSON is UTF-8): a submission holding one
    # was accepted, and the episode then could not be digested (UnicodeEncodeError: an OpenEnv
    # session broke for good, a served MCP episode was never recorded).
    env = ComtradeEnv("T1_single_page", 0)
    rec = Recorder(env, FakeClock())
    sub = {"data_jsonl": "", "metadata_json": "{}", "run_log": "a\ud800b"}
    assert rec.call("agent", "submit_results", sub) == {"error": "submit_results"
                                                        + SURROGATE_ERROR}
    assert rec.call("agent", "fetch_page", {"p\udfffage": [1, "\ud83d"]}) == {
        "error": "fetch_page" + SURROGATE_ERROR}
    assert env.submitted is None and env.requests_used == 0  # neither call was executed
    assert [(e.name, e.args) for e in rec.events] == [
        ("submit_results", {"data_jsonl": "", "metadata_json": "{}", "run_log": "a\\ud800b"}),
        ("fetch_page", {"p\\udfffage": [1, "\\ud83d"]})]
    assert digest([e.args for e in rec.events])  # the record can be written
    # text that is Unicode (a surrogate pair's character included) is untouched
    ok = {"data_jsonl": "", "metadata_json": "{}", "run_log": "\U0001f600 é"}
    assert rec.call("agent", "submit_results", ok)["status"] == "accepted"
    assert rec.events[-1].args == ok and rec.tool_calls == 3


@pytest.mark.parametrize("args", [
    {"page": 1, "page_size": "\ud800"},  # after an ASCII key and an int
    {"page": 1.5, "x": True, "y": None, "z": ["ok", "\udc00"]},  # nested, after scalars
    {"page": 1, "\udfff": 2},  # a key
    {"page": 1, "x": {"y": "é\ud800"}},  # non-ASCII text holding one, nested
])
def test_the_ascii_fast_path_never_lets_a_surrogate_through(args: dict[str, Any]) -> None:
    # Most calls skip the surrogate walk (ASCII keys, ASCII or scalar values); any other
    # value, at any depth, still goes through it and is refused.
    rec = Recorder(ComtradeEnv("T1_single_page", 0), FakeClock())
    assert rec.call("agent", "fetch_page", args) == {"error": "fetch_page" + SURROGATE_ERROR}
    assert digest(rec.events[-1].args)  # recorded escaped


def test_the_ascii_fast_path_matches_the_walk() -> None:
    for args in ({}, {"page": 2}, {"a": 1.0, "b": False, "c": None, "d": "text"},
                 {"a": "é"}, {"a": [1]}, {1: 2}):
        if _surely_unicode(args):
            assert _escaped_surrogates(args) is None
    assert _surely_unicode({"page": 2, "page_size": 500, "q": "x"})
    assert not _surely_unicode({"a": "é"}) and not _surely_unicode({"a": [1]})


@pytest.mark.parametrize(("sent", "kept"), [
    ([1, 2], [1, 2]),  # what an LLM sends as `"arguments": "[1, 2]"`, parsed
    ("[1, 2]", "[1, 2]"),  # the raw text of arguments that were not parsed
    ('{"page": 1', '{"page": 1'),  # not JSON at all
    (3, 3), (2.5, 2.5), (True, True), (None, None), ([], []), ("", ""), (0, 0),
    ((1, "a"), [1, "a"]),  # a tuple is written as the list it is in JSON
    ("a\ud800b", "a\\ud800b"),  # a lone surrogate is kept as its escape
    ([{"page": 1}], [{"page": 1}]),
])
def test_arguments_that_are_not_an_object_are_refused_and_kept(sent: Any, kept: Any) -> None:
    # They were recorded as {}: the record said the call had no arguments (and a replay of it
    # would have called the tool without any). The refusal now keeps what was sent.
    env = ComtradeEnv("T1_single_page", 0)
    rec = Recorder(env, FakeClock())
    obs = rec.call("agent", "get_task_info", sent)
    assert obs["error"] == "get_task_info: arguments must be a JSON object"
    (ev,) = rec.events
    assert ev.result is obs  # what the agent saw is what the record holds
    assert (ev.kind, ev.name, ev.args) == ("tool_call", "get_task_info", {})
    plain = decode_json(canonical_json(ev))  # what the store and every export hold
    assert plain["args"] == {} and plain["result"]["arguments_sent"] == kept
    assert env.requests_used == 0 and rec.tool_calls == 1


def test_non_finite_numbers_sent_as_arguments_round_trip() -> None:
    rec = Recorder(ComtradeEnv("T1_single_page", 0), FakeClock())
    rec.call("agent", "fetch_page", [float("nan"), float("inf")])
    text = canonical_json(rec.events[-1])
    assert b'"arguments_sent":[{"$float":"nan"},{"$float":"inf"}]' in text
    back = decode_json(text)["result"]["arguments_sent"]
    assert back[0] != back[0] and back[1] == float("inf")


def test_a_value_with_no_json_form_is_kept_as_its_repr() -> None:
    # An in-process policy may hand over any Python value: the record must still be writable.
    assert kept_arguments({3}) == {"arguments_sent_repr": "{3}"}
    assert kept_arguments(b"x\xff") == {"arguments_sent_repr": "b'x\\xff'"}
    assert kept_arguments([{1: 2}]) == {"arguments_sent_repr": "[{1: 2}]"}
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    (key, text), = kept_arguments(deep).items()  # kept in full, however deep
    assert key == "arguments_sent_repr" and text == "[" * 100_001 + "]" * 100_001
    rec = Recorder(ComtradeEnv("T1_single_page", 0), FakeClock())
    assert rec.call("agent", "fetch_page", {3})["arguments_sent_repr"] == "{3}"
    assert digest(rec.events[-1])  # the record can be written
