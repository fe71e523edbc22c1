"""Score forged outputs and the empty trajectory with an Inspect task's own scorers, in-process.

Everything runs through `inspect_ai.eval` so a scorer sees the context it was written for (the
sample's metadata and store, model roles, the task's solver for the empty trajectory). The model
is Inspect's mock model answering nothing; a scorer that calls a model while scoring is a judge,
and without `--judge-model` its cells are `not probed: needs a judge model`, never a number.
Each scorer call has a timeout; a raise, a timeout, NaN or a non-number is an INVALID cell that
carries its reason. Every output is scored twice on the same state (`RunResult.second`): a
scorer whose verdict on one output changes between calls (random, time-dependent, a judge at
temperature > 0) makes every verdict it gave unreliable, and the audit says so (determinism).
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import tempfile
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from inspect import signature
from typing import Any

from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.audit.user_interrupt import noting_interrupts
from agentmetrology.edges.scratch import scratch_tempdir
from agentmetrology.inspect_ext.audit.forge import Forged
from agentmetrology.inspect_ext.audit.load import LoadedTask
from agentmetrology.inspect_ext.audit.loop_watch import watched
from agentmetrology.inspect_ext.audit.scorer_call import (
    MAX_REASON,
    TIMED_OUT,
    Parts,
    _guarded,
    _reason,
    call_scorer,
    to_number,
)
from agentmetrology.records.errors import UserError

__all__ = [
    "NEEDS_JUDGE",
    "Judge",
    "RunResult",
    "run_empty_trajectory",
    "run_forged",
    "to_number",
]

NEEDS_JUDGE = "not probed: needs a judge model (--judge-model, --base-url)"
SEP = "\x1f"  # joins sample id and probe name in a derived sample id
EMPTY_RUN_TIME_LIMIT = 300  # seconds one do-nothing episode may take
MAX_CONSECUTIVE_TIMEOUTS = 3  # then the scorer is not called again: a hang costs seconds
# What a simulated user (model role `user`) says in the empty trajectory: the stop token of
# tau-bench-style user simulators, so the episode ends at once instead of at its turn limit.
USER_STOPS = "###STOP###"

# The judge-call counter of the scorer call running in this context (None: not scoring).
_SCORING: ContextVar[list[int] | None] = ContextVar("agm_inspect_scoring", default=None)


@dataclass(frozen=True, slots=True)
class Judge:
    """An OpenAI-compatible judge endpoint for model-graded scorers."""

    model: str
    base_url: str | None
    api_key: str


PLACEHOLDER_KEY = "agm-no-key"  # a local judge ignores the key; never a real credential


def judge_from_options(model: str | None, base_url: str | None,
                       key_env: str | None) -> Judge | None:
    """Return the judge `--judge-model`, `--base-url` and `--api-key-env` name (None without a
    model); a missing key is a UserError naming the variable to set."""
    if model is None:
        if base_url or key_env:
            raise UserError("--base-url and --api-key-env need --judge-model")
        return None
    if key_env:
        key = os.environ.get(key_env)
        if not key:
            raise UserError(f"the API key variable {key_env} is not set")
    elif base_url:
        key = PLACEHOLDER_KEY
    else:
        key = os.environ.get("OPENAI_API_KEY") or ""
        if not key:
            raise UserError("--judge-model without --base-url needs OPENAI_API_KEY (or "
                            "--api-key-env)")
    return Judge(model, base_url, key)


@dataclass
class RunResult:
    """Per (sample id, probe, scorer index): the outcome; per scorer: did it call a model."""

    cells: dict[tuple[str, str, int], ScoreOutcome]
    judge_calls: dict[int, int]
    # A scorer returning a dict of numbers (e.g. utility, security): each key's outcome.
    parts: dict[tuple[str, str, int], dict[str, ScoreOutcome]] = field(default_factory=dict)
    timeouts: dict[int, int] = field(default_factory=dict)  # consecutive, per scorer
    # The second call's outcome (and dict parts) on the same state; absent where the first
    # gave no verdict to repeat (a timeout, a scorer not called, a judge without a model).
    second: dict[tuple[str, str, int], ScoreOutcome] = field(default_factory=dict)
    second_parts: dict[tuple[str, str, int], dict[str, ScoreOutcome]] = field(
        default_factory=dict)
    # Called once per sample scored (progress on a terminal); never changes a result.
    on_sample: Callable[[], None] | None = field(default=None, compare=False)


def _mock_model(text: str = "") -> Any:
    """Return Inspect's mock model answering `text` always, counting calls made while scoring."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(*_: Any) -> Any:
        counter = _SCORING.get()
        if counter is not None:
            counter[0] += 1
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        # Usage given: the mock would otherwise count tokens with a tokenizer it downloads.
        out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return out

    # The first model Inspect builds in a process prints its hooks banner on stdout, which
    # would land inside `agm archive audit --json` output (as _eval's run is, it is dropped).
    with contextlib.redirect_stdout(io.StringIO()):
        return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def _judge_model(judge: Judge) -> Any:
    from inspect_ai.model import get_model

    with contextlib.redirect_stdout(io.StringIO()):  # the hooks banner, as in _mock_model
        return get_model(f"openai-api/agmjudge/{judge.model}", base_url=judge.base_url,
                         api_key=judge.api_key, memoize=False)


