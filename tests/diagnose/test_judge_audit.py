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
from agentmetrology.diagnose.judge import parse_verdict, trajectory_text
from agentmetrology.envs.registry import get_env
from agentmetrology.records.clock import FakeClock
from agentmetrology.run.episode import run_one
from support.fake_openai import FakeOpenAI, text
from support.recorded_store import record_campaign

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
    tools = ["fetch_page", "get_task_info", "submit_results"]
    views = {v: trajectory_text(ep, v, tools) for v in ("original", "repeat", "alias", "format")}
    assert views["original"] == views["repeat"]
    assert "fetch_page" not in views["alias"] and "op_" in views["alias"]
    assert views["format"] != views["original"]
    assert parse_verdict("pass.") == "PASS" and parse_verdict("PASS or FAIL?") is None
    assert parse_verdict("I cannot tell") is None


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
