"""Scorer columns in the order they stay on a narrow terminal: the outcome (ground-truth)
scorer first, so it is the last column to go (issue 39 item 4: a table at 80 columns that
kept a gameable verifier and hid the ground truth misled its reader)."""

from __future__ import annotations

from collections.abc import Iterable

from agentmetrology.envs.registry import env_names, outcome_scorers


def outcome_scorer_names() -> frozenset[str]:
    """Return the names every registered environment declares as an outcome scorer."""
    names: set[str] = set()
    for env in env_names():
        try:
            names.update(outcome_scorers(env))
        except ValueError:  # a broken third-party entry point: `agm envs` reports it
            continue
    return frozenset(names)


def outcome_first(scorers: Iterable[str]) -> list[str]:
    """Return `scorers` sorted by name, the outcome scorers first."""
    names = sorted(set(scorers))
    if len(names) <= 1:
        return names
    outcome = outcome_scorer_names()
    return sorted(names, key=lambda n: (n not in outcome, n))
