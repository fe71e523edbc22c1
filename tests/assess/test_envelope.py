"""Unresolved outcomes: decided-only ratio, coverage and the accounting envelope, pinned.

The envelope's plain-data form and percentages, every field written out (assess/envelope.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from agentmetrology.assess.envelope import Envelope, envelope_of, percent


def test_reference_23_pass_2_fail_5_unknown_of_30() -> None:
    e = envelope_of(["PASS"] * 23 + ["FAIL"] * 2 + ["UNKNOWN"] * 5)
    assert (e.admissible, e.decided) == (30, 25)
    assert (e.lower, e.upper) == (Fraction(23, 30), Fraction(28, 30))
    assert (percent(e.lower), percent(e.upper)) == ("76.7%", "93.3%")
    assert e.decided_ratio == Fraction(23, 25) and percent(e.decided_ratio) == "92.0%"
    assert e.coverage == Fraction(25, 30)
    d = e.as_dict()
    assert d["envelope_counts"] == ["23/30", "28/30"]
    assert d["decided_ratio_exact"] == "23/25" and d["coverage_exact"] == "5/6"


def test_reference_92_successes_96_of_192_masked() -> None:
    e = Envelope(n_pass=92, n_fail=4, n_unknown=96)
    assert e.admissible == 192
    assert (percent(e.lower), percent(e.upper)) == ("47.9%", "97.9%")
    assert (e.lower, e.upper) == (Fraction(92, 192), Fraction(188, 192))
    assert e.decided_ratio == Fraction(92, 96) and e.coverage == Fraction(1, 2)


def test_unknown_is_never_averaged_as_a_failure() -> None:
    # Read as failures, 5 UNKNOWN would give 23/30 as "the" rate; the envelope keeps both ends.
    e = envelope_of(["PASS"] * 23 + ["FAIL"] * 2 + ["UNKNOWN"] * 5)
    assert e.upper != e.lower and e.decided_ratio == Fraction(23, 25)


def test_invalid_and_measurement_failures_are_excluded_and_counted() -> None:
    e = envelope_of(["PASS", "FAIL", "UNKNOWN", "INVALID", None, None, "PARTIAL"])
    assert (e.admissible, e.n_invalid, e.n_unmeasured, e.decided) == (4, 1, 2, 3)
    assert e.decided_ratio == Fraction(1, 3)
    assert e.as_dict()["excluded"] == {"invalid": 1, "measurement_failure": 2}


def test_nothing_admissible_or_decided_is_undefined_not_zero() -> None:
    e = envelope_of([None, "INVALID"])
    assert e.lower is None and e.upper is None and e.decided_ratio is None
    d = e.as_dict()
    assert d["envelope"] is None and d["decided_ratio"] is None and d["coverage"] is None
    only_unknown = envelope_of(["UNKNOWN"] * 3)
    assert only_unknown.decided_ratio is None and only_unknown.coverage == 0
    assert (only_unknown.lower, only_unknown.upper) == (0, 1)
    with pytest.raises(ValueError, match="unknown status 'MAYBE'"):
        envelope_of(["MAYBE"])


def test_percent_defaults_to_one_decimal() -> None:
    assert percent(Fraction(1, 3)) == "33.3%"
    assert percent(Fraction(2, 3), 2) == "66.67%"
    assert percent(None) == "—"


def test_as_dict_of_a_mixed_envelope() -> None:
    env = envelope_of(["PASS", "PASS", "FAIL", "UNKNOWN", "PARTIAL", "INVALID", None, None])
    assert env == Envelope(2, 1, 1, 1, 1, 2)
    assert env.as_dict() == {
        "admissible": 5, "pass": 2, "fail": 1, "partial": 1, "unknown": 1, "decided": 4,
        "excluded": {"invalid": 1, "measurement_failure": 2},
        "decided_ratio": 0.5, "decided_ratio_exact": "1/2",
        "coverage": 0.8, "coverage_exact": "4/5",
        "envelope": [0.4, 0.6], "envelope_counts": ["2/5", "3/5"],
        "verdict": {"verdict": "pass rate between 2/5 and 3/5", "n": 5,
                    "counted": "admissible records", "minimum": 1, "sufficient": True,
                    "text": "pass rate between 2/5 and 3/5 (n = 5 admissible records)",
                    "interval": [0.4, 0.6], "confidence": None,
                    "interval_of": "pass rate (accounting envelope: each UNKNOWN a fail, "
                                   "then a pass)",
                    "consistent": [], "stable": True,
                    "why": "1 unresolved widen the envelope; 1 invalid and 2 measurement "
                           "failures excluded"}}


def test_as_dict_with_nothing_admissible_or_nothing_decided() -> None:
    assert envelope_of(["INVALID", None]).as_dict() == {
        "admissible": 0, "pass": 0, "fail": 0, "partial": 0, "unknown": 0, "decided": 0,
        "excluded": {"invalid": 1, "measurement_failure": 1},
        "decided_ratio": None, "decided_ratio_exact": None,
        "coverage": None, "coverage_exact": None,
        "envelope": None, "envelope_counts": None,
        "verdict": {"verdict": "insufficient evidence", "n": 0,
                    "counted": "admissible records", "minimum": 1, "sufficient": False,
                    "text": "insufficient evidence (n = 0 admissible records, needs 1)",
                    "interval": None, "confidence": None, "interval_of": "",
                    "consistent": [], "stable": True,
                    "why": "0 unresolved widen the envelope; 1 invalid and 1 measurement "
                           "failures excluded (withheld: no pass rate)"}}
    undecided = envelope_of(["UNKNOWN", "UNKNOWN"]).as_dict()  # exact fractions are reduced
    assert (undecided["decided_ratio"], undecided["coverage_exact"], undecided["envelope"],
            undecided["envelope_counts"]) == (None, "0/1", [0.0, 1.0], ["0/2", "2/2"])


def test_a_decided_envelope_is_one_pass_rate() -> None:
    v = envelope_of(["PASS", "FAIL", "PASS"]).verdict()
    assert v.text() == "pass rate 2/3 (n = 3 admissible records)"
    assert v.interval == (2 / 3, 2 / 3)