async def _score_sample(scorers: Sequence[Any], state: Any, cell: tuple[str, str],
                        failed: str | None, timeout: float, has_judge: bool,
                        result: RunResult) -> None:
    """Call every scorer on one sample's state and record its cells in `result`.

    `failed` (the episode's own failure) makes every cell INVALID with it, scorers uncalled.
    """
    # What a scorer adds to the store is its scratch (tau2's db_match builds a whole expected
    # database under a fresh key per call); it is dropped once every scorer has run, because
    # Inspect serialises and diffs the state after each solver and nobody reads these runs'
    # transcripts. What the episode left in the store stays.
    kept = set(state.store.keys())
    for i, sc in enumerate(scorers):
        if failed is not None:
            result.cells[(*cell, i)] = ScoreOutcome(None, "INVALID", failed)
            continue
        if result.timeouts.get(i, 0) >= MAX_CONSECUTIVE_TIMEOUTS:
            result.cells[(*cell, i)] = ScoreOutcome(
                None, "INVALID", f"not called: timed out {MAX_CONSECUTIVE_TIMEOUTS} times in a row")
            continue
        out, parts, calls = await _scored(sc, state, timeout, i, result)
        if calls:
            result.judge_calls[i] = result.judge_calls.get(i, 0) + calls
            if not has_judge:  # the mock answered: that verdict means nothing
                out, parts = ScoreOutcome(None, "INVALID", NEEDS_JUDGE), None
        if parts is not None:
            result.parts[(*cell, i)] = parts
        result.cells[(*cell, i)] = out
        if (out.message.startswith(TIMED_OUT) and out.status == "INVALID") or (
                calls and not has_judge):
            continue  # no verdict to repeat: a second hang, or a second mock answer
        _drop_scratch(state, kept)  # the second call sees the state the first one saw
        again, again_parts, again_calls = await _scored(sc, state, timeout, i, result)
        # every model call made is counted (and billed): the second call's too
        result.judge_calls[i] = result.judge_calls.get(i, 0) + again_calls
        if again_calls and not has_judge:
            again, again_parts = ScoreOutcome(None, "INVALID", NEEDS_JUDGE), None
        if again_parts is not None:
            result.second_parts[(*cell, i)] = again_parts
        result.second[(*cell, i)] = again
    _drop_scratch(state, kept)


async def _scored(scorer: Any, state: Any, timeout: float, index: int,
                  result: RunResult) -> tuple[ScoreOutcome, Parts, int]:
    """Call one scorer once; return its outcome, parts and the model calls it made, counting
    a timeout towards the scorer's consecutive ones."""
    counter = [0]
    token = _SCORING.set(counter)
    try:
        out, parts = await call_scorer(scorer, state, timeout)
    finally:
        _SCORING.reset(token)
    timed_out = out.status == "INVALID" and out.message.startswith(TIMED_OUT)
    result.timeouts[index] = result.timeouts.get(index, 0) + 1 if timed_out else 0
    return out, parts, counter[0]


def _drop_scratch(state: Any, kept: set[str]) -> None:
    """Delete what scorers added to the sample's store since `kept` was taken."""
    for k in set(state.store.keys()) - kept:
        state.store.delete(k)


def _scoring_solver(scorers: Sequence[Any], inner: Any, forged: dict[str, Forged] | None,
                    timeout: float, has_judge: bool, result: RunResult) -> Any:
    """Return a solver that writes the forged output (or runs `inner`), then calls each scorer.

    A failure of `inner` (the task's own solver) makes every scorer's cell INVALID with it.
    """
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import solver

    @solver(name="agm_forge_and_score")
    def forge_and_score() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            key = str(state.sample_id)
            sid, _, probe = key.rpartition(SEP) if SEP in key else (key, "", "")
            probe_name = probe or "empty_trajectory"
            failed: str | None = None
            if inner is not None:
                ran, raised = await _guarded(inner, state, generate, limit=EMPTY_RUN_TIME_LIMIT)
                if raised is not None:  # the episode did not finish: nothing to score
                    failed = f"the task's solver failed with a model that answers nothing: " \
                             f"{_reason(raised)}"
                else:
                    state = ran
            if forged is not None:
                f = forged[key]
                state.output = ModelOutput.from_content(model="forged", content=f.text)
                state.messages.append(state.output.message)
                if f.letter is not None and state.choices:
                    state.choices.mark_choice(ord(f.letter) - ord("A"), True)
            await _score_sample(scorers, state, (sid or key, probe_name), failed, timeout,
                                has_judge, result)
            if result.on_sample is not None:
                result.on_sample()
            return state

        return solve

    return forge_and_score()


