import math

import pytest

from agentmetrology.agents.replay import ReplayPolicy
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import canonical_json
from agentmetrology.records.canonical import decode_json
from agentmetrology.records.episode import episode_from_plain
from agentmetrology.records.policy import Question, Stop, ToolCall
from agentmetrology.runtime.drive import drive
from support.comtrade_runs import COMTRADE, run


def _untimed(events: list) -> list:
    return [{**canonical_dict(e), "t": None} for e in events]


def canonical_dict(e: object) -> dict:
    from agentmetrology.records import to_plain

    return to_plain(e, tag_non_finite=True)


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


class _Sends:
    """A policy that sends the given moves in order (arguments of any kind), then stops."""

    name = "sends"
    levels = ("L0", "L1", "L2")

    def __init__(self, moves: list) -> None:
        self.moves = list(moves)

    def reset(self, brief: object) -> None:
        """Nothing to prepare."""

    async def act(self, observation: object) -> object:
        return self.moves.pop(0) if self.moves else Stop("done")

    async def decide(self, question: Question) -> str:
        return question.fallback

    def take_attempts(self) -> list:
        return []


NOT_OBJECTS = [[1, 2], "page=1", 3, None, [math.nan], "a\ud800"]


@pytest.mark.parametrize("level", ["L0", "L2"])
def test_calls_whose_arguments_are_not_an_object_are_kept_and_replay_as_sent(level: str) -> None:
    # Such a call was recorded with args {}: the record said the agent sent no arguments, and
    # its replay called the tool without any (get_task_info then answered where the original
    # was refused), so grade recovery replayed another episode. At L0 the intercepted
    # submission kept the value in `args` itself, which the replay could not turn into a call.
    moves = [ToolCall("get_task_info", a) for a in NOT_OBJECTS]
    moves += [ToolCall("submit_results", ["x"]), ToolCall("fetch_page", {"page": 1})]
    ep = drive(run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0), _Sends(moves),
                                 level))
    plain = decode_json(canonical_json(ep))
    agent = [e for e in plain["events"] if e["actor"] == "agent" and e["name"] != "stop"]
    assert all(e["args"] == {} for e in agent[:7])
    kept = [e["result"]["arguments_sent"] for e in agent[:6]]
    assert kept[:4] == [[1, 2], "page=1", 3, None] and math.isnan(kept[4][0])
    assert kept[5] == "a\\ud800"  # the lone surrogate as its escape
    assert agent[6]["result"]["arguments_sent"] == ["x"]
    assert agent[6]["kind"] == ("intercepted" if level == "L0" else "tool_call")
    if level == "L2":  # refused, the episode goes on (L0: the harness took the submission)
        assert agent[7]["args"] == {"page": 1} and "rows" in agent[7]["result"]
    again = episode_from_plain(plain)  # as the store gives it back
    replayed = drive(run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0),
                                       ReplayPolicy(again.events), level, target=ep.target))
    assert canonical_json(_untimed(replayed.events)) == canonical_json(_untimed(ep.events))
    assert replayed.digests == ep.digests and replayed.termination == ep.termination
