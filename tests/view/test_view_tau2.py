"""`agm view` on a tau2-bench results file: the simulation list with filters, one simulation."""

from __future__ import annotations

import copy
import re
from html import escape
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agentmetrology.view import create_app, detect_source
from agentmetrology.view.source import ViewSourceError
from archive.tau2_files import GPT_AIRLINE, GPT_TELECOM, QWEN_AIRLINE, raw, shared, write

BASE = "http://127.0.0.1"


def _client(path: Path) -> TestClient:
    return TestClient(create_app(detect_source(path)), base_url=BASE)


def _rows(html: str) -> int:
    body = html.split('<table id="simulations">', 1)[1].split("</table>", 1)[0]
    return len(re.findall(r"<tr>", body.split("<tbody>", 1)[1]))


def test_simulation_list_and_filters() -> None:
    path = shared(QWEN_AIRLINE)
    assert detect_source(path).kind == "tau2"
    client = _client(path)
    page = client.get("/")
    assert page.status_code == 200 and _rows(page.text) == 50
    assert _rows(client.get("/?termination=agent_error").text) == 9  # README: 9 agent errors
    assert _rows(client.get("/?outcome=pass").text) == 9
    assert _rows(client.get("/?outcome=pass&task=4").text) == 3  # tasks 4, 46, 48 by hand
    passed = {s["task_id"] for s in raw(QWEN_AIRLINE)["simulations"]
              if s["reward_info"]["reward"] == 1}
    assert sorted(t for t in passed if "4" in t) == ["4", "46", "48"]


def test_one_simulation_shows_conversation_reward_and_termination() -> None:
    client = _client(shared(GPT_TELECOM))
    sim = raw(GPT_TELECOM)["simulations"][0]
    page = client.get("/simulation", params={
        "id": f"gpt-4.1-telecom-1trial/{sim['task_id']}/0"})
    assert page.status_code == 200
    assert "ended by user simulator" in page.text and "ENV_ASSERTION" in page.text
    items = re.findall(r'<li class="role-(\w+)">', page.text)
    assert len(items) == len(sim["messages"]) and set(items) == {"assistant", "user", "tool"}
    # Drawn as the conversation view draws every transcript: turns, calls, results by call.
    assert page.text.count('<div class="turn turn-') == len(sim["messages"])
    first_call = next(c for m in sim["messages"] for c in m.get("tool_calls") or [])
    assert f"calls <code>{first_call['name']}</code>" in page.text
    assert f"for call <code>{first_call['id']}</code>" in page.text
    assert client.get("/simulation", params={"id": "nope"}).status_code == 404


def test_an_ungraded_simulation_shows_null_never_zero(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(QWEN_AIRLINE))
    data["simulations"][0]["reward_info"] = None
    client = _client(write(tmp_path, "null.json", data))
    page = client.get("/simulation", params={"id": f"null/{data['simulations'][0]['task_id']}/0"})
    assert "null (ungraded: grader_never_ran)" in page.text


def test_a_broken_tau2_file_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"simulations": 3, "info": {"user_info": {}}}')
    with pytest.raises(ViewSourceError, match="not a tau2 results file"):
        create_app(detect_source(bad))



def test_simulations_sharing_an_id_each_show_their_own_conversation(tmp_path: Path) -> None:
    # The page found a simulation's record by its id: two simulations with one id (a file
    # merged from two runs, a runner reusing ids) both showed the last one's conversation.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sims = data["simulations"]
    sims[1]["id"] = sims[0]["id"]
    client = _client(write(tmp_path, "dup.json", data))
    firsts = [next(m for m in sim["messages"] if m["role"] == "user")["content"][:40]
              for sim in sims[:2]]
    assert sims[0]["task_id"] != sims[1]["task_id"] and firsts[0] != firsts[1]
    for sim, first, other in zip(sims[:2], firsts, reversed(firsts), strict=True):
        page = client.get("/simulation", params={"id": f"dup/{sim['task_id']}/0"}).text
        assert escape(first) in page and escape(other) not in page
        assert len(re.findall(r'<li class="role-', page)) == len(sim["messages"])


def test_a_results_file_starting_with_a_byte_order_mark_is_viewed(tmp_path: Path) -> None:
    # The importers read such a file (RFC 8259 lets a parser ignore the mark); before, the
    # viewer refused it as 'neither ... nor a tau2 or tau-bench results file'.
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + shared(QWEN_AIRLINE).read_bytes())
    assert detect_source(path).kind == "tau2"
    assert _rows(_client(path).get("/").text) == 50
