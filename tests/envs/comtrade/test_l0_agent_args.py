"""L0: the agent's fetch_page call reaches the tool, and is recorded, exactly as it was sent.

The harness owns retries, cleaning and the submission at L0, not the agent's arguments: the
tools are the same at every level (docs/comtrade.md, "Tools"), so a call the tool refuses at L2
(a missing page, an unknown argument) is refused at L0 too, uncounted, and the record holds
what the agent sent.
"""

import json
from typing import Any

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.policy import Brief, ToolCall
from agentmetrology.runtime.drive import drive
from agentmetrology.runtime.scripted import ScriptedPolicy, TimedScript
from support.comtrade_runs import COMTRADE, run_episode_async


class Calls(ScriptedPolicy):
    """Sends the given fetch_page arguments in order, then stops."""

    name = "scripted:calls"
    levels = ("L0",)

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        super().__init__()
        self.calls = calls

    def script(self, brief: Brief) -> TimedScript:
        for args in self.calls:
            yield ToolCall("fetch_page", args)


def test_l0_passes_and_records_the_agents_arguments_unchanged() -> None:
    calls: list[dict[str, Any]] = [{}, {"page": 1, "foo": 1}, {"page": 1, "page_size": 3},
                                   {"page": 2}, {"page": 3}]
    env = ComtradeEnv("T3_duplicates", 0)
    ep = drive(run_episode_async(COMTRADE, env, Calls(calls), "L0"))
    fetches = [e for e in ep.events if e.name == "fetch_page"]
    assert [(e.actor, e.args) for e in fetches] == [("agent", c) for c in calls]
    assert fetches[0].result == {"error": "fetch_page: missing required argument(s) page"}
    assert fetches[1].result == {
        "error": "fetch_page: unknown argument(s) foo; expected page, page_size"}
    assert env.requests_used == 3  # the two refused calls reached no service
    assert ep.usage.requests == 3
    sub = ep.submission
    assert sub is not None
    meta = json.loads(sub["metadata_json"])
    assert meta["row_count"] == 25
    # The self-report counts what the service counted: the metadata said 5 requests and the
    # log had request=1..5 (the two refused calls as requests 1 and 2) against 3 counted.
    assert meta["request_count"] == 3 and meta["request_stats"]["total"] == 3
    log = sub["run_log"].splitlines()
    assert [x for x in log if x.startswith("request=")] == [
        "request=1 page=1 attempt=1", "request=2 page=2 attempt=1", "request=3 page=3 attempt=1"]
    assert log[-1] == "complete=true"


def test_l0_retries_reissue_the_agents_call() -> None:
    # T4 seed 0 (seeded): the 429 falls on request 3; the harness re-issues the call as sent.
    env = ComtradeEnv("T4_rate_limit_429", 0)
    calls: list[dict[str, Any]] = [{"page": 1}, {"page": 2}, {"page": 3, "page_size": 10}]
    ep = drive(run_episode_async(COMTRADE, env, Calls(calls), "L0"))
    fetches = [(e.actor, e.args, e.result.get("status")) for e in ep.events
               if e.name == "fetch_page"]
    assert fetches == [("agent", {"page": 1}, None), ("agent", {"page": 2}, None),
                       ("agent", {"page": 3, "page_size": 10}, 429),
                       ("harness", {"page": 3, "page_size": 10}, None)]
    assert env.requests_used == 4


class Submits(ScriptedPolicy):
    """Sends one submit_results call with the given arguments (intercepted at L0)."""

    name = "scripted:submits"
    levels = ("L0",)

    def __init__(self, args: Any) -> None:
        super().__init__()
        self.args = args

    def script(self, brief: Brief) -> TimedScript:
        yield ToolCall("submit_results", self.args)


def test_l0_records_an_intercepted_submission_that_no_tool_would_take() -> None:
    # The intercepted call was recorded as sent: a lone surrogate (legal JSON, "\ud800") left
    # an episode no store could write (UnicodeEncodeError), and arguments nested 600 deep one
    # that canonical JSON could not walk (RecursionError).
    deep: list[Any] = []
    for _ in range(599):
        deep = [deep]
    for args, recorded, kept in (
            ({"data_jsonl": "\ud800", "metadata_json": "{}"},
             {"data_jsonl": "\\ud800", "metadata_json": "{}"}, {}),
            ({"data_jsonl": deep}, {},
             {"arguments_sent_repr": "{'data_jsonl': " + "[" * 600 + "]" * 600 + "}"})):
        ep = drive(run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0),
                                     Submits(args), "L0"))
        (ev,) = [e for e in ep.events if e.kind == "intercepted"]
        assert ev.args == recorded and ev.result == {"passed_through": False, **kept}
        assert canonical_json(ep)  # the episode can be written
