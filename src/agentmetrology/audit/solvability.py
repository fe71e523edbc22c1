"""The solvability audit: can one response's output budget hold the answer a task demands?

Where the model owns the answer's emission (ComtradeBench at L2 re-emits every cleaned row in
one `submit_results` call), the answer's length is a ceiling no capability can lift: a task
whose correct answer does not fit the declared output budget measures the budget, not the
model. Per task and level: the demanded call's size in tokens, how many answer rows fit, and
the F1 cap that implies (every emitted row correct: precision 1, recall rows_fit / rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agentmetrology.records.environment import DemandedCall, EnvSpec

# Tokens are estimated from UTF-8 bytes, offline and tokenizer-free. The constant is the seed
# paper's measurement carried onto our rows: it counted about 54 output tokens per re-emitted
# ComtradeBench row, and a row in compact JSON is 166 bytes on average over every task here
# (165.4 to 174.6 by task, seed 0). So 166 / 54 = 3.07 bytes a token, applied to everything the
# call holds (the escapes a row gains inside the argument string, the metadata, the log).
BYTES_PER_TOKEN = 166 / 54
DEFAULT_BUDGETS: tuple[int, ...] = (8192, 16384)  # the paper's two budgets, output tokens


def f1_cap(rows: int, fit: int) -> float:
    """Return the best F1 of an answer cut to `fit` of `rows` rows, every emitted row right."""
    if rows <= 0:
        return 1.0
    fit = min(fit, rows)
    return 2 * fit / (rows + fit)


def rows_that_fit(call: DemandedCall, budget: int) -> int:
    """Return how many answer rows, in order, fit `budget` tokens beside the rest of the call."""
    sizes = np.fromiter((len(r.encode("utf-8")) for r in call.rows), dtype=np.int64,
                        count=len(call.rows))
    overhead = len(call.text.encode("utf-8")) - int(sizes.sum())
    room = budget * BYTES_PER_TOKEN - overhead
    if room <= 0:
        return 0
    return int(np.searchsorted(np.cumsum(sizes), room, side="right"))


def task_size(call: DemandedCall) -> dict[str, Any]:
    """Return the demanded call's size: rows, tokens in all, per row and outside the rows."""
    total = len(call.text.encode("utf-8"))
    row_bytes = sum(len(r.encode("utf-8")) for r in call.rows)
    n = len(call.rows)
    return {"rows": n, "demanded_tokens": round(total / BYTES_PER_TOKEN, 1),
            "tokens_per_row": round(row_bytes / n / BYTES_PER_TOKEN, 2) if n else 0.0,
            "overhead_tokens": round((total - row_bytes) / BYTES_PER_TOKEN, 1)}


def _level_cell(owner: str, calls: Sequence[DemandedCall],
                budgets: Sequence[int]) -> dict[str, Any]:
    """Return one level's cell: who writes the answer, and the caps where the model does."""
    if owner != "model":
        return {"owner": owner, "caps": None,
                "reason": "the harness writes the answer: no model output budget binds"}
    caps = {}
    for b in budgets:
        fits = [rows_that_fit(c, b) for c in calls]
        worst = min(range(len(calls)), key=lambda i: f1_cap(len(calls[i].rows), fits[i]))
        cap = f1_cap(len(calls[worst].rows), fits[worst])
        caps[str(b)] = {"rows_fit": fits[worst], "f1_cap": round(cap, 4), "fair": cap >= 1.0}
    return {"owner": owner, "caps": caps}


def solvability(spec: EnvSpec, budgets: Sequence[int], seeds: int) -> dict[str, Any]:
    """Return the solvability stage: per task and level, the caps at each budget (worst seed)."""
    hooks = spec.audit
    if hooks is None or hooks.demanded_call is None or not hooks.emission_decision:
        return {"status": "not probed",
                "reason": "the environment does not say what answer a task demands"}
    if not budgets:
        return {"status": "not probed", "reason": "no output budget declared"}
    # Without an ownership map (or the decision in it) nothing but the model writes the answer.
    owners = {lv: (spec.ownership.get(lv) or {}).get(hooks.emission_decision, "model")
              for lv in spec.levels}
    tasks, flagged = [], []
    for task in spec.tasks:
        calls = [hooks.demanded_call(task, s) for s in range(max(seeds, 1))]
        levels = {lv: _level_cell(owner, calls, budgets) for lv, owner in owners.items()}
        sizes = [task_size(c) for c in calls]
        tasks.append({"task": task, **max(sizes, key=lambda z: z["demanded_tokens"]),
                      "levels": levels})
        flagged += [{"task": task, "level": lv, "budget": int(b), "f1_cap": cell["f1_cap"],
                     "rows_fit": cell["rows_fit"], "rows": sizes[0]["rows"]}
                    for lv, c in levels.items() if c["caps"]
                    for b, cell in c["caps"].items() if not cell["fair"]]
    return {"status": "fail" if flagged else "pass", "budgets": [int(b) for b in budgets],
            "seeds": max(seeds, 1), "bytes_per_token": round(BYTES_PER_TOKEN, 4),
            "estimate": "UTF-8 bytes / bytes_per_token (no tokenizer; see docs/audit.md)",
            "emission_decision": hooks.emission_decision, "tasks": tasks, "flagged": flagged}


def solvability_lines(stage: dict[str, Any]) -> list[str]:
    """Return the terminal lines of the stage: one per flagged task, level and budget."""
    if stage.get("status") == "not probed":
        return [f"solvability: not probed ({stage['reason']})"]
    budgets = ", ".join(str(b) for b in stage["budgets"])
    if not stage["flagged"]:
        return [f"solvability: every task's answer fits {budgets} output tokens"]
    lines = [f"solvability: answers too long for one response of {budgets} output tokens",
             "  (F1 cap < 1: not a fair reliability measurement at that budget):"]
    for f in stage["flagged"]:
        lines.append(f"  {f['task']} {f['level']} @{f['budget']}: {f['rows_fit']}/{f['rows']} "
                     f"rows fit, F1 cap {f['f1_cap']:.3f}")
    return lines
