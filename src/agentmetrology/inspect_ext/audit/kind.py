"""Classify an Inspect scorer's kind: llm_judge, string-match, shape, outcome or specification.

In this order: a scorer that calls a model while scoring (observed) or whose code asks for one
is an llm_judge; Inspect's built-in text comparisons are string-match; one that never returned a
number is unknown; with no answer target to forge from, a scorer that still returns verdicts
judges the episode (outcome); a scorer whose verdict the output text never changes is shape when
it gives every output full credit, else outcome (it judges the episode); a scorer that reads the
episode (store, sandbox, messages) or whose do-nothing verdicts differ across samples is outcome;
any other check of the output against the target is specification.

The kinds read from the scores (shape, outcome by an unchanging or varying verdict,
specification) rest on the samples probed and need at least MIN_SAMPLES of them; below that
the kind is "insufficient evidence (n = k, needs 3)" and licenses nothing (`kind_verdict`).
"""

from __future__ import annotations

import types
from typing import Any

from agentmetrology.audit.target import ScorerKind
from agentmetrology.records.verdict import Verdict

STRING_MATCH = frozenset({"match", "includes", "exact", "pattern", "answer", "choice", "f1"})
JUDGE_NAMES = frozenset({"get_model", "model_graded_qa", "model_graded_fact"})
EPISODE_NAMES = frozenset({"store", "store_as", "sandbox", "messages", "tool_calls"})
FULL_EPS = 1e-9
MAX_DEPTH = 4  # closures of closures: enough for scorer factories and multi_scorer wrappers
# A kind read from scores needs this many probed samples: with n samples that all credit a
# forged output, the one-sided 95% lower bound on how often the scorer credits one is
# 0.05 ** (1 / n), 0.05 at n = 1 and 0.22 at n = 2: one or two samples a do-nothing agent
# happens to pass (tau2 airline's first two) cannot tell "credits everything" from an outcome
# scorer; at 3 the first failing sample shows up on tau2 airline and the kind is the
# full-domain one.
MIN_SAMPLES = 3
CREDITS_ALL = "every forged output, correct or not, got full credit"
NEVER_CHANGES = "the output text never changes its verdict: it judges the episode"
EMPTY_DIFFERS = "its do-nothing verdicts differ across samples: it reads task state"
AGAINST_TARGET = "checks the output against the sample's target"
FROM_SCORES = frozenset({CREDITS_ALL, NEVER_CHANGES, EMPTY_DIFFERS, AGAINST_TARGET})


def code_names(fn: Any, depth: int = 0, seen: set[int] | None = None) -> set[str]:
    """Return the global and attribute names the function (and what it closes over) uses."""
    seen = seen if seen is not None else set()
    if depth > MAX_DEPTH or id(fn) in seen:
        return set()
    seen.add(id(fn))
    names: set[str] = set()
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        stack = [code]
        while stack:
            c = stack.pop()
            names.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    # Helpers the scorer calls by name from its own package (a judge's `get_model` often sits
    # in one); library functions outside that package are not followed.
    home = str(getattr(fn, "__module__", "") or "").split(".")[0]
    glob = getattr(fn, "__globals__", None) or {}
    for name in list(names):
        helper = glob.get(name)
        if (isinstance(helper, types.FunctionType) and home and home != "inspect_ai"
                and str(helper.__module__).split(".")[0] == home):
            names |= code_names(helper, depth + 1, seen)
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        for item in value if isinstance(value, list | tuple) else (value,):
            if callable(item):
                names |= code_names(item, depth + 1, seen)
    return names


def classify(name: str, fn: Any, judge_calls: int, forged_scores: list[list[float]],
             empty_scores: list[float]) -> tuple[ScorerKind, str]:
    """Return (kind, the evidence it rests on) for one scorer.

    `forged_scores` holds, per sample, the scores of its forged outputs (correct first);
    `empty_scores` the do-nothing verdicts.
    """
    names = code_names(fn)
    short = name.rsplit("/", 1)[-1]
    if judge_calls:
        return "llm_judge", f"called a model {judge_calls} times while scoring"
    if names & JUDGE_NAMES or "model_graded" in short:
        return "llm_judge", "its code asks for a model (get_model / model_graded)"
    if name.startswith("inspect_ai/") and short in STRING_MATCH:
        return "string-match", f"Inspect's built-in `{short}` text comparison"
    if not any(forged_scores):
        if not empty_scores:
            return "unknown", "it returned no number on any probe"
        return "outcome", "the samples have no answer target: it judges the episode"
    full = [s for s in forged_scores if len(s) >= 2]
    if full and all(len(set(s)) == 1 for s in full):
        if all(s[0] >= 1.0 - FULL_EPS for s in full):
            return "shape", CREDITS_ALL
        return "outcome", NEVER_CHANGES
    if names & EPISODE_NAMES:
        return "outcome", "reads the episode (" + ", ".join(sorted(names & EPISODE_NAMES)) + ")"
    if len(set(empty_scores)) > 1:
        return "outcome", EMPTY_DIFFERS
    return "specification", AGAINST_TARGET


def kind_verdict(kind: str, basis: str, samples: int) -> Verdict:
    """Return the kind as a Verdict: n = samples probed; a kind read from scores needs 3."""
    return Verdict.judged(kind, samples, "samples probed",
                          MIN_SAMPLES if basis in FROM_SCORES else 0, why=basis)
