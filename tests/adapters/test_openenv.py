"""Registered environments as OpenEnv environments, driven by OpenEnv's own WebSocket client.

The server is OpenEnv's FastAPI app on 127.0.0.1 (port 0) in a thread; the client is an
`openenv.core.EnvClient`. Moves come from the environments' own model-free policies, so a
"correct" and a "fabricating" sequence are the ones `agm run` scores.

Which processes: `agm serve openenv` serving until Ctrl-C, and refusing without the extra (a
fresh interpreter where `openenv` cannot be imported), are real `agm` processes; the refusal of
a port in use runs `cli.main.main` in this process (`support.agm_runs.run_main`: the same argv,
stdout, stderr and exit code, and a timeout that fails a command which serves instead of
refusing), which saves ~1 s of imports.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from agentmetrology.adapters.extras import MissingExtraError, require
from agentmetrology.adapters.openenv_env import (
    AgmAction,
    AgmEnvClient,
    AgmEnvironment,
    defaults_for,
    running,
)
from agentmetrology.adapters.session import AdapterError
from agentmetrology.agents.scaffolds.runner import brief_for
from agentmetrology.envs import registry
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.policy import Question, Stop
from agentmetrology.run.episode import make_env, make_policy, run_one
from agentmetrology.runtime.drive import drive
from support.agm_runs import run_main

# openenv-core 0.2.0's client opens its socket the way websockets 14+ deprecates; not ours.
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


@pytest.fixture(scope="module")
def comtrade_url() -> Iterator[str]:
    with running("comtrade", task="T3_duplicates", level="L2") as url:
        yield url


def play(url: str, env: str, agent: str, task: str, seed: int, level: str,
         **reset: Any) -> list[Any]:
    """Play `agent`'s moves through the client; return every StepResult (reset first)."""
    spec = registry.get_env(env)
    policy = make_policy(spec, agent)
    policy.reset(brief_for(spec, make_env(spec, task, seed, spec.profiles[0], "clean"), level,
                           spec.max_steps, FakeClock()))
    with AgmEnvClient(base_url=url) as client:
        results = [client.reset(task=task, seed=seed, level=level, **reset)]
        while not results[-1].done:
            obs = results[-1].observation
            if obs.pending == "decide":
                q = obs.question
                answer = drive(policy.decide(Question(q["decision"], tuple(q["options"]),
                                                      q["fallback"], q["text"], q["facts"])))
                action = AgmAction(kind="decide", decision=answer)
            else:
                move = drive(policy.act(obs.tool_result))
                action = AgmAction(kind="stop", text=move.text) if isinstance(move, Stop) \
                    else AgmAction(tool=move.name, args=move.args)
            results.append(client.step(action))
            assert len(results) < 100
    return results


def test_a_correct_sequence_earns_reward_one(comtrade_url: str) -> None:
    results = play(comtrade_url, "comtrade", "scripted:careful", "T3_duplicates", 7, "L2")
    first, last = results[0], results[-1]
    assert first.observation.brief["owned"] == ["retry", "pagination", "dedup", "totals_drop",
                                                "reemission", "submission"]
    assert [t["name"] for t in first.observation.brief["tools"]] == [
        "get_task_info", "fetch_page", "submit_results"]
    assert all(r.reward == 0.0 and not r.done for r in results[:-1])
    assert last.done and last.reward == 1.0
    obs = last.observation
    assert (obs.score_status, obs.reward_scorer, obs.termination) == \
        ("PASS", "ground_truth_f1", "submitted")
    # The reward is what `agm run` scores for the same agent, task, seed and level.
    ran = run_one(registry.get_env("comtrade"), "T3_duplicates", 7, "scripted:careful", "L2")
    assert obs.submission_sha256 == ran.episode.digests["submission"]
    assert [a["score"] for a in obs.assessments] == [a.score for a in ran.assessments]


