"""The forged outputs of a sample: exact texts and truths by construction."""

from agentmetrology.inspect_ext.audit.forge import Forged, forge


def _by_name(index, targets, choices=()):
    return {p.name: (p.submission, p.truth, p.detail) for p in forge(index, targets, choices)}


def test_numeric_target_battery():
    b = _by_name(1, [("4",), ("42",), ("130",)])
    assert b["correct"][:2] == (Forged("42"), 1.0)
    assert b["empty"][:2] == (Forged(""), 0.0)
    assert b["fabricated"][:2] == (Forged("130"), 0.0)  # the next sample's target
    assert b["format_only"][:2] == (Forged("53"), 0.0)  # every digit shifted
    assert b["truncated"][:2] == (Forged("4"), 0.5)


def test_undegradable_forgeries_stay_with_truth_one_and_a_reason():
    b = _by_name(0, [("7",), ("7",)])
    assert b["fabricated"][1] == 1.0 and "no other sample" in b["fabricated"][2]["reason"]
    assert b["truncated"][1] == 1.0 and "one character" in b["truncated"][2]["reason"]


def test_a_forgery_that_is_an_accepted_target_is_not_degraded():
    b = _by_name(0, [("cat", "dbu"), ("dog",)])  # format_only of "cat" is "dbu": accepted
    assert b["format_only"][1] == 1.0


def test_multiple_choice_renders_answer_and_marks_the_letter():
    b = _by_name(0, [("D",), ("B",)], choices=("w", "x", "y", "z"))
    assert b["correct"][0] == Forged("ANSWER: D", "D")
    assert b["format_only"][0] == Forged("ANSWER: A", "A")  # next letter, wrapped
    assert b["fabricated"][0] == Forged("ANSWER: B", "B")
