"""A scripted episode leaves nothing for the cyclic collector: its script is closed at the end."""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable
from typing import Any

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import make_policy, run_episode


@pytest.mark.parametrize(("agent", "level"), [("rule", "L0"), ("scripted:careful", "L2"),
                                              ("scripted:careful", "L0"),
                                              ("scripted:off_by_one", "L2")])
def test_an_episode_leaves_no_reference_cycle(agent: str, level: str) -> None:
    spec = get_env("comtrade")
    # Counted in a forked process: it has this thread alone, so no other thread (a Ray or
    # server thread an earlier test left in this worker) adds garbage of its own meanwhile.
    assert _in_fork(lambda: _cyclic_garbage(spec, agent, level)) == 0
    policy = make_policy(spec, agent)
    run_episode(spec, "T7_totals_trap", 3, policy, level)
    assert policy._gen is None  # type: ignore[attr-defined]


def test_a_closed_script_starts_afresh_on_the_next_episode() -> None:
    spec = get_env("comtrade")
    policy = make_policy(spec, "scripted:careful")
    first = run_episode(spec, "T3_duplicates", 5, policy, "L2")
    again = run_episode(spec, "T3_duplicates", 5, policy, "L2")
    assert first.digests == again.digests and first.termination == again.termination


def _cyclic_garbage(spec: Any, agent: str, level: str) -> int:
    """Return what the cyclic collector finds after one episode (none before it)."""
    gc.collect()
    gc.disable()
    ep = run_episode(spec, "T7_totals_trap", 3, agent, level)
    del ep
    # a suspended script held its policy (and the rows it kept) in a cycle until collected
    return gc.collect()


def _in_fork(fn: Callable[[], int]) -> int | None:
    """Return fn() run in a forked process (None when it ended without an answer)."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=lambda: send.send(fn()))
    proc.start()
    send.close()
    try:
        return int(recv.recv())
    except EOFError:
        return None
    finally:
        proc.join()
