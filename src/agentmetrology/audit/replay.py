"""Stage: replay. Each (agent, task, seed, level) runs twice; each card column reads its scorer.

A rerun replays for a column when its episode bytes and that column's scores are identical.
A rerun the column's scorer scored on neither run (INVALID both times, or ground truth
undecided both times) shows nothing about replay: it is counted as unscored, never as
replayed, and a column without one scored rerun is `not probed` with why. A scorer that
scored nothing has not shown that it replays.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentmetrology.audit.card import row
from agentmetrology.audit.targets.env import EnvTarget, EpisodeRun

COLUMNS = ("shipped", "ground_truth")  # the card's two columns, each with its own scorer
NO_RERUNS = "no rerun: the environment supplies no replay agents and tasks at L0 or L2"


def _reruns(target: EnvTarget, seeds: int) -> Iterator[tuple[EpisodeRun, EpisodeRun]]:
    """Yield each replay cell's two runs."""
    hooks = target.hooks
    for agent in hooks.replay_agents:
        for task in hooks.replay_tasks:
            for seed in range(seeds):
                for level in target.spec.levels:
                    if level == "L1":
                        continue  # the replay agents propose tool calls; L1 asks questions
                    yield (target.run_episode(agent, level, task, seed),
                           target.run_episode(agent, level, task, seed))


def _compare(a: EpisodeRun, b: EpisodeRun, column: str) -> str:
    """Return `mismatch`, `unscored` or `same` for one rerun as one column reads it."""
    if a.episode_sha256 != b.episode_sha256:
        return "mismatch"  # the episode itself did not replay, whatever scored it
    if column == "shipped":
        same = a.shipped == b.shipped
        scored = a.shipped.value is not None or b.shipped.value is not None
    else:
        same, scored = a.truth == b.truth, a.truth is not None or b.truth is not None
    if not scored:
        return "unscored"
    return "same" if same else "mismatch"  # scored once and INVALID once is a mismatch


def replay(target: EnvTarget, seeds: int) -> dict[str, Any]:
    """Run each (task, seed, target) twice; pass iff episodes and scores are byte-identical."""
    checked = mismatches = 0
    # Per scorer: reruns whose episode or this scorer's score differ. Each card column reads
    # its own scorer's: a user's scorer that draws a random number fails its own column's
    # replay, never the ground truth's beside it (the episodes are identical).
    by_scorer = dict.fromkeys(COLUMNS, 0)
    unscored = dict.fromkeys(COLUMNS, 0)
    for a, b in _reruns(target, seeds):
        checked += 1
        seen = {c: _compare(a, b, c) for c in COLUMNS}
        for c, how in seen.items():
            by_scorer[c] += how == "mismatch"
            unscored[c] += how == "unscored"
        mismatches += "mismatch" in seen.values()
    out: dict[str, Any] = {"episodes": checked, "mismatches": mismatches,
                           "mismatches_by_scorer": by_scorer, "unscored_by_scorer": unscored}
    names = {"shipped": target.scorer_name, "ground_truth": target.truth_label}
    return {**stage_status(out, names), **out}


def stage_status(res: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    """Return the stage's status as its columns' rows read: fail if any column fails, else
    not probed (with why, naming each such column) if any is, else pass.

    The stage read `pass` when the ground truth replayed though the shipped column's scorer
    scored no rerun, so it said more than the row of that column it summarises.
    """
    episodes = res["episodes"]
    status = {c: replay_status(episodes, res["mismatches_by_scorer"][c],
                               res["unscored_by_scorer"][c]) for c in COLUMNS}
    if "fail" in status.values():
        return {"status": "fail"}
    idle = [c for c in COLUMNS if status[c] == "not probed"]
    if not idle:
        return {"status": "pass"}
    if not episodes:
        return {"status": "not probed", "reason": NO_RERUNS}
    return {"status": "not probed", "reason": "; ".join(
        f"the {c.replace('_', '-')} column (`{names[c]}`) scored no rerun: "
        f"{res['unscored_by_scorer'][c]} of {episodes} reruns unscored" for c in idle)}


def replay_status(episodes: int, mismatches: int, unscored: int) -> str:
    """Return the replay verdict: fail on any mismatch, not probed without a scored rerun."""
    if mismatches:
        return "fail"
    return "not probed" if episodes == unscored else "pass"


def replay_row(replay: dict[str, Any], role: str) -> dict[str, Any]:
    """Return the replay cell of one card column: episode bytes and that column's scores."""
    episodes = replay["episodes"]
    mismatches = replay["mismatches_by_scorer"][role]
    unscored = replay["unscored_by_scorer"][role]
    status = replay_status(episodes, mismatches, unscored)
    ev: dict[str, Any] = {"episodes": episodes, "mismatches": mismatches, "unscored": unscored}
    if status == "not probed":
        ev["reason"] = NO_RERUNS if not episodes else (
            f"no rerun was scored: the scorer gave no score on either run of {unscored} of "
            f"{episodes} reruns (INVALID or undecided); a scorer that scored nothing has not "
            "shown that it replays")
    return row(status, ev, replay)
