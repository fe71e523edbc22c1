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


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


REFUSED_AS_SENT = [
    ToolCall("get_task_info", {"note": "a\ud800"}),  # recorded with the surrogate escaped
    ToolCall("fetch_page", {"page": 1, "x": _deep(201)}),  # kept only as its repr
    ToolCall("get_task_info", {1, 2}),  # type: ignore[arg-type]  # no JSON form: its repr
    ToolCall("no_such_tool", {"x": _deep(201)}),
]


@pytest.mark.parametrize("level", ["L0", "L2"])
def test_a_refusal_that_cannot_be_sent_again_is_replayed_as_that_refusal(level: str) -> None:
    # Before, the replay sent what the record holds of such a call: the escaped text (which
    # the tool accepts) or {} in place of arguments kept only as their repr (which fetch_page
    # then ran), so grade recovery and a case's replay control ran another episode.
    moves = [*REFUSED_AS_SENT, ToolCall("submit_results", {"x": _deep(201)}),
             ToolCall("fetch_page", {"page": 1})]
    ep = drive(run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0), _Sends(moves),
                                 level))
    plain = decode_json(canonical_json(ep))
    agent = [e for e in plain["events"] if e["actor"] == "agent" and e["name"] != "stop"]
    assert all("error" in e["result"] for e in agent[:4])
    assert "arguments_sent_repr" in agent[1]["result"] and agent[1]["args"] == {}
    again = episode_from_plain(plain)  # as the store gives it back
    replayed = drive(run_episode_async(COMTRADE, ComtradeEnv("T1_single_page", 0),
                                       ReplayPolicy(again.events), level, target=ep.target))
    assert canonical_json(_untimed(replayed.events)) == canonical_json(_untimed(ep.events))
    assert replayed.digests == ep.digests and replayed.termination == ep.termination


def test_a_refused_submission_replays_to_the_same_score_in_another_environment() -> None:
    # researchops: a report with a lone surrogate is refused (agent_error, composite 0); its
    # replay sent the escaped text, which was accepted (submitted, composite 0.345).
    from agentmetrology.envs.registry import get_env
    from agentmetrology.run.episode import run_one

    spec = get_env("researchops")
    task = sorted(spec.tasks)[0]
    for calls in ([ToolCall("submit_report", {"report": "done \ud800"})],
                  [ToolCall("run_experiment", {"x": _deep(201)}),
                   ToolCall("submit_report", {"report": "r"})]):
        first = run_one(spec, task, 0, _Sends(calls), "L2", max_steps=5)
        plain = decode_json(canonical_json(first.episode))
        again = run_one(spec, task, 0, ReplayPolicy(episode_from_plain(plain).events), "L2",
                        max_steps=5)
        assert again.episode.termination == first.episode.termination
        assert [(a.status, a.score) for a in again.assessments] == \
            [(a.status, a.score) for a in first.assessments]
