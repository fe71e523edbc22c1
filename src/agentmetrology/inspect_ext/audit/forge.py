"""The forged outputs of an Inspect sample, built from its target (docs/inspect.md).

correct = the target as the output; empty = nothing; fabricated = another sample's target
(well-formed, wrong); format_only = the target's shape with every letter and digit changed;
truncated = the target's first half. Truth is by construction (1.0 correct, 0.5 a prefix of it,
0.0 wrong); a forgery that cannot be made degraded for a sample (a one-character target has no
prefix, every other sample has the same answer) stays in the battery with truth 1.0 and the
reason in its detail, so nothing is silently dropped. For a multiple-choice sample the output is
`ANSWER: X` and the chosen letter is marked on the task state, as Inspect's solver would.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from agentmetrology.audit.target import Probe

PROBE_NAMES: tuple[str, ...] = ("correct", "empty", "fabricated", "format_only", "truncated")
TRUNCATED_TRUTH = 0.5  # a prefix of the answer: degraded, not nothing


@dataclass(frozen=True, slots=True)
class Forged:
    """A forged model output: its text, and for a multiple-choice sample the letter chosen."""

    text: str
    letter: str | None = None


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _shift(ch: str) -> str:
    """Return the next character of the same class (digit, lower, upper); others unchanged."""
    for alphabet in (string.digits, string.ascii_lowercase, string.ascii_uppercase):
        if ch in alphabet:
            return alphabet[(alphabet.index(ch) + 1) % len(alphabet)]
    return ch


def _letters(n: int) -> str:
    return string.ascii_uppercase[:n]


def _output(text: str, choices: tuple[str, ...]) -> Forged:
    if choices and len(text) == 1 and text.upper() in _letters(len(choices)):
        return Forged(f"ANSWER: {text.upper()}", text.upper())
    return Forged(text)


def forge(index: int, targets: list[tuple[str, ...]], choices: tuple[str, ...]) -> list[Probe]:
    """Return the battery for sample `index` (first: correct) given every sample's targets."""
    mine = targets[index]
    answer = mine[0]
    accepted = {_norm(t) for t in mine}

    def probe(name: str, text: str, truth: float, reason: str | None = None) -> Probe:
        if truth < 1.0 and _norm(text) in accepted:  # the forgery happens to be an answer
            truth, reason = 1.0, "the forged output is one of the sample's targets"
        detail = {"reason": reason} if reason else {}
        return Probe(name, _output(text, choices), truth, {"degraded": truth < 1.0, **detail})

    out = [probe("correct", answer, 1.0), probe("empty", "", 0.0)]
    others = [targets[(index + k) % len(targets)] for k in range(1, len(targets))]
    other = next((t[0] for t in others if t and not accepted & {_norm(x) for x in t}), None)
    out.append(probe("fabricated", other, 0.0) if other is not None else probe(
        "fabricated", answer, 1.0, "no other sample has a different target"))
    if choices and len(answer) == 1 and answer.upper() in _letters(len(choices)):
        letters = _letters(len(choices))
        shaped = letters[(letters.index(answer.upper()) + 1) % len(letters)]
    else:
        shaped = "".join(_shift(c) for c in answer)
    out.append(probe("format_only", shaped, 0.0) if shaped != answer else probe(
        "format_only", answer, 1.0, "the target has no letter or digit to change"))
    half = answer.strip()[: len(answer.strip()) // 2]
    out.append(probe("truncated", half, TRUNCATED_TRUTH) if half else probe(
        "truncated", answer, 1.0, "the target is one character: no prefix"))
    return out
