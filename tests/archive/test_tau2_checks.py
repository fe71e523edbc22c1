"""The ACTION matching rules of inspect-evals' tau2 evaluator, as tau2_checks applies them."""

from __future__ import annotations

from agentmetrology.archive.tau2_checks import action_matches, communicated, same_value


def test_same_value_treats_lists_as_multisets_and_ints_as_floats() -> None:
    assert same_value([1, 2, [3, 4]], [[4, 3], 2, 1])
    assert same_value({"a": 1, "b": ["x", "y"]}, {"b": ["y", "x"], "a": 1.0})
    assert not same_value([1, 1, 2], [1, 2, 2])  # multisets, not sets
    assert not same_value({"a": 1}, {"a": 1, "b": None})  # keys must agree
    assert not same_value(True, 1) and not same_value("1", 1)


def test_action_matching_by_requestor_name_and_compared_arguments() -> None:
    gold = [{"requestor": "assistant", "name": "book", "arguments": {"id": "A", "note": "x"},
             "compare_args": ["id"]},
            {"requestor": "assistant", "name": "book", "arguments": {"id": "A", "note": "x"}},
            {"requestor": "user", "name": "toggle_data", "arguments": {}},
            {"requestor": "assistant", "name": "refund", "arguments": {"n": 1},
             "compare_args": []},
            {"requestor": "assistant", "name": "transfer_to_human_agents",
             "arguments": {"summary": "the gold words"}}]
    calls = [("assistant", "book", {"id": "A", "note": "other"}),
             ("assistant", "toggle_data", {}),  # the agent's call does not count for the user
             ("assistant", "refund", {"n": 99}),
             ("assistant", "transfer_to_human_agents", {"summary": "other words"})]
    assert action_matches(gold, calls) == [True, False, False, True, True]
    assert action_matches(gold[2:3], [("user", "toggle_data", {})]) == [True]


def test_communicate_is_case_and_comma_insensitive_in_the_agent_text() -> None:
    assert communicated(["The refund is $1,628."], ["1628"])
    assert not communicated(["The refund is $1,628."], ["1,628"])  # tau2 strips the text only
