"""`agm view` on an Inspect AI `.eval` log: its samples with their scores (null when errored or
unscored, never 0) and each sample's conversation, as an LLM episode's is shown."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agentmetrology.view import create_app, detect_source
from agentmetrology.view.inspect_pages import chat_message


@pytest.fixture(scope="module")
def real_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log tests/inspect_ext/logs/inspect_log_writer.py writes (six samples x two epochs)."""
    if importlib.util.find_spec("inspect_ai") is None:
        pytest.skip("inspect-ai is not installed (pip install inspect-ai zstandard)")
    from support.inspect_logs import ARCHIVE_DEMO, shared_logs

    return shared_logs(tmp_path_factory)[ARCHIVE_DEMO]


def test_samples_and_one_sample_s_conversation(real_log: Path) -> None:
    source = detect_source(real_log)
    assert source.kind == "inspect"
    client = TestClient(create_app(source), base_url="http://127.0.0.1")
    samples = client.get("/").text
    ids = re.findall(r'href="/sample\?id=([^"]+)"', samples)
    assert len(ids) == 12  # 6 samples x 2 epochs, none dropped
    s0 = next(i for i in ids if "%2Fs0%2F1" in i or "/s0/1" in i)
    page = client.get("/sample?id=" + s0.replace("&amp;", "&"))
    assert page.status_code == 200
    convo = page.text.split('id="transcript"', 1)[1]
    # the task's question, the model's call of lookup, the tool's answer, the final answer
    assert re.findall(r'class="turn turn-(\w+)"', convo) == [
        "user", "assistant", "tool", "assistant"]
    order = [convo.index(s) for s in ("q0", "lookup", "value-of-k1", "final answer")]
    assert order == sorted(order)
    errored = next(i for i in ids if "%2Fs1%2F1" in i or "/s1/1" in i)
    html = client.get("/sample?id=" + errored.replace("&amp;", "&")).text
    assert "null (ungraded" in html and "solver exploded" in html
    assert client.get("/sample?id=nope").status_code == 404


def test_inspect_messages_become_chat_messages() -> None:
    evil = "<script>x</script>"
    m = chat_message({"role": "assistant", "content": [
        {"type": "reasoning", "reasoning": "think"}, {"type": "text", "text": evil},
        {"type": "image", "image": "data:..."}],
        "tool_calls": [{"id": "c1", "function": "lookup", "arguments": {"key": "k"}}]})
    assert m["content"] == f"(reasoning) think\n{evil}\n[image content]"
    assert m["tool_calls"] == [{"id": "c1", "function": {"name": "lookup",
                                                          "arguments": '{"key": "k"}'}}]
    tool = chat_message({"role": "tool", "tool_call_id": "c1", "content": "",
                         "error": {"type": "timeout", "message": "slow"}})
    assert tool["tool_call_id"] == "c1" and tool["content"]["error"]["type"] == "timeout"
    assert chat_message(3) == {"role": "unknown", "content": "3"}