def _no_store_events() -> contextlib.AbstractContextManager[Any]:
    """Return Inspect's suspension of store-change events (a no-op where it does not exist).

    Every span copies the whole sample store when it opens and diffs it when it closes, for a
    transcript event; a tau2 sample's store holds the domain's database (and one more copy per
    `db_match` call), so that diffing was most of an audit's CPU. These runs keep no sample
    log, so nobody reads the events; the store itself, and so every score, is unchanged.
    """
    try:
        from inspect_ai.util._store import suspend_store_events
    except ImportError:  # an inspect-ai without it: the events are made (and dropped) as before
        return contextlib.nullcontext()
    return suspend_store_events()


def _without_control_server(inspect_eval: Any) -> dict[str, Any]:
    """Return the option that keeps Inspect's control server off (where Inspect has one).

    Recent Inspect releases serve every eval on a local socket by default, and that server
    takes SIGINT while it runs: a Ctrl-C shut the server down and the run went on scoring
    until it ended. Nobody controls these runs from outside.
    """
    return {"ctl_server": False} if "ctl_server" in signature(inspect_eval).parameters else {}


def _eval(task: Any, model: Any, roles: dict[str, Any] | None, **kw: Any) -> str | None:
    """Run the task (no sample logs: they cost more than the run) and return its error."""
    from inspect_ai import eval as inspect_eval

    # scratch_tempdir: a tau2 task's tools inflate their database into a temporary file each
    # sample and keep it (edges.scratch); the folder holding them goes when the run ends.
    # noting_interrupts: a Ctrl-C ends the run in KeyboardInterrupt, never in cells (Inspect
    # would log the run cancelled and its samples would read "ended before scoring").
    with noting_interrupts(), tempfile.TemporaryDirectory(prefix="agm-inspect-") as logs, \
            contextlib.redirect_stdout(io.StringIO()), _no_store_events(), \
            scratch_tempdir("agm-inspect-tmp-"), watched():
        done = list(inspect_eval(task, model=model, model_roles=roles, display="none",
                                 log_dir=logs, fail_on_error=False, log_samples=False,
                                 log_realtime=False, score=False,
                                 **_without_control_server(inspect_eval), **kw))
    for log in done:
        if log.status == "error" and log.error is not None:
            return " ".join(str(log.error.message).split())[:MAX_REASON]
    return None


def run_forged(loaded: LoadedTask, forged: dict[tuple[str, str], Forged], timeout: float,
               judge: Judge | None, on_sample: Callable[[], None] | None = None) -> RunResult:
    """Score every (sample, probe) forged output with every scorer of the task."""
    from inspect_ai import task_with
    from inspect_ai.dataset import MemoryDataset

    by_id = {str(s.id): s for s in loaded.samples}
    derived, plan = [], {}
    for (sid, probe), f in forged.items():
        key = f"{sid}{SEP}{probe}"
        derived.append(by_id[sid].model_copy(update={"id": key}, deep=True))
        plan[key] = f
    result = RunResult({}, {}, on_sample=on_sample)
    if not derived:
        return result
    scorers = list(loaded.task.scorer or [])
    solver = _scoring_solver(scorers, None, plan, timeout, judge is not None, result)
    task = task_with(copy.copy(loaded.task), dataset=MemoryDataset(derived), solver=solver,
                     scorer=None)
    model = _judge_model(judge) if judge else _mock_model()
    roles = {"grader": model} if judge else None
    error = _eval(task, model, roles)
    _fill_errors(result, error, [(sid, p) for sid, p in forged], len(scorers),
                 "the forged sample failed before scoring")
    return result


def run_empty_trajectory(loaded: LoadedTask, timeout: float, judge: Judge | None,
                         on_sample: Callable[[], None] | None = None) -> RunResult:
    """Run the task's own solver with a model that answers nothing, then score every sample."""
    from inspect_ai import task_with
    from inspect_ai.dataset import MemoryDataset

    result = RunResult({}, {}, on_sample=on_sample)
    samples = [s.model_copy(deep=True) for s in loaded.samples]
    if not samples:
        return result
    scorers = list(loaded.task.scorer or [])
    scoring = _scoring_solver(scorers, loaded.task.solver, None, timeout, judge is not None,
                              result)
    task = task_with(copy.copy(loaded.task), dataset=MemoryDataset(samples), solver=scoring,
                     scorer=None)
    model = _mock_model()
    roles = {"user": _mock_model(USER_STOPS)}
    if judge:
        roles["grader"] = _judge_model(judge)
    error = _eval(task, model, roles, time_limit=EMPTY_RUN_TIME_LIMIT)
    _fill_errors(result, error, [(str(s.id), "empty_trajectory") for s in samples],
                 len(scorers), "the task's solver failed with a model that answers nothing")
    return result


def _fill_errors(result: RunResult, error: str | None, keys: list[tuple[str, str]],
                 n_scorers: int, what: str) -> None:
    """Mark every cell the run did not reach as INVALID with the run's error."""
    for sid, probe in keys:
        for i in range(n_scorers):
            if (sid, probe, i) not in result.cells:
                result.cells[(sid, probe, i)] = ScoreOutcome(
                    None, "INVALID", f"{what}: {error or 'the sample ended before scoring'}")