def test_a_fabricating_sequence_earns_zero_though_the_judge_gives_more(comtrade_url: str) -> None:
    last = play(comtrade_url, "comtrade", "scripted:fabricator", "T3_duplicates", 7, "L2")[-1]
    assert last.done and last.reward == 0.0
    by_kind = {a["kind"]: a for a in last.observation.assessments}
    assert by_kind["outcome"]["status"] == "FAIL" and by_kind["outcome"]["score"] == 0.0
    assert by_kind["shape"]["scorer"] == "shape_judge" and by_kind["shape"]["score"] == 98.7


def test_the_same_seed_gives_the_same_episode(comtrade_url: str) -> None:
    runs = [play(comtrade_url, "comtrade", "scripted:careful", "T3_duplicates", 7, "L2")
            for _ in range(2)]
    dumps = [[r.observation.model_dump_json() for r in run] for run in runs]
    assert dumps[0] == dumps[1]
    other = play(comtrade_url, "comtrade", "scripted:careful", "T3_duplicates", 8, "L2")
    assert other[-1].observation.submission_sha256 != runs[0][-1].observation.submission_sha256


def test_the_level_decides_who_owns_the_decisions(comtrade_url: str) -> None:
    l2 = play(comtrade_url, "comtrade", "scripted:fabricator", "T3_duplicates", 7, "L2")
    l0 = play(comtrade_url, "comtrade", "scripted:fabricator", "T3_duplicates", 7, "L0")
    # At L0 the harness owns the submission: the fabricated payload is intercepted.
    assert l0[0].observation.brief["owned"] == [] and l0[0].observation.level == "L0"
    assert (l0[-1].reward, l2[-1].reward) == (1.0, 0.0)
    assert l0[-1].observation.submission_sha256 != l2[-1].observation.submission_sha256
    # At L1 the harness pages; the policy is asked only RETRY or SKIP on a fault.
    l1 = play(comtrade_url, "comtrade", "l1:always-retry", "T4_rate_limit_429", 3, "L1")
    asked = [r.observation for r in l1 if r.observation.pending == "decide"]
    assert asked and all(o.question["decision"] == "retry" for o in asked)
    assert all(o.pending != "act" for o in (r.observation for r in l1))
    assert l1[0].observation.brief["owned"] == ["retry"]
    assert l1[-1].reward == run_one(registry.get_env("comtrade"), "T4_rate_limit_429", 3,
                                    "l1:always-retry", "L1").assessments[0].score


def test_a_plugin_environment_through_the_same_adapter() -> None:
    with running("permission") as url:
        good = play(url, "permission", "scripted:within", "flag_overdue", 3, "L2")[-1]
        bad = play(url, "permission", "scripted:careless", "flag_overdue", 3, "L2")[-1]
    assert (good.reward, good.observation.reward_scorer, good.observation.score_status) == \
        (1.0, "goal", "PASS")
    assert (bad.reward, bad.observation.score_status) == (0.0, "FAIL")


def test_a_measurement_failure_is_no_reward_not_zero(toy_sum: str) -> None:
    with running(toy_sum, task="sum3") as url, AgmEnvClient(base_url=url) as client:
        client.reset(seed=1)
        last = client.step(AgmAction(tool="submit_total", args={"total": "many"}))
    assert last.done and last.reward is None
    assert last.observation.score_status == "INVALID"
    assert last.observation.reasons == ["total is not an integer"]


def test_bad_requests_are_errors_and_the_session_survives(comtrade_url: str) -> None:
    with AgmEnvClient(base_url=comtrade_url) as client:
        with pytest.raises(RuntimeError, match="unknown task 'T99'"):
            client.reset(task="T99")
        with pytest.raises(RuntimeError, match="no level 'L7'"):
            client.reset(level="L7")
        with pytest.raises(RuntimeError, match="unknown reset argument"):
            client.reset(colour="red")
        with pytest.raises(RuntimeError, match="max_steps must be a positive integer"):
            client.reset(max_steps="many")
        with pytest.raises(RuntimeError, match="task must be a string"):
            client.reset(task=3)
        with pytest.raises(RuntimeError, match="reset first"):
            client.step(AgmAction(tool="fetch_page", args={"page": 1}))
        first = client.reset(seed=7)  # the server defaults: T3_duplicates at L2
        assert (first.observation.task, first.observation.level) == ("T3_duplicates", "L2")
        with pytest.raises(RuntimeError, match="asks for a tool call"):
            client.step(AgmAction(kind="decide", decision="RETRY"))
        assert client.step(AgmAction(kind="stop")).done
        with pytest.raises(RuntimeError, match="episode is over"):
            client.step(AgmAction(kind="stop"))
        state = client.state()
        assert (state.step_count, state.task, state.done) == (1, "T3_duplicates", True)


