"""Small Inspect tasks written for these tests: known scorers with known verdicts."""

import asyncio
import os
import random
import time

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import (
    Score,
    Target,
    accuracy,
    exact,
    includes,
    match,
    model_graded_fact,
    scorer,
)
from inspect_ai.solver import TaskState, generate, solver, use_tools
from inspect_ai.tool import tool

MATH = [Sample(input="2+2?", target="4", id="a"),
        Sample(input="6*7?", target="42", id="b"),
        Sample(input="10*13?", target="130", id="c"),
        Sample(input="no answer", target="", id="d")]


@task
def gsm8k_style() -> Task:
    """Numeric string match at the end of the output, as gsm8k does."""
    return Task(dataset=MATH, solver=generate(), scorer=match(numeric=True))


@task
def includes_task() -> Task:
    """Substring match: a fabricated answer that contains the target passes."""
    return Task(dataset=MATH[:3], solver=generate(), scorer=includes())


@task
def exact_task() -> Task:
    return Task(dataset=MATH[:3], solver=generate(), scorer=exact())


@scorer(metrics=[accuracy()])
def always_one():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0)
    return score


@task
def shape_task() -> Task:
    """A scorer that passes anything: the criterion must fail (fabricated = correct)."""
    return Task(dataset=MATH[:3], solver=generate(), scorer=always_one())


@scorer(metrics=[accuracy()])
def raising():
    async def score(state: TaskState, target: Target) -> Score:
        raise RuntimeError("scorer exploded on purpose")
    return score


@scorer(metrics=[accuracy()])
def hanging():
    async def score(state: TaskState, target: Target) -> Score:
        await asyncio.sleep(3600)
        return Score(value=1.0)
    return score


@scorer(metrics=[accuracy()])
def nan_scorer():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=float("nan"))
    return score


@scorer(metrics=[accuracy()])
def word_scorer():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value="excellent")
    return score


@task
def faulty_task() -> Task:
    return Task(dataset=MATH[:2], solver=generate(),
                scorer=[raising(), hanging(), nan_scorer(), word_scorer()])


@task
def judged_task() -> Task:
    return Task(dataset=MATH[:2], solver=generate(), scorer=model_graded_fact())


@tool
def lookup():
    async def execute(key: str) -> str:
        """Look a key up.

        Args:
            key: the key.
        """
        return "value"
    return execute


@scorer(metrics=[accuracy()])
def no_error_message():
    """Passes when the conversation holds no message saying 'error': do-nothing passes."""
    async def score(state: TaskState, target: Target) -> Score:
        text = " ".join(m.text for m in state.messages if m.role == "assistant")
        return Score(value=0.0 if "error" in text.lower() else 1.0)
    return score


@task
def tool_task() -> Task:
    return Task(dataset=MATH[:3], solver=[use_tools(lookup()), generate()],
                scorer=no_error_message())


@task
def docker_output_task() -> Task:
    """Runs in docker, but its scorer reads only the output: probed without the sandbox."""
    return Task(dataset=MATH[:3], solver=generate(), scorer=match(numeric=True),
                sandbox="docker")


@scorer(metrics=[accuracy()])
def reads_sandbox():
    async def score(state: TaskState, target: Target) -> Score:
        from inspect_ai.util import sandbox

        done = await sandbox().exec(["cat", "/answer"])
        return Score(value=1.0 if done.stdout.strip() == target.text else 0.0)

    return score


@task
def docker_state_task() -> Task:
    """Runs in docker and its scorer reads the sandbox: not probed (needs docker)."""
    return Task(dataset=MATH[:3], solver=generate(), scorer=reads_sandbox(), sandbox="docker")


@scorer(metrics=[accuracy()])
def huge_int():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=10**400)
    return score


@scorer(metrics=[accuracy()])
def cancels():
    async def score(state: TaskState, target: Target) -> Score:
        raise asyncio.CancelledError("cancelled by the scorer itself")
    return score


@task
def crashing_neighbours_task() -> Task:
    """Scorers that broke the whole sample (every other scorer's cell with it) beside one that
    works: each bad cell must be INVALID with its own reason, the good one scored."""
    return Task(dataset=MATH[:3], solver=generate(), scorer=[huge_int(), cancels(), exact()])


@solver
def exits():
    """A solver that calls sys.exit: the do-nothing run must end, not hang the audit."""
    async def solve(state: TaskState, generate_) -> TaskState:
        raise SystemExit(5)
    return solve


