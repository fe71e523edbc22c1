"""Writes a real Inspect AI `.eval` log with the mock model (`write_log`, or run as a script).

The suite writes it in the one process that writes every Inspect log it reads
(tests/support/inspect_logs.py, through tests/inspect_ext/inspect_mock.py).

Six samples x two epochs: s1 raises in the solver (errored, fail_on_error=False), s2's scorer
returns NaN (unscored), s4's scorer returns None (no score); s0 and s3 are correct, s5 incorrect.
The mock model's outputs carry usage so no tokenizer download is attempted (offline), and a cost
(0.0125 for the call of lookup, 0.0075 for the final answer) so the cost check has money to add.
The same log is written once more as Inspect's JSON log format, beside it (`<name>.json`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer
from inspect_ai.solver import generate, solver, use_tools
from inspect_ai.tool import tool


@tool
def lookup():  # type: ignore[no-untyped-def]
    async def execute(key: str) -> str:
        """Look up a key.

        Args:
          key: the key to look up
        """
        return f"value-of-{key}"

    return execute


def outputs(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
    if tools and not any(m.role == "tool" for m in messages):
        out = ModelOutput.for_tool_call("mockllm/model", "lookup", {"key": "k1"})
        cost = 0.0125
    else:
        out = ModelOutput.from_content("mockllm/model", "final answer")
        cost = 0.0075
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15, total_cost=cost)
    return out


@solver
def maybe_fail():  # type: ignore[no-untyped-def]
    async def solve(state, generate_fn):  # type: ignore[no-untyped-def]
        if state.metadata.get("boom"):
            raise RuntimeError("solver exploded on purpose")
        return state

    return solve


@scorer(metrics=[accuracy()])
def odd_scorer():  # type: ignore[no-untyped-def]
    async def score(state, target):  # type: ignore[no-untyped-def]
        if state.metadata.get("nan"):
            return Score(value=float("nan"), explanation="no verdict")
        if state.metadata.get("none"):
            return None
        return Score(value=CORRECT if state.metadata.get("ok") else INCORRECT)

    return score


def write_log(log_dir: str) -> str:
    """Run the demo task with the mock model into `log_dir`; return the log's location."""
    samples = [Sample(input=f"q{i}", target="a", id=f"s{i}",
                      metadata={"boom": i == 1, "nan": i == 2, "none": i == 4, "ok": i in (0, 3)})
               for i in range(6)]
    task = Task(dataset=samples, solver=[use_tools(lookup()), maybe_fail(), generate()],
                scorer=odd_scorer(), epochs=2)
    model = get_model("mockllm/model", custom_outputs=outputs)
    (log,) = inspect_eval(task, model=model, log_dir=log_dir, fail_on_error=False,
                          display="none")
    location = Path(log.location)
    write_eval_log(read_eval_log(str(location)), str(location.with_suffix(".json")),
                   format="json")
    return str(location)


if __name__ == "__main__":
    print(write_log(sys.argv[1]))
