"""The fixed-trajectory judge audit against judges on a fake OpenAI-compatible server.

The campaign store is built once per module: `agm diagnose` only reads it (each test writes
its own `--out`). The dead-endpoint test's judge client waits out its one retry on a fake
clock that records the wait instead of sleeping 1 s per cell.
"""

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.agents.llm.client import BACKOFF_BASE_S
from agentmetrology.cli.main import app
from agentmetrology.diagnose import judge
from agentmetrology.diagnose.judge import parse_verdict
from agentmetrology.diagnose.judge_brief import judge_case, judge_prompt
from agentmetrology.envs.registry import get_env
from agentmetrology.records import BillableAttempt
from agentmetrology.records.clock import FakeClock
from agentmetrology.report.diagnose_report import agreement_interval, judge_tokens
from agentmetrology.run.episode import run_one
from support.fake_openai import FakeOpenAI, text
from support.stores import record_campaign

CAMPAIGN = """
[campaign]
name = "judge"
tasks = ["T3_duplicates", "T5_server_error_500"]
seeds = "0-1"
levels = ["L2"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "fabricator"
kind = "scripted"
agent = "scripted:fabricator"
"""


def name_sensitive(body: dict[str, Any]) -> dict[str, Any]:
    """A judge fooled by presentation: renamed tools look like failure to it."""
    prompt = body["messages"][-1]["content"]
    return text("FAIL" if "op_" in prompt else "PASS, looks fine")


def test_views_carry_the_same_facts() -> None:
    spec = get_env("comtrade")
    ep = run_one(spec, "T3_duplicates", 0, "scripted:careful", "L2").episode
    case = judge_case(spec, "e", ep)
    views = {v: judge_prompt(case, v) for v in ("original", "repeat", "alias", "format")}
    assert views["original"] == views["repeat"]
    assert "fetch_page" not in views["alias"] and "op_" in views["alias"]
    assert views["format"] != views["original"]
    assert parse_verdict("pass.") == "PASS" and parse_verdict("PASS or FAIL?") is None
    assert parse_verdict("I cannot tell") is None
    assert parse_verdict("Insufficient: no rows shown") == "INSUFFICIENT"
    assert parse_verdict("PASS, or INSUFFICIENT") is None


def test_the_judge_is_shown_what_a_grader_needs() -> None:
    spec = get_env("comtrade")
    ep = run_one(spec, "T3_duplicates", 0, "scripted:careful", "L2").episode
    assert spec.prompts is not None
    prompt = judge_prompt(judge_case(spec, "e", ep), "original")
    statement = spec.prompts.task_message(spec.tasks["T3_duplicates"], "L2", spec.max_steps)
    assert statement in prompt  # the task exactly as the agent was given it
    assert spec.prompts.instructions["L2"] in prompt  # the success criteria
    tools = spec.make("T3_duplicates", 0, "seeded", "clean").tools
    for name, tool in tools.items():
        assert f"- {name}: {tool.spec.description}" in prompt
    assert "called submit_results(" in prompt and "Ended: submitted." in prompt
    assert "PASS, FAIL or INSUFFICIENT" in prompt


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_campaign(tmp_path_factory.mktemp("judge-store"), CAMPAIGN, "s")


def test_a_presentation_sensitive_judge_is_caught(store: Path, tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(name_sensitive, 1000)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o"),
                                       "--judge-model", "judge-a", "--base-url", srv.base_url,
                                       "--judge-calls", "2"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "o" / "diagnose.json").read_text())
    ja = doc["judge_audit"]
    assert ja["episodes"] == 8 and ja["cells"] == 8 * 4 * 2 and ja["unknown_cells"] == 0
    views = ja["judges"]["llm:judge-a"]["views"]
    assert views["repeat"]["disagreement"] == 0.0  # the baseline: identical views agree
    assert views["alias"]["disagreement"] == 1.0 and views["alias"]["excess_over_repeat"] == 1.0
    assert views["format"]["disagreement"] == 0.0
    native = ja["judges"]["llm:judge-a"]["with_native_reward"]
    assert native["n"] == 8 and native["raw_agreement"] == 0.5  # it passes the fabricator too
    assert "Fixed-trajectory judge audit" in (tmp_path / "o" / "report.md").read_text()


def test_unparseable_verdicts_are_unknown_never_a_verdict(store: Path, tmp_path: Path) -> None:
    script = itertools.islice(itertools.cycle([text("Hard to say."), text("PASS")]), 1000)
    with FakeOpenAI(script) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o"),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "2", "--judge-episodes", "2", "--json"])
    assert res.exit_code == 0, res.stderr
    ja = json.loads(res.stdout)["judge_audit"]
    assert ja["unknown_cells"] == 8 and ja["cells"] == 16
    assert "unparseable verdict" in next(iter(ja["unknown_reasons"]))


