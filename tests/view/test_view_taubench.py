"""`agm view` on a tau-bench (v1) results file: the rows with their rewards, one row's
conversation in order (tool calls with the tool's answer), escaped; null never 0."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from agentmetrology.view import create_app, detect_source

EVIL = '"><script>alert(1)</script>'
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_user_details", "arguments": '{"user_id": "mia_li_3668"}'}}


def _row(task: int, trial: int, reward_info: Any, traj: list[dict[str, Any]]) -> dict[str, Any]:
    return {"task_id": task, "reward": 1.0 if reward_info else 0.0, "trial": trial,
            "info": {"reward_info": reward_info}, "traj": traj}


def _file(tmp_path: Path) -> Path:
    traj = [{"role": "system", "content": "# Airline Agent Policy " + EVIL},
            {"role": "user", "content": "Book me a flight."},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_user_details",
             "content": '{"name": "Mia Li"}'},
            {"role": "assistant", "content": "Done, Mia."}]
    graded = {"reward": 1.0, "info": {"r_actions": True}}
    rows = [_row(0, 0, graded, traj), _row(1, 0, None, traj[:2])]
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(rows))
    return path


def test_rows_and_one_row_s_conversation(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert detect_source(path).kind == "taubench"
    client = TestClient(create_app(detect_source(path)), base_url="http://127.0.0.1")
    rows = client.get("/").text
    assert rows.count('href="/row?id=') == 2 and "gpt-4o" in rows
    assert "null (ungraded" in rows  # the stored 0 of an ungraded row is not a reward
    page = client.get("/row?id=gpt-4o-airline/0/0")
    assert page.status_code == 200
    convo = page.text.split('id="transcript"', 1)[1]
    order = [convo.index(s) for s in ("Airline Agent Policy", "Book me a flight",
                                      "get_user_details", "Mia Li", "Done, Mia.")]
    assert order == sorted(order)  # in order, the call's answer right after the call
    assert "<script" not in page.text and "&lt;script&gt;" in convo
    assert re.findall(r'class="turn turn-(\w+)"', convo) == [
        "system", "user", "assistant", "tool", "assistant"]
    ungraded = client.get("/row?id=gpt-4o-airline/1/0").text
    assert "null (ungraded" in ungraded and "<strong>0" not in ungraded
    assert client.get("/row?id=nope").status_code == 404
