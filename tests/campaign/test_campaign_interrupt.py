"""Ctrl-C: attempts in flight end as interrupted, never left `started`; resuming completes."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.agents.clock import Clock
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from campaign.campaign_fixtures import AsyncScripted, model_free, query, with_llm


class _CtrlC(AsyncScripted):
    """Presses Ctrl-C (SIGINT to this process) at its second move, mid-episode."""

    moves = 0

    async def act(self, observation: Any) -> Any:
        _CtrlC.moves += 1
        if _CtrlC.moves == 3:
            signal.raise_signal(signal.SIGINT)
        return await super().act(observation)


def test_keyboard_interrupt_marks_in_flight_attempts_interrupted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", "k" * 20)
    text = with_llm(model_free(tasks='["T3_duplicates"]', seeds="0-1"), concurrency=2)
    config = parse_campaign(text)

    def interrupting(target: LLMTarget, clock: Clock) -> Any:
        return _CtrlC(target, clock)

    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st, \
            pytest.raises(KeyboardInterrupt):
        run_campaign(config, st, policy_factory=interrupting)
    statuses = dict(query(tmp_path / "s", "SELECT status, COUNT(*) FROM attempts GROUP BY "
                                          "status"))
    assert statuses.get("started", 0) == 0 and statuses.get("interrupted", 0) >= 1, statuses
    (detail,) = {d for (d,) in query(tmp_path / "s", "SELECT detail FROM attempts WHERE "
                                                     "status = 'interrupted'")}
    assert detail == "the run stopped (KeyboardInterrupt) before this attempt finished"
    assert query(tmp_path / "s", "SELECT outcome FROM runs")[0][0].startswith(
        "error: KeyboardInterrupt")

    def scripted(target: LLMTarget, clock: Clock) -> Any:
        return AsyncScripted(target, clock)

    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        result = run_campaign(config, st, policy_factory=scripted)
    assert result.recovered == 0 and result.status.complete
    assert query(tmp_path / "s", "SELECT COUNT(*), COUNT(DISTINCT administration) FROM "
                                 "episodes")[0] == (result.status.total.planned,) * 2
