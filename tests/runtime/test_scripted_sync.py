"""A scripted policy's plain-function act (taken on a fake clock) gives the episode `act` gives."""

from __future__ import annotations

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Move, Stop, sync_act
from agentmetrology.records.tools import Observation
from agentmetrology.run.campaign.worker import DeadlinePolicy
from agentmetrology.run.episode import make_policy, run_episode
from agentmetrology.runtime.scripted import ScriptedPolicy, TimedScript


class _AwaitedClock(FakeClock):
    """A fake clock of another type: its waits must be awaited, so no plain act is offered."""

    async def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 0.0)


def _brief(clock: FakeClock) -> Brief:
    return Brief("T4_rate_limit_429", "", {}, (), "L2", (), 0, 30, clock)


def test_a_plain_act_is_offered_only_on_a_fake_clock() -> None:
    spec = get_env("comtrade")
    policy = make_policy(spec, "scripted:careful")
    policy.reset(_brief(FakeClock()))
    assert callable(sync_act(policy))
    policy.reset(_brief(_AwaitedClock()))
    assert sync_act(policy) is None
    assert sync_act(object()) is None  # type: ignore[arg-type]  # no offer: the awaited act


def test_a_wrapper_that_forwards_attributes_does_not_hand_out_the_inner_act() -> None:
    spec = get_env("comtrade")
    inner = make_policy(spec, "rule")
    wrapped = DeadlinePolicy(inner, 5.0)
    wrapped.reset(_brief(FakeClock()))
    assert callable(sync_act(inner)) and callable(wrapped.sync_act)  # forwarded, yet:
    assert sync_act(wrapped) is None
    # ... so its deadline still ends an episode whose waits pass it on the fake clock
    ep = run_episode(spec, "T4_rate_limit_429", 0, DeadlinePolicy(make_policy(spec, "rule"),
                                                                   1.0), "L2")
    assert ep.events[-1].kind == "message" and "deadline" in str(ep.events[-1].result)


@pytest.mark.parametrize(("task", "agent", "level", "condition"), [
    ("T4_rate_limit_429", "rule", "L0", "clean"),
    ("T4_rate_limit_429", "scripted:careful", "L2", "clean"),
    ("T5_server_error_500", "rule", "L2", "clean"),
    ("T8_mixed_faults", "scripted:careful", "L2", "stress:escalating"),
    ("T6_page_drift", "scripted:careful", "L2", "clean+mut:alias"),
    ("T9_adaptive_adversary", "scripted:off_by_one", "L2", "clean"),
    ("T9_adaptive_adversary", "scripted:careful", "L0", "clean"),
])
def test_the_plain_act_and_the_awaited_act_record_the_same_episode(
        task: str, agent: str, level: str, condition: str) -> None:
    spec = get_env("comtrade")
    waited = 0.0
    for seed in range(6):
        fake, awaited = FakeClock(), _AwaitedClock()
        plain = run_episode(spec, task, seed, agent, level, condition=condition, clock=fake)
        slow = run_episode(spec, task, seed, agent, level, condition=condition, clock=awaited)
        assert to_plain(plain) == to_plain(slow)
        assert fake.t == awaited.t
        waited += fake.t
    if task in ("T4_rate_limit_429", "T5_server_error_500"):
        assert waited > 0  # the faults were waited out, on both paths alike


class _Plain(ScriptedPolicy):
    def script(self, brief: Brief) -> TimedScript:
        yield Stop()


class _Logged(_Plain):
    async def act(self, observation: Observation | None) -> Move:
        return await super().act(observation)


class _Billing(_Plain):
    def take_attempts(self) -> list[BillableAttempt]:
        return []


def test_a_subclass_with_its_own_act_or_attempts_is_awaited() -> None:
    for cls, offered in ((_Plain, True), (_Logged, False), (_Billing, False)):
        policy = cls()
        policy.reset(_brief(FakeClock()))
        assert (sync_act(policy) is not None) is offered, cls.__name__
