"""The number guard refuses prose with numbers absent from the source JSON."""

from __future__ import annotations

import pytest

from agentmetrology.report.numberguard import NumberGuard, NumberGuardError

SOURCE = {"share": 0.025, "episodes": 200, "p2": 0.2733333333333333, "delta": -0.05,
          "detail": "30 agent steps (62 messages)", "bounds": [0.3, 0.8], "whole": 4.0}


@pytest.fixture
def guard() -> NumberGuard:
    return NumberGuard(SOURCE, precision=3, percent_precision=1)


@pytest.mark.parametrize("text", [
    "200 episodes, `pass^2` = 0.273 and an ungraded share of 2.5%.",
    "The difference is -0.050 (or -5.0%).",
    "It stopped after 30 agent steps (62 messages).",
    "Between 30.0%-80.0% or 0.300–0.800.",
    "Exact values pass too: 0.025, 0.2733333333333333, 4.",
    "Identifiers in code spans are skipped: `gpt-4o-airline/33/0`, `v9.9.9`, `sha 1234`.",
    "Digits glued to words are not numbers: gpt-4o, sha256, t0.",
    "Sentence-final 200.",
])
def test_allowed(guard: NumberGuard, text: str) -> None:
    guard.check(text)


@pytest.mark.parametrize(("text", "token"), [
    ("`pass^2` = 0.27", "0.27"),  # wrong precision
    ("`pass^2` = 0.27333", "0.27333"),
    ("7 episodes were lost", "7"),
    ("a share of 2.50%", "2.50%"),
    ("a change of +0.05", "0.05"),
    ("the model gpt-5 did better", "5"),
    ("tolerance 1e-6", "6"),
    ("range 30-81%", "81%"),
])
def test_refused(guard: NumberGuard, text: str, token: str) -> None:
    with pytest.raises(NumberGuardError) as err:
        guard.check(text)
    assert token in [t for t, _ in err.value.offending]
    assert "report refused" in str(err.value)


def test_formatting_helpers_agree_with_guard(guard: NumberGuard) -> None:
    assert guard.fmt(0.2733333333333333) == "0.273"
    assert guard.fmt(200) == "200"
    assert guard.fmt(None) == "n/a"
    assert guard.pct(0.025) == "2.5%"
    assert guard.fmt(-0.0001) == "0.000"  # no negative zero
    guard.check(guard.fmt(SOURCE["p2"]), guard.pct(SOURCE["share"]))


def test_booleans_are_not_numbers() -> None:
    g = NumberGuard({"flag": True, "n": None})
    with pytest.raises(NumberGuardError):
        g.check("1 thing")


def test_many_texts_reported_together(guard: NumberGuard) -> None:
    with pytest.raises(NumberGuardError) as err:
        guard.check("7 a", "fine 200", "8 b")
    assert [t for t, _ in err.value.offending] == ["7", "8"]


def test_significant_digits_for_costs() -> None:
    g = NumberGuard({"cost": 0.000123456, "big": 1234567.0})
    assert g.sig(0.000123456) == "0.0001235"
    g.check("cost 0.0001235 and 1234567")
    assert g.sig(1234567.0) == "1234567.000"  # never scientific notation in prose


def test_a_repeated_value_keeps_the_forms_of_each_type_and_sign() -> None:
    # numbers are given their forms once per (type, value, sign at zero): 1 and 1.0 print
    # apart, and so do 0.0 and -0.0, whichever comes first
    for source in ([1, 1.0, 0.0, -0.0] * 3, [-0.0, 0.0, 1.0, 1] * 3):
        allowed = NumberGuard({"xs": source})._allowed
        assert {"1", "1.000", "1.0", "0.0", "-0.0", "0.000", "100.0%"} <= allowed
    deep: object = 2.5
    for _ in range(5000):  # deeper than the interpreter's recursion limit
        deep = [deep]
    NumberGuard({"deep": deep}).check("2.500")


def test_the_allowed_set_is_every_value_walked_plainly() -> None:
    # Each distinct string's number tokens are read once (an audit repeats its keys and labels
    # in every cell): the allowed set is the one a plain walk of every value gives.
    import math

    from agentmetrology.report.numberguard import NUMBER

    cell = {"cell": "m / A", "score 0.5 of 12": 0.5, "counts": {"pass": 3, "fail": 0},
            "note": "3 of 12 tasks, 25%", "flags": [True, None, -0.0, 0.0, 1, 1.0, math.inf]}
    doc = {"cells": [dict(cell, n=i) for i in range(40)], "title": "run 7 of 2026",
           "nested": [[["deep 41.5"]], ("tuple", 2.25)]}
    guard = NumberGuard(doc)
    allowed: set[str] = set()
    stack: list[object] = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack += [*v.keys(), *v.values()]
        elif isinstance(v, list | tuple):
            stack += list(v)
        elif isinstance(v, str):
            allowed.update(m.group(0) for m in NUMBER.finditer(v))
        elif isinstance(v, int | float) and not isinstance(v, bool):
            allowed.update(guard.forms(v))
    assert guard._allowed == allowed and {"-0.0", "41.5", "2026", "25%"} <= allowed


@pytest.mark.parametrize(("p", "text"), [
    (1.9073486328125e-06, "0.00000191"),  # 2/2^20: every one of 20 deltas of one sign
    (0.0001220703125, "0.000122"),
    (0.00049, "0.000490"),
    (0.0005, "0.001"),  # three decimals do not print it as 0
    (0.03125, "0.031"),
    (0.0, "0.000"),
    (1.0, "1.000"),
])
def test_a_nonzero_p_value_never_prints_as_zero(p: float, text: str) -> None:
    # Experiment reports had printed 2/2^20 as "0.000" beside "confirmed"; the guard lets the
    # report print the p-value it holds.
    g = NumberGuard({"p": p})
    assert g.p(p) == text and g.p(None) == "n/a"
    g.check(f"sign-flip p {text}")


def test_a_huge_float_prints_in_scientific_notation_and_is_checked_whole() -> None:
    # fmt printed 8e307 with `:.3f`: a 308-digit number in report.md
    g = NumberGuard({"score": 8e307, "low": -1.23456e20, "edge": 999999999999999.9,
                     "plain": 123456.789})
    assert g.fmt(8e307) == "8e+307" and g.fmt(-1.23456e20) == "-1.23e+20"
    assert g.fmt(1e15) == "1e+15"
    assert g.fmt(999999999999999.9) == "999999999999999.875"  # below 1e15: as before
    assert g.fmt(123456.789) == "123456.789" and g.fmt(10**20) == str(10**20)
    g.check("scores 8e+307 and -1.23e+20, edge 999999999999999.875")
    with pytest.raises(NumberGuardError) as err:
        g.check("a score of 9e+307")
    assert [t for t, _ in err.value.offending] == ["9e+307"]  # never a bare 307
