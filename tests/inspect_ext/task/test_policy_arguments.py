"""Tool-call arguments Inspect parsed that no record can hold are malformed, as on our path."""

from __future__ import annotations

from inspect_ai.tool import ToolCall

from agentmetrology.inspect_ext.task.policy import _model_call


def test_arguments_too_deep_or_not_text_are_malformed_not_executed() -> None:
    deep: dict[str, object] = {"a": 1}
    for _ in range(70):
        deep = {"a": deep}
    cases = {"deep": deep, "lone": {"q": "x\ud800"}, "fine": {"q": "\U0001f600", "n": [1]}}
    calls = {k: _model_call(ToolCall(id=k, function="fetch_page", arguments=v))
             for k, v in cases.items()}
    assert [(c.args, c.error) for c in calls.values()] == [
        (None, "arguments are nested deeper than 64 levels"),
        (None, "arguments hold a lone surrogate ('\\ud800'), which is not text"),
        ({"q": "\U0001f600", "n": [1]}, None)]