class _RecordingClock(FakeClock):
    """A fake clock that also keeps every wait the client asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    async def sleep(self, seconds: float) -> None:
        """Record the wait and advance the fake time."""
        self.waits.append(seconds)
        await super().sleep(seconds)


def test_a_dead_judge_endpoint_is_unknown_not_a_crash(store: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _RecordingClock()  # every judge client of both runs waits on this one
    monkeypatch.setattr(judge, "RealClock", lambda: clock)
    res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o"),
                                   "--judge-model", "j", "--base-url", "http://127.0.0.1:9/v1",
                                   "--judge-calls", "1", "--judge-episodes", "1", "--json"])
    assert res.exit_code == 0, res.stderr
    ja = json.loads(res.stdout)["judge_audit"]
    assert ja["unknown_cells"] == ja["cells"] == 4
    table = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o2"),
                                     "--judge-model", "j", "--base-url", "http://127.0.0.1:9/v1",
                                     "--judge-calls", "1", "--judge-episodes", "1"])
    assert "UNKNOWN, excluded): 4 of 4" in table.stdout and "judge call failed" in table.stdout
    # each of the 4 + 4 calls was retried once (max_retries=1) after the first backoff step
    assert clock.waits == [BACKOFF_BASE_S] * 8
    assert ja["judges"]["llm:j"]["views"]["alias"]["disagreement"] is None


def _insufficient_on_t5(body: dict[str, Any]) -> dict[str, Any]:
    """A judge that finds the T5 records insufficient and passes the rest."""
    prompt = body["messages"][-1]["content"]
    return text("INSUFFICIENT: cannot see" if "(task T5_server_error_500," in prompt
                else "PASS")


def test_every_request_carries_the_task_and_insufficient_is_counted_apart(
        store: Path, tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(_insufficient_on_t5, 1000)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o"),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1", "--json"])
        requests = [dict(r) for r in srv.requests]
    assert res.exit_code == 0, res.stderr
    assert len(requests) == 8 * 4
    for r in requests:
        system, user = (m["content"] for m in r["messages"])
        assert "INSUFFICIENT" in system
        assert user.startswith("## Task given to the agent\nTask T") and "## Trajectory" in user
        assert "## Success criteria" in user and "## Tools available" in user
    ja = json.loads(res.stdout)["judge_audit"]
    views = ja["judges"]["llm:j"]["views"]
    assert views["original"]["verdicts"] == {"PASS": 4, "FAIL": 0, "INSUFFICIENT": 4,
                                             "UNKNOWN": 0}
    assert ja["insufficient_cells"] == 4 * 4
    insufficient = 4
    assert ja["unknown_cells"] == 0  # INSUFFICIENT is an answer, not a failed call
    native = ja["judges"]["llm:j"]["with_native_reward"]
    assert native["n"] == 8 - insufficient  # only PASS/FAIL majorities are compared
    assert native["tasks"] == 1 and "task-cluster bootstrap" in native["interval_method"]
    # one task: no interval (a bootstrap over it gives it back every time), and why
    assert native["interval"] is None and native["interval_note"].startswith(
        "no interval: 1 cluster; a bootstrap over 1 cluster has 1 distinct resample")
    assert 0.0 <= native["raw_agreement"] <= 1.0
    assert ja["shown"]["parts"][0].startswith("task statement")
    spent = ja["billable_attempts"]["llm:j"]
    assert spent["attempts"] == 32 and spent["failed"] == 0 and len(spent["list"]) == 32


def test_a_judge_attempt_without_token_counts_makes_the_totals_unknown() -> None:
    ok = BillableAttempt("r1", "p", "j", "q1", 100, 10, 0, 0.5, 0.1, "ok")
    lost = BillableAttempt("r2", "p", "j", None, None, None, None, None, 60.0, "timeout")
    spent = judge._attempts({"llm:j": [ok, lost], "llm:k": [ok, ok]})
    j, k = spent["llm:j"], spent["llm:k"]
    assert (j["input_tokens"], j["output_tokens"], j["cost"]) == (None, None, None)
    assert (j["input_tokens_known"], j["output_tokens_known"], j["tokens_unknown"]) == (100, 10,
                                                                                        1)
    assert (k["input_tokens"], k["output_tokens"], k["tokens_unknown"]) == (200, 20, 0)
    assert judge_tokens(j) == ("at least 100 input and 10 output tokens (1 attempt(s) with "
                               "unknown token counts)")
    assert judge_tokens(k) == "200 input and 20 output tokens"


def test_the_agreement_interval_prints_none_below_3_tasks_and_says_so() -> None:
    # one task: the interval read [0.750, 0.750] in the report and the terminal (certainty)
    def fmt(x: float) -> str:
        return f"{x:.3f}"

    assert agreement_interval({"interval": [0.5, 0.75], "tasks": 4}, fmt) == "[0.500, 0.750]"
    assert agreement_interval({"interval": None, "interval_note": "no interval: 1 cluster; ...",
                               "tasks": 1}, fmt) == "no interval (n = 1 task, needs 3)"
    assert agreement_interval({}, fmt) == "—"  # no episode compared
