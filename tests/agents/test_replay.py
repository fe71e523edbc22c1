import pytest

from agentmetrology.agents.replay import ReplayPolicy
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import canonical_json
from agentmetrology.runtime.drive import drive
from support.comtrade_runs import COMTRADE, run


def _untimed(events: list) -> list:
    return [{**canonical_dict(e), "t": None} for e in events]


def canonical_dict(e: object) -> dict:
    from agentmetrology.records import to_plain

    return to_plain(e)


@pytest.mark.parametrize("level", ["L0", "L1", "L2"])
@pytest.mark.parametrize("agent", ["rule", "scripted:careful", "scripted:off_by_one",
                                   "scripted:never_submits", "scripted:no_dedup"])
def test_replay_reproduces_the_episode(level: str, agent: str) -> None:
    for task in ("T4_rate_limit_429", "T6_page_drift", "T9_adaptive_adversary"):
        ep, _ = run(task, 2, agent, level)
        replayed = drive(run_episode_async(COMTRADE, ComtradeEnv(task, 2), ReplayPolicy(ep.events),
                                           level, target=ep.target))
        assert replayed.digests == ep.digests
        # Timestamps are not behaviour: an agent's own waits are not replayed.
        assert canonical_json(_untimed(replayed.events)) == canonical_json(_untimed(ep.events))
        assert replayed.termination == ep.termination


def test_replay_of_plain_dicts_and_exhaustion() -> None:
    ep, _ = run("T3_duplicates", 0, "scripted:careful", "L2")
    dicts = [{"actor": e.actor, "kind": e.kind, "name": e.name, "args": e.args,
              "result": e.result} for e in ep.events]
    again = drive(run_episode_async(COMTRADE, ComtradeEnv("T3_duplicates", 0),
                                    ReplayPolicy(dicts), "L2"))
    assert again.digests == ep.digests
    truncated = [d for d in dicts if d["name"] != "submit_results"]
    short = drive(run_episode_async(COMTRADE, ComtradeEnv("T3_duplicates", 0),
                                    ReplayPolicy(truncated),
                                    "L2"))
    assert short.submission is None and short.termination.kind == "agent_error"
