"""The recorder's call path: a Tool's own __call__ kept, bad arguments recorded as {}."""

from __future__ import annotations

from typing import Any

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.tools import Observation, Tool
from agentmetrology.runtime.recorder import Recorder


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
    assert bad == {"error": "fetch_page: arguments must be a JSON object"}
    unknown = rec.call("agent", "nope", "x")
    assert unknown["error"].startswith("unknown tool 'nope'")
    assert [(e.seq, e.name, e.args) for e in rec.events] == [
        (0, "get_task_info", {}), (1, "fetch_page", {"page": 1}), (2, "fetch_page", {}),
        (3, "nope", {})]
    assert rec.tool_calls == 4
