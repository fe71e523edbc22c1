"""`--retry-measurement-failures`: infra failures are re-measured, kept as history, cost kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.records.clock import Clock
from agentmetrology.records.errors import InfraError
from agentmetrology.records.policy import Brief, Decision, Move, Question
from agentmetrology.records.tools import Observation
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.plan import plan_campaign
from agentmetrology.store import EvidenceStore
from run.campaign.campaign_fixtures import AsyncScripted, model_free, query, with_llm

KEY = "sk-test-retry-0123456789abcdef"
LLM = "fake-llm"


class FlakyProvider(AsyncScripted):
    """Seed 0: the provider fails the first request of each episode key once (infra_error).

    Seed 1: the agent itself fails every time (agent_error). Every request is billed.
    """

    def __init__(self, target: LLMTarget, clock: Clock, failed_once: set[Any]) -> None:
        super().__init__(target, clock)
        self.failed_once = failed_once
        self.cell: tuple[Any, ...] = ()

    def reset(self, brief: Brief) -> None:
        """Start an episode and remember which cell it is."""
        super().reset(brief)
        self.cell = (brief.task_id, brief.seed, brief.level)

    def _maybe_fail(self) -> None:
        self._bill()
        if self.cell[1] == 1:
            raise RuntimeError("the agent broke")
        if self.cell not in self.failed_once:
            self.failed_once.add(self.cell)
            raise InfraError("provider outage: retries exhausted")

    async def act(self, observation: Observation | None) -> Move:
        """Bill, fail as configured, else play the careful move."""
        self._maybe_fail()
        return await self.inner.act(observation)

    async def decide(self, notice: Question) -> Decision:
        """Bill, fail as configured, else decide like the careful profile."""
        self._maybe_fail()
        return await self.inner.decide(notice)


def _factory(failed_once: set[Any]):  # type: ignore[no-untyped-def]
    def make(target: LLMTarget, clock: Clock) -> FlakyProvider:
        return FlakyProvider(target, clock, failed_once)

    return make


def _config() -> Any:
    return parse_campaign(with_llm(model_free(tasks='["T3_duplicates"]', seeds="0-1")))


def _terminations(store_dir: Path) -> dict[tuple[int, str], str]:
    rows = query(store_dir, "SELECT a.seed, a.level, e.termination FROM episodes e JOIN "
                            "administrations a ON a.id = e.administration WHERE a.target = ?", LLM)
    return {(r[0], r[1]): r[2] for r in rows}


def _run_costs(store_dir: Path) -> dict[int, float]:
    """Return {run id: cost of the episodes (current or superseded) its attempts recorded}."""
    out: dict[int, float] = {}
    for table in ("episodes", "superseded_episodes"):
        for run, cost in query(store_dir, f"SELECT t.run, e.cost FROM {table} e "
                                          "JOIN attempts t ON t.id = e.attempt"):
            out[run] = out.get(run, 0.0) + cost
    return out


def test_measurement_failures_are_re_measured_with_history_and_cost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    config, failed_once, d = _config(), set(), tmp_path / "s"
    with EvidenceStore.open(d, scrub_env=False) as st:
        first = run_campaign(config, st, policy_factory=_factory(failed_once))
        s1 = first.status.targets[LLM]
        assert first.status.complete and s1.failed_infra == 2 and s1.failed_agent == 2
        assert s1.superseded == 0 and s1.cost > 0
        first_cost = first.status.total.cost
        before = _terminations(d)
        assert before == {(0, "L0"): "infra_error", (0, "L2"): "infra_error",
                          (1, "L0"): "agent_error", (1, "L2"): "agent_error"}

        plain = run_campaign(config, st, policy_factory=_factory(failed_once))
        assert plain.launched == 0 and plain.superseded == 0  # unchanged without the flag

        retry = run_campaign(config, st, policy_factory=_factory(failed_once),
                             retry_measurement_failures=True)
        assert retry.superseded == 2 and retry.launched == 2 and retry.recorded == 2
        s = retry.status
        llm = s.targets[LLM]
        assert s.complete and s.total.done == s.total.planned
        assert llm.submitted == 2 and llm.failed_agent == 2 and llm.failed_infra == 0
        assert llm.superseded == 2 and s.total.superseded == 2
        assert _terminations(d) == {**before, (0, "L0"): "submitted", (0, "L2"): "submitted"}

        costs = _run_costs(d)
        assert set(costs) == {1, 3}  # run 2 recorded nothing
        assert s.total.cost == pytest.approx(first_cost + costs[3], rel=0, abs=1e-12)
        assert costs[1] == pytest.approx(first_cost, rel=0, abs=1e-12)
        assert llm.superseded_cost == pytest.approx(0.0012 * 2, rel=0, abs=1e-12)

        key = next(p.key for p in plan_campaign(config).administrations
                   if p.key.target == LLM and p.key.seed == 0 and p.key.level == "L0")
        [old] = st.superseded(key)
        assert old["termination"] == "infra_error" and old["superseded_by_run"] == 3
        assert old["cost"] == pytest.approx(0.0012) and old["assessments"]
        assert st.get_json(old["episode_digest"])["termination"]["kind"] == "infra_error"
        current = st.episode(key)
        assert current is not None and current["termination"] == "submitted"
        assert [a["status"] for a in st.attempts(key)] == ["finished", "finished"]

        again = run_campaign(config, st, policy_factory=_factory(failed_once),
                             retry_measurement_failures=True)
        assert again.superseded == 0 and again.launched == 0
        assert again.status.total.cost == s.total.cost
        assert again.status.to_json()["total"]["superseded"] == 2


def test_status_cli_shows_superseded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    config, failed_once, d = _config(), set(), tmp_path / "s"
    with EvidenceStore.open(d, scrub_env=False) as st:
        run_campaign(config, st, policy_factory=_factory(failed_once))
        run_campaign(config, st, policy_factory=_factory(failed_once),
                     retry_measurement_failures=True)
    res = CliRunner().invoke(campaign_app, ["status", "--store", str(d)])
    assert res.exit_code == 0, res.output
    assert "superseded 2 measurement failures" in " ".join(res.stdout.split())
    mf = tmp_path / "mf.toml"
    mf.write_text(model_free(name="mf2", seeds="0"), encoding="utf-8")
    run = CliRunner().invoke(campaign_app, ["run", str(mf), "--store", str(d), "--quiet",
                                            "--retry-measurement-failures"])
    assert run.exit_code == 0, run.output
    assert "0 measurement failures re-opened" in " ".join(run.stdout.split())