def test_without_an_outcome_scorer_there_is_no_reward() -> None:
    import dataclasses

    spec = registry.get_env("comtrade")
    judged = dataclasses.replace(spec, scorers=spec.scorers[1:])  # only the shape judge
    with pytest.raises(AdapterError, match="no outcome scorer"):
        AgmEnvironment(judged, defaults_for(spec))


def test_a_missing_extra_names_what_to_install() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install 'agentmetrology\[openenv\]'"):
        require("openenv_not_installed_here", "openenv", "the OpenEnv adapter")


def _agm(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "agentmetrology.cli.main", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_agm_serve_openenv_serves_on_loopback() -> None:
    proc = _agm("serve", "openenv", "permission", "--port", "0", "--seed", "3")
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.fullmatch(r"OpenEnv server for 'permission': (http://127\.0\.0\.1:\d+)/ "
                             r"\(Ctrl-C to stop\)\n", line)
        assert match, line
        last = play(match.group(1), "permission", "scripted:within", "flag_overdue", 3, "L2")[-1]
        assert (last.reward, last.observation.score_status) == (1.0, "PASS")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    assert proc.returncode == 0


def test_agm_serve_openenv_refuses_a_port_in_use_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        res = run_main(["serve", "openenv", "comtrade", "--port", str(port)], timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (f"error: port {port} on 127.0.0.1 is in use; choose another with --port "
                   "(or --port 0 for any free port)\n")


def test_agm_serve_openenv_without_the_extra_is_one_line() -> None:
    hide = ("import sys; sys.modules['openenv'] = None; "
            "from agentmetrology.cli.main import main; main()")
    res = subprocess.run([sys.executable, "-c", hide, "serve", "openenv", "comtrade"],
                         capture_output=True, text=True, timeout=60)
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == ("error: the OpenEnv adapter needs the optional extra: pip install "
                          "'agentmetrology[openenv]'\n")


def test_the_stateless_http_routes_refuse_in_one_line(comtrade_url: str) -> None:
    import httpx

    reset = httpx.post(f"{comtrade_url}/reset", json={"seed": 7, "task": "T3_duplicates"})
    assert reset.status_code == 200 and reset.json()["observation"]["pending"] == "act"
    step = httpx.post(f"{comtrade_url}/step", json={"action": {"kind": "stop"}})
    assert (step.status_code, step.json()) == (400, {"error": "no episode: reset first"})
    bad = httpx.post(f"{comtrade_url}/reset", json={"task": "T99"})
    assert bad.status_code == 400 and bad.json()["error"].startswith("unknown task 'T99'")


@pytest.mark.parametrize("env_name", registry.env_names())
def test_every_registered_environment_gives_the_reward_agm_run_scores(env_name: str) -> None:
    spec = registry.get_env(env_name)
    task, level = next(iter(spec.tasks)), spec.levels[-1]
    outcome = next(i for i, s in enumerate(spec.scorers) if s.kind == "outcome")
    played = 0
    for agent in spec.agents:
        policy = make_policy(spec, agent)
        if level not in policy.levels:
            continue
        env = AgmEnvironment(spec, defaults_for(spec, task, level, 2))
        obs = env.reset()
        policy.reset(env.session.brief)  # type: ignore[union-attr]
        while not obs.done:
            move = drive(policy.act(obs.tool_result))
            obs = env.step(AgmAction(kind="stop") if isinstance(move, Stop)
                           else AgmAction(tool=move.name, args=move.args))
        ran = run_one(spec, task, 2, agent, level)
        assert obs.reward == ran.assessments[outcome].score, agent
        assert obs.submission_sha256 == ran.episode.digests.get("submission"), agent
        played += 1
    assert played >= 3


def test_a_lone_surrogate_in_an_action_is_an_error_observation_and_the_episode_goes_on() -> None:
    # A WebSocket message is read by json.loads, which accepts "\ud800": a submission holding
    # one once broke the session for good ("cannot reuse already awaited coroutine"), no reward.
    env = AgmEnvironment(registry.get_env("comtrade"),
                         defaults_for(registry.get_env("comtrade"), "T1_single_page", "L2"))
    env.reset(seed=0)
    bad = env.step(AgmAction(tool="submit_results", args={
        "data_jsonl": "", "metadata_json": "{}", "run_log": "\ud800"}))
    assert (bad.done, bad.reward, bad.pending) == (False, 0.0, "act")
    assert bad.tool_result is not None
    assert bad.tool_result["error"].startswith("submit_results: the arguments hold a lone "
                                               "surrogate")
    last = env.step(AgmAction(tool="submit_results", args={
        "data_jsonl": "", "metadata_json": "{}", "run_log": ""}))
    assert (last.done, last.reward, last.score_status, last.termination) == (
        True, 0.0, "FAIL", "submitted")
    assert env.session is not None and env.session.episode is not None
    assert [e.args["run_log"] for e in env.session.episode.events] == ["\\ud800", ""]


def test_a_call_with_arguments_of_the_wrong_type_is_recorded_and_answered() -> None:
    # OpenEnv validated the action before the episode saw it: `args: [1, 2]` or `tool: 5`
    # came back as a validation error frame and nothing was recorded (DESIGN.md: anything a
    # client sends is recorded; the tool answers with an error observation).
    import json

    from websockets.sync.client import connect

    sent = [{"tool": "fetch_page", "args": [1, 2]}, {"tool": 5, "args": {}},
            {"tool": "fetch_page", "args": "page=1"}, {"tool": "fetch_page", "args": {"page": 1}}]
    with running("comtrade", task="T1_single_page", level="L2") as url, \
            connect(url.replace("http://", "ws://") + "/ws", open_timeout=30) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "observation"
        frames = []
        for data in sent:
            ws.send(json.dumps({"type": "step", "data": data}))
            frames.append(json.loads(ws.recv(timeout=30)))
    assert [f["type"] for f in frames] == ["observation"] * 4, frames
    results = [f["data"]["observation"]["tool_result"] for f in frames]
    assert results[0]["error"] == "fetch_page: arguments must be a JSON object"
    assert results[1]["error"].startswith("unknown tool '5'")
    assert "rows" in results[3]  # the episode goes on
    # in process: the episode's events keep what was sent beside each refusal
    spec = registry.get_env("comtrade")
    env = AgmEnvironment(spec, defaults_for(spec, "T1_single_page", "L2"))
    env.reset(seed=0)
    for data in sent:
        env.step(AgmAction.model_validate(data))
    assert env.step(AgmAction(kind="stop")).reward == 0.0
    assert env.session is not None and env.session.episode is not None
    events = [e for e in env.session.episode.events if e.kind == "tool_call"]
    assert [e.name for e in events] == ["fetch_page", "5", "fetch_page", "fetch_page"]
    assert "[1, 2]" in json.dumps(events[0].result) and "page=1" in json.dumps(events[2].result)


@pytest.mark.parametrize("level", ["L0", "L2"])  # at L1 the model is asked only to decide
def test_a_tool_name_of_any_json_type_is_an_error_observation_at_every_level(level: str) -> None:
    # a harness program looks the model's tool name up: a list there would raise TypeError
    spec = registry.get_env("comtrade")
    env = AgmEnvironment(spec, defaults_for(spec, "T1_single_page", level))
    env.reset(seed=0)
    for tool in ([1], {"a": 1}, None, 2.5):
        obs = env.step(AgmAction.model_validate({"tool": tool, "args": {"page": 1}}))
        assert obs.pending == "act" and obs.tool_result is not None, (tool, obs)
        assert obs.tool_result["error"].startswith("unknown tool")
