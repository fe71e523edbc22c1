"""An LLM campaign against the fake OpenAI-compatible server keeps its whole conversation:
the store holds it, `agm evidence verify` checks it, the viewer's episode page shows it."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.testclient import TestClient
from typer.testing import CliRunner

from agentmetrology.cli.main import app as cli
from agentmetrology.store.blobs import contents
from agentmetrology.store.verify import verify_store
from agentmetrology.view import create_app, detect_source
from agentmetrology.view.html import Html
from agentmetrology.view.transcript_view import conversation
from run.campaign.campaign_fixtures import query
from view.llm_store_fixtures import KEY


def _episode(root: Path) -> tuple[dict[str, Any], str]:
    ((digest, *key),) = query(root, "SELECT e.episode_digest, a.campaign, a.target, a.task, "
                              "a.seed, a.condition, a.level, a.repeat FROM episodes e JOIN "
                              "administrations a ON a.id = e.administration WHERE a.target = "
                              "'fake-llm'")
    names = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
    blob = root / "blobs" / digest[:2] / digest[2:]
    return json.loads(contents(blob.read_bytes())), "/episode?" + urlencode(dict(zip(names, key,
                                                                            strict=True)))


def _blob(root: Path, digest: str) -> Any:
    return json.loads(contents((root / "blobs" / digest[:2] / digest[2:]).read_bytes()))


def test_the_store_holds_every_message_response_and_request_id(
        llm_store: tuple[Path, list[dict[str, Any]]]) -> None:
    root, requests = llm_store
    episode, _ = _episode(root)
    doc = _blob(root, episode["digests"]["transcript"])
    messages = [_blob(root, d) for d in doc["messages"]]
    exchanges = doc["exchanges"]
    assert len(requests) == len(episode["usage"]["attempts"]) == 1 + len(exchanges)
    # Every request the server received is, message for message, the one the transcript keeps
    # (the first was sent twice: a 429, then the retry; its attempts stay distinct).
    sent = [r["messages"] for r in requests[1:]]
    assert [[messages[i] for i in x["messages"]] for x in exchanges] == sent
    assert exchanges[0]["attempts"] == ["r001.1", "r001.2"]
    assert messages[0]["role"] == "system" and messages[0]["content"]
    assert messages[1]["role"] == "user"
    ids = {a["attempt_id"]: a["request_id"] for a in episode["usage"]["attempts"]}
    for n, x in enumerate(exchanges, 1):
        r = x["response"]
        assert r["content"].startswith("Step ") and r["reasoning_content"].startswith("reason")
        assert r["tool_calls"] and r["tool_calls"][0]["function"]["name"]
        assert r["finish_reason"] == "tool_calls"
        assert r["request_id"] == ids[x["attempts"][-1]] == f"req_{n + 1}"
        assert r["usage"] == {"prompt_tokens": 1000, "completion_tokens": 50,
                              "cached_tokens": 400}
    assert not [p for p in root.rglob("*")
                if p.is_file() and KEY.encode() in contents(p.read_bytes())]


def test_the_episode_page_shows_the_conversation_above_the_evidence(
        llm_store: tuple[Path, list[dict[str, Any]]]) -> None:
    root, _ = llm_store
    episode, url = _episode(root)
    page = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1").get(url)
    assert page.status_code == 200
    html = page.text
    assert html.index('id="conversation"') < html.index('id="key"') \
        < html.index('id="timeline"')
    convo = html.split('id="transcript"', 1)[1].split("<h2>Evidence</h2>", 1)[0]
    doc = _blob(root, episode["digests"]["transcript"])
    assert unescape(re.sub(r"\s+", " ", _blob(root, doc["messages"][0])["content"])[:60]) \
        in unescape(re.sub(r"\s+", " ", convo))
    for x in doc["exchanges"]:
        r = x["response"]
        assert f'id="request-{x["request"]}"' in convo
        assert "&lt;calling&gt;" in convo and "<calling>" not in convo  # escaped, not markup
        assert r["content"].replace("<", "&lt;").replace(">", "&gt;") in convo
        assert r["request_id"] in convo
    assert "r001.1" in convo and "r001.2 (retry)" in convo
    assert convo.count("tool call</span>") == sum(len(x["response"]["tool_calls"])
                                                   for x in doc["exchanges"])
    assert "sent back to the model" in convo and 'id="conversation-scores"' in html


def test_verify_passes_and_one_altered_transcript_byte_fails_it(
        llm_store: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    root, _ = llm_store
    result = CliRunner().invoke(cli, ["evidence", "verify", str(root)])
    assert result.exit_code == 0, result.output
    episode, _ = _episode(root)
    doc = _blob(root, episode["digests"]["transcript"])
    for digest, kind in ((doc["messages"][-1], "transcript_changed"),
                         (episode["digests"]["transcript"], "transcript_changed")):
        copy = tmp_path / digest[:8]
        _copy_store(root, copy)
        path = copy / "blobs" / digest[:2] / digest[2:]
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 1
        path.chmod(0o644)
        path.write_bytes(bytes(data))
        q = verify_store(copy)
        assert q.result != "qualified" and kind in {p.kind for p in q.problems}
        assert CliRunner().invoke(cli, ["evidence", "verify", str(copy)]).exit_code == 1
    missing = tmp_path / "missing"
    _copy_store(root, missing)
    (missing / "blobs" / doc["messages"][0][:2] / doc["messages"][0][2:]).unlink()
    q = verify_store(missing)
    assert q.result == "unavailable" and {p.kind for p in q.problems} == {"transcript_missing"}


def _copy_store(src: Path, dst: Path) -> None:
    import shutil

    shutil.copytree(src, dst)


def test_conversation_pairs_calls_interleaves_events_folds_and_escapes() -> None:
    evil = '"><script>alert(1)</script>'
    call = {"id": "c1", "type": "function",
            "function": {"name": "fetch_page", "arguments": '{"page": 1}'}}
    bad = {"id": "c0", "type": "function", "function": {"name": evil, "arguments": "{oops"}}
    transcript = {
        "messages": [{"role": "system", "content": "sys " + evil},
                     {"role": "user", "content": "task"},
                     {"role": "assistant", "content": None, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
                         {"rows": ["x" * 2000]})}],
        "exchanges": [
            {"request": 1, "messages": [0, 1], "with_tools": True, "attempts": ["r001.1"],
             "started_t": 0.0, "ended_t": 0.0, "response": None},
            {"request": 2, "messages": [0, 1], "with_tools": True,
             "attempts": ["r002.1", "r002.2"], "started_t": 0.0, "ended_t": 0.0,
             "response": {"content": evil, "tool_calls": [bad, call], "finish_reason": evil,
                          "request_id": "req-9", "usage": {"prompt_tokens": 5},
                          "reasoning": "why " + evil}},
            {"request": 3, "messages": [0, 1, 2, 3], "with_tools": True,
             "attempts": ["r003.1"], "started_t": 0.0, "ended_t": 0.0,
             "response": {"content": "done", "tool_calls": [dict(call, id="c2")],
                          "finish_reason": "tool_calls", "request_id": "req-10", "usage": {}}}]}
    episode = {"usage": {"attempts": [{"attempt_id": "r002.1", "outcome": "rate_limited"},
                                      {"attempt_id": "r002.2", "outcome": "ok",
                                       "request_id": "req-9", "cost": 0.5}]},
               "events": [{"seq": 0, "actor": "harness", "kind": "note", "name": evil, "t": 0},
                          {"seq": 1, "actor": "agent", "kind": "tool_call",
                           "name": "fetch_page", "result": {"rows": []}},
                          {"seq": 2, "actor": "environment", "kind": "fault", "name": "drift"},
                          {"seq": 3, "actor": "agent", "kind": "tool_call",
                           "name": "fetch_page", "result": {"last": evil}},
                          {"seq": 4, "actor": "grader", "kind": "grade", "name": "f1"}]}
    html = conversation(Html(), transcript, episode)
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert "No attempt succeeded" in html  # request 1: no response
    assert "malformed arguments: not executed" in html
    assert "r002.2 (retry)" in html and "rate_limited" in html
    # the harness note comes before the first executed call, the fault before the second,
    # the grader's event after the last request
    order = [html.index(s) for s in ("harness event #0", 'id="request-3"',
                                     "environment event #2", "grader event #4")]
    assert order == sorted(order)
    assert "sent back to the model" in html and "from the episode&#x27;s events" in html
    assert "<details><summary>reasoning" in html
    assert re.search(r"<details><summary>\d+ characters", html)  # the long result folds
    assert html.count("sys &quot;&gt;&lt;script") == 1  # the system prompt shown once


def test_the_search_box_marks_the_turns_that_contain_the_text(
        llm_store: tuple[Path, list[dict[str, Any]]]) -> None:
    root, _ = llm_store
    episode, url = _episode(root)
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    plain = client.get(url).text
    assert 'id="transcript-search"' in plain and 'id="search-result"' not in plain
    form = plain.split('id="transcript-search"', 1)[1].split("</form>", 1)[0]
    assert 'name="campaign" value="tx"' in form and 'name="find"' in form
    doc = _blob(root, episode["digests"]["transcript"])
    # every response reasons (folded behind <details>, still found); ignoring case
    html = client.get(url + "&find=REASONING+AT").text
    n = len(doc["exchanges"])
    assert f"{n} of " in html and f'id="match-{n}"' in html and f'id="match-{n + 1}"' not in html
    last = doc["exchanges"][-1]["response"]["reasoning_content"]
    marks = html.split('id="match-', n)[-1]
    assert last in marks  # the last match is the last response's turn
    none = client.get(url + "&" + urlencode({"find": '"><b>absent'})).text
    assert "No turn contains “&quot;&gt;&lt;b&gt;absent”." in none and "<b>absent" not in none
    assert client.get(url + "&find=" + "x" * 201).status_code == 400


def test_search_counts_each_turn_once_and_matches_only_what_is_shown() -> None:
    transcript = {
        "messages": [{"role": "system", "content": "Be careful & exact."},
                     {"role": "user", "content": "task"}],
        "exchanges": [{"request": 1, "messages": [0, 1], "with_tools": False,
                       "attempts": ["r001.1"], "started_t": 0.0, "ended_t": 0.0,
                       "response": {"content": "careful answer", "tool_calls": [],
                                    "finish_reason": "stop", "request_id": "q", "usage": {}}}]}
    html = conversation(Html(), transcript, {"usage": {"attempts": []}, "events": []},
                        "CAREFUL")
    # four turns (system, user, request 1, its response): the system prompt and the answer
    assert "2 of 4 turns contain “CAREFUL”" in html
    assert html.count('class="match"') == 2
    # markup is not searched: "div" is in every block's tags, in none of their text
    html = conversation(Html(), transcript, {"usage": {"attempts": []}, "events": []}, "div")
    assert "No turn contains" in html and 'class="match"' not in html
    assert "& exact" not in conversation(Html(), transcript, {}, "& exact")  # escaped
    assert conversation(Html(), transcript, {}, "& exact").count('class="match"') == 1


def test_the_regrade_page_shows_old_and_new_verdicts_on_the_same_transcript(
        llm_store: tuple[Path, list[dict[str, Any]]], monkeypatch: Any) -> None:
    import dataclasses

    from agentmetrology.view import regrade_page

    root, _ = llm_store
    _, url = _episode(root)
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    assert "/regrade?" in client.get(url).text  # linked from the episode page
    page = client.get(url.replace("/episode?", "/regrade?"))
    assert page.status_code == 200
    rows = page.text.split('id="regrade"', 1)[1].split("</table>", 1)[0]
    assert "changed" not in rows and rows.count(">same<") >= 1  # same scorers: same verdicts
    assert 'id="request-1"' in page.text  # the conversation both verdicts judged
    real = regrade_page.regrade_episode

    def flipped(*args: Any) -> Any:
        first, *rest = real(*args)
        status = "FAIL" if first.status == "PASS" else "PASS"
        return [dataclasses.replace(first, status=status, scorer_version="9.9.9"), *rest]

    monkeypatch.setattr(regrade_page, "regrade_episode", flipped)
    rows = client.get(url.replace("/episode?", "/regrade?")).text.split('id="regrade"', 1)[1]
    assert rows.count("changed") == 1 and "→ 9.9.9" in rows
    assert client.get("/regrade?campaign=x&target=y&task=z&seed=0&condition=clean&level=L2"
                      "&repeat=0").status_code == 404
