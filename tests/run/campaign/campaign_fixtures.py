"""Campaign texts, an async stand-in for an LLM policy, and ledger queries for campaign tests."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records import BillableAttempt
from agentmetrology.records.clock import Clock
from agentmetrology.records.policy import Brief, Decision, Move, Question
from agentmetrology.records.tools import Observation
from agentmetrology.run.episode import make_policy
from agentmetrology.store.blobs import contents
from support.comtrade_runs import COMTRADE

MODEL_FREE = """
[campaign]
name = "{name}"
tasks = {tasks}
seeds = "{seeds}"
levels = ["L0", "L2"]

[limits]
max_steps = 30

[[targets]]
name = "rule"
kind = "rule"

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "keeps_totals"
kind = "scripted"
agent = "scripted:keeps_totals"
"""

LLM_TARGET = """
[[targets]]
name = "{name}"
kind = "llm"
model = "fake-model"
base_url = "{base_url}"
api_key_env = "{key_env}"
price = {{ input_per_m = 1.0, output_per_m = 2.0, cached_per_m = 0.5 }}
"""


def model_free(name: str = "mf", tasks: str = '["T3_duplicates", "T4_rate_limit_429"]',
               seeds: str = "0-1") -> str:
    """Return a model-free campaign: rule + two scripted profiles at L0 and L2."""
    return MODEL_FREE.format(name=name, tasks=tasks, seeds=seeds)


def with_llm(text: str, *, name: str = "fake-llm", base_url: str = "http://127.0.0.1:9/v1",
             key_env: str = "AGM_TEST_KEY", limits: str = "", concurrency: int = 2) -> str:
    """Return `text` with an llm target, campaign concurrency and extra [limits] lines."""
    text = text.replace('levels = ["L0", "L2"]',
                        f'levels = ["L0", "L2"]\nconcurrency = {concurrency}')
    text = text.replace("max_steps = 30", "max_steps = 30\n" + limits)
    return text + LLM_TARGET.format(name=name, base_url=base_url, key_env=key_env)


def write(tmp_path: Path, text: str, name: str = "campaign.toml") -> Path:
    """Write a campaign file and return its path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class AsyncScripted:
    """An async stand-in for an LLM: the careful walk, each move awaited and billed.

    `leak` is a string the policy writes into its billing records (a secret must be scrubbed
    by the store); `fail_with` makes every move raise (an agent error carrying that text).
    """

    def __init__(self, target: LLMTarget, clock: Clock, leak: str | None = None,
                 fail_with: str | None = None) -> None:
        self.inner = make_policy(COMTRADE, "scripted:careful")
        self.name = f"fake:{target.model}"
        self.levels = self.inner.levels
        self.target = target
        self.leak = leak
        self.fail_with = fail_with
        self._attempts: list[BillableAttempt] = []

    def reset(self, brief: Brief) -> None:
        """Start an episode."""
        self.inner.reset(brief)

    def _bill(self) -> None:
        n = len(self._attempts)
        cost = self.target.prices.cost(1000, 100, 0)
        self._attempts.append(BillableAttempt(f"att{n}", "fake", self.target.model,
                                              self.leak or f"req{n}", 1000, 100, 0, cost, 0.0,
                                              "ok"))

    async def act(self, observation: Observation | None) -> Move:
        """Bill a request, yield to the loop, then play the careful move."""
        await asyncio.sleep(0)
        self._bill()
        if self.fail_with:
            raise RuntimeError(self.fail_with)
        return await self.inner.act(observation)

    async def decide(self, notice: Question) -> Decision:
        """Bill a request and decide like the careful profile."""
        await asyncio.sleep(0)
        self._bill()
        return await self.inner.decide(notice)

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the billed requests."""
        out, self._attempts = self._attempts, []
        return out


def query(store_dir: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run a read-only query against a store's ledger."""
    conn = sqlite3.connect(f"file:{store_dir / 'ledger.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def episode_digests(store_dir: Path) -> dict[tuple[Any, ...], str]:
    """Return {key: episode digest} of every recorded episode."""
    rows = query(store_dir, "SELECT a.campaign, a.target, a.task, a.seed, a.condition, a.level, "
                            "a.repeat, e.episode_digest FROM episodes e JOIN administrations a "
                            "ON a.id = e.administration")
    return {r[:7]: r[7] for r in rows}


def files_containing(root: Path, needle: bytes) -> list[Path]:
    """Return every file under root whose bytes contain `needle`."""
    return [p for p in root.rglob("*") if p.is_file() and needle in contents(p.read_bytes())]


def kill_9_when(command: list[str], ready: Callable[[], bool], *, timeout: float = 60) -> int:
    """Start `command` in its own session, `kill -9` it once `ready()` holds; return its pid
    (also its process group). Fails if it ended first; kills the group if anything goes wrong."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None and not ready():
            time.sleep(0.01)
        assert proc.poll() is None, (proc.stderr.read() if proc.stderr else b"") or \
            "the run finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    return proc.pid