@task
def exiting_solver_task() -> Task:
    """The task's own solver raises SystemExit in the do-nothing run."""
    return Task(dataset=MATH[:3], solver=exits(), scorer=exact())


_CALLS = [0]  # every call of flips_once, across samples and runs


@scorer(metrics=[accuracy()])
def flips_once():
    """Exact match, except that its fourth call ever returns the opposite verdict: one output
    scored twice gets two different verdicts, whichever output that call lands on."""
    async def score(state: TaskState, target: Target) -> Score:
        _CALLS[0] += 1
        right = state.output.completion.strip() == target.text
        return Score(value=float(right != (_CALLS[0] == 4)))
    return score


@task
def flips_once_task() -> Task:
    _CALLS[0] = 0
    return Task(dataset=MATH[:3], solver=generate(), scorer=flips_once())


_COIN = random.Random(7)


@scorer(metrics=[accuracy()])
def coin():
    """A verdict drawn at random on every call: no verdict of it is a measurement."""
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=float(_COIN.random() < 0.5))
    return score


@task
def coin_task() -> Task:
    return Task(dataset=MATH[:3], solver=generate(), scorer=[coin(), exact()])


@scorer(metrics=[accuracy()])
def notes_in_store():
    """Exact match that leaves a note in the sample's store and credits only a state without
    one: deterministic on the state it is given, so scoring twice must not see its own note."""
    async def score(state: TaskState, target: Target) -> Score:
        seen = state.store.get("toy_scored", False)
        state.store.set("toy_scored", True)
        return Score(value=float(not seen and state.output.completion.strip() == target.text))
    return score


@task
def store_note_task() -> Task:
    return Task(dataset=MATH[:3], solver=generate(), scorer=notes_in_store())


@scorer(metrics=[accuracy()])
def sleeps_in_sync():
    """A scorer that makes a synchronous call (3 s) and so never yields to the event loop."""
    async def score(state: TaskState, target: Target) -> Score:
        time.sleep(3)
        return Score(value=1.0)
    return score


@task
def blocking_scorer_task() -> Task:
    return Task(dataset=MATH[:1], solver=generate(), scorer=sleeps_in_sync())


# The Ctrl-C tests (test_user_interrupt.py): each call says it began in the file named by
# AGM_TEST_STARTED, then takes NAP_S seconds, long enough to be interrupted in the middle.
NAP_S = 20


def _began() -> None:
    mark = os.environ.get("AGM_TEST_STARTED")
    if mark:
        with open(mark, "a", encoding="utf-8") as f:
            f.write("began\n")


@scorer(metrics=[accuracy()])
def naps_blocking():
    """Holds the event loop for NAP_S seconds (a synchronous call), then says 1.0."""
    async def score(state: TaskState, target: Target) -> Score:
        _began()
        time.sleep(NAP_S)
        return Score(value=1.0)
    return score


@scorer(metrics=[accuracy()])
def naps_swallowing():
    """Awaits NAP_S seconds; whatever stops it (KeyboardInterrupt, a cancellation), it says 0.0."""
    async def score(state: TaskState, target: Target) -> Score:
        _began()
        try:
            await asyncio.sleep(NAP_S)
        except BaseException:
            return Score(value=0.0)
        return Score(value=1.0)
    return score


@solver
def naps_solver():
    """The task's own solver holds the event loop for NAP_S seconds (the do-nothing run)."""
    async def solve(state: TaskState, generate_) -> TaskState:
        _began()
        time.sleep(NAP_S)
        return state
    return solve


@task
def napping_scorer_task() -> Task:
    return Task(dataset=MATH[:1], solver=generate(), scorer=naps_blocking())


@task
def swallowing_scorer_task() -> Task:
    return Task(dataset=MATH[:1], solver=generate(), scorer=naps_swallowing())


@task
def napping_solver_task() -> Task:
    return Task(dataset=MATH[:1], solver=naps_solver(), scorer=exact())


@scorer(metrics=[accuracy()])
def raises_keyboard_interrupt():
    """Raises KeyboardInterrupt itself: its own failure, an INVALID cell, never a Ctrl-C."""
    async def score(state: TaskState, target: Target) -> Score:
        raise KeyboardInterrupt("raised by the scorer")
    return score


@task
def keyboard_interrupt_scorer_task() -> Task:
    return Task(dataset=MATH[:3], solver=generate(), scorer=[raises_keyboard_interrupt(),
                                                             exact()])
