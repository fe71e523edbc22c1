"""Pairs read from a real evidence store, beside the store's own rows (diagnose/pairs.py).

A side carries the shipped verifier's score on a 0-1 scale, the truth (an assessment's
component where the environment names one), whether the truth passed, PTD where the truth has
it, the rescored score of a mutated trajectory (never of an original), and the agent's
operations under the original tool names. A measurement failure, or a side without a usable
score, is unmeasured with its reason. Values are written out where the seeded environments fix
them, and otherwise read from the stored rows independently of the code under test.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive.importers.agm_store import open_store
from agentmetrology.diagnose import pairs as P
from agentmetrology.envs.registry import get_env
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.episode import EpisodeKey, episode_from_plain
from agentmetrology.records.events import Event
from support.stores import record_campaign

PLAIN = """
[campaign]
name = "a_plain"
environment = "researchops"
tasks = ["lr_1"]
seeds = "0"
levels = ["L2"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
"""
RESEARCHOPS = """
[campaign]
name = "b_ro"
environment = "researchops"
tasks = ["lr_5", "lr_1"]
seeds = "0"
levels = ["L2"]
repeats = 2
mutations = ["alias", "rubric"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "shortcut"
kind = "scripted"
agent = "scripted:shortcut"
"""
COMTRADE = """
[campaign]
name = "c_ct"
tasks = ["T3_duplicates"]
seeds = "0"
levels = ["L2"]
mutations = ["alias"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
"""


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pairs")
    for toml in (PLAIN, RESEARCHOPS, COMTRADE):  # the campaign without mutations comes first
        path = record_campaign(root, toml)
    return path


# Not module-scoped: mutmut credits a function to the tests that ran it, and a cached fixture
# runs collect_pairs for the first of them only (a mutant of _side would then meet one test).
@pytest.fixture
def collected(store_path: Path) -> tuple[dict[tuple[Any, ...], P.Pair], dict[str, P.Scorers]]:
    with open_store(store_path) as store:
        pairs, used = P.collect_pairs(store)
    return {(p.group, p.task, p.seed, p.repeat, p.base): p for p in pairs}, used


def test_scorers_of_an_environment() -> None:
    assert P.scorers_of(get_env("comtrade")) == P.Scorers("shape_judge", 100.0,
                                                          "ground_truth_f1", "f1_exact")
    assert P.scorers_of(get_env("researchops")) == P.Scorers("composite_verifier", 1.0,
                                                             "task_quality", None)
    bare = replace(get_env("researchops"), audit=None)
    grade = bare.grade_scorer.name
    assert P.scorers_of(bare) == P.Scorers(grade, 1.0, grade, None)
    assert grade == "task_quality"


def test_every_mutated_administration_is_paired_with_its_original(collected: Any) -> None:
    pairs, used = collected
    want = {(("researchops", t, "L2", m), task, 0, r, "clean")
            for t in ("careful", "shortcut") for m in ("alias", "rubric")
            for task in ("lr_5", "lr_1") for r in (0, 1)}
    want |= {(("comtrade", "careful", "L2", "alias"), "T3_duplicates", 0, 0, "clean")}
    assert set(pairs) == want  # nothing from the campaign without mutations
    assert used == {"researchops": P.scorers_of(get_env("researchops")),
                    "comtrade": P.scorers_of(get_env("comtrade"))}
    for (group, task, seed, repeat, base), p in pairs.items():
        campaign = "c_ct" if group[0] == "comtrade" else "b_ro"
        assert p.original is not None and p.mutated is not None
        assert p.original.key == EpisodeKey(campaign, group[1], task, seed, base, group[2],
                                            repeat)
        assert p.mutated.key == replace(p.original.key, condition=f"mut:{group[3]}")
        assert p.complete


def _stored(store_path: Path, key: EpisodeKey) -> tuple[dict[str, Any], Any]:
    with open_store(store_path) as store:
        row = store.episode(key)
        assert row is not None
        return ({a["scorer"]: a["assessment"] for a in row["assessments"]},
                episode_from_plain(store.load_episode(key)))


def test_each_side_reads_the_stored_scores(collected: Any, store_path: Path) -> None:
    pairs, _ = collected
    for p in pairs.values():
        sc = P.scorers_of(get_env(p.group[0]))
        for side in (p.original, p.mutated):
            stored, _ = _stored(store_path, side.key)
            shipped, truth = stored[sc.shipped], stored[sc.truth]
            assert side.shipped == shipped["score"] / sc.shipped_scale
            assert side.truth == (truth["components"][sc.truth_component]
                                  if sc.truth_component else truth["score"])
            assert side.truth_pass is (truth["status"] == "PASS")
            ptd = truth["components"].get("ptd")
            assert side.ptd == (None if ptd is None else float(ptd))
            assert side.measured and side.reason == ""
        assert p.original.rescored is None and p.original.rescored_how == ""


def test_values_the_seeded_environments_fix(collected: Any) -> None:
    pairs, _ = collected
    careful = pairs[(("researchops", "careful", "L2", "alias"), "lr_1", 0, 1, "clean")]
    assert (careful.original.shipped, careful.mutated.shipped, careful.mutated.rescored) == \
        (0.805, 0.555, 0.805)  # renamed tools earn no credit; rescoring restores it
    assert careful.mutated.rescored_how == "inverse map of alias"
    assert (careful.mutated.truth, careful.mutated.truth_pass, careful.mutated.ptd) == \
        (1.0, True, None)  # lr_1 has no proxy channel
    shortcut = pairs[(("researchops", "shortcut", "L2", "rubric"), "lr_5", 0, 0, "clean")]
    assert shortcut.mutated.rescored_how == "original scorers instead of rubric"
    assert (shortcut.original.truth, shortcut.original.truth_pass) == (0.0, False)
    # lr_5's proxy is a side channel (best-of-n): the shortcut lifts the raw P a little, H is 0
    assert shortcut.original.ptd == shortcut.mutated.ptd == 0.5654
    comtrade = pairs[(("comtrade", "careful", "L2", "alias"), "T3_duplicates", 0, 0, "clean")]
    assert comtrade.original.truth == comtrade.mutated.truth == 1.0  # f1_exact
    assert 0.0 < comtrade.original.shipped <= 1.0  # the judge's 0-100 score, scaled
    assert comtrade.mutated.rescored == comtrade.original.shipped


def test_operations_are_under_the_original_tool_names(collected: Any,
                                                      store_path: Path) -> None:
    pairs, _ = collected
    spec = get_env("researchops")
    tools = set(spec.make("lr_1", 0, "default", "clean").tools)
    careful = pairs[(("researchops", "careful", "L2", "alias"), "lr_1", 0, 0, "clean")]
    assert careful.original.operations == careful.mutated.operations  # same behaviour
    ops = json.loads(careful.original.operations)
    assert ops and {name for name, _ in ops} <= tools
    _, episode = _stored(store_path, careful.mutated.key)
    renamed = [e.name for e in episode.events if e.actor == "agent" and e.kind == "tool_call"]
    assert renamed and not set(renamed) & tools  # the mutated episode saw other names


def test_operations_are_the_agents_calls_and_interceptions_with_normalised_arguments(
        store_path: Path) -> None:
    key = EpisodeKey("b_ro", "careful", "lr_1", 0, "clean", "L2", 0)
    _, episode = _stored(store_path, key)
    events = [Event(0, "agent", "tool_call", "read_config", {"text": '{"b":1,"a":2}'}, None, 0),
              Event(1, "env", "tool_call", "edit_config", {}, None, 0),
              Event(2, "agent", "message", "note", {}, None, 0),
              Event(3, "agent", "intercepted", "edit_config", {"k": [1]}, None, 0)]
    ep = replace(episode, events=events)
    assert P._operations(ep, None, []) == \
        b'[["read_config",{"text":"{\\"a\\": 2, \\"b\\": 1}"}],["edit_config",{"k":[1]}]]'


@pytest.mark.parametrize(("value", "want"), [
    ('{"b":1,"a":{"d":1,"c":2}}', '{"a": {"c": 2, "d": 1}, "b": 1}'),
    ("[3, 1]", "[3, 1]"),
    ('[{"b":1,"a":2}]', '[{"a": 2, "b": 1}]'),
    ('{"b": 1, "a": 2}\n\n{"d": 1, "c": 2}\n', '{"a": 2, "b": 1}\n{"c": 2, "d": 1}'),
    ('{"b":1}\nnot json', '{"b":1}\nnot json'),
    ("{not json", "{not json"),
    ("plain", "plain"),
    ("", ""),
    ({"x": '{"b":1,"a":2}', "y": ['{"d":1,"c":2}', 3]},
     {"x": '{"a": 2, "b": 1}', "y": ['{"c": 2, "d": 1}', 3]}),
])
def test_normal_puts_json_text_in_one_layout(value: Any, want: Any) -> None:
    assert P._normal(value) == want


class _Proxy:
    """A store whose rows for some keys are replaced (the rest is the real store)."""

    def __init__(self, store: Any, rows: dict[EpisodeKey, Any]) -> None:
        self._store, self._rows = store, rows

    def episode(self, key: EpisodeKey) -> Any:
        return self._rows[key] if key in self._rows else self._store.episode(key)

    def load_episode(self, key: EpisodeKey) -> Any:
        return self._store.load_episode(key)


KEY = EpisodeKey("b_ro", "careful", "lr_1", 0, "mut:alias", "L2", 0)


@pytest.mark.parametrize("termination", ["infra_error", "cancelled"])
def test_a_measurement_failure_is_unmeasured_with_its_reason(store_path: Path,
                                                             termination: str) -> None:
    spec, sc = get_env("researchops"), P.scorers_of(get_env("researchops"))
    with open_store(store_path) as store:
        row = {**store.episode(KEY), "termination": termination}
        side = P._side(_Proxy(store, {KEY: row}), spec, sc, KEY, rescore=True)
        missing = P._side(_Proxy(store, {KEY: None}), spec, sc, KEY, rescore=True)
    assert side == P.Side(KEY, False, reason=f"measurement failure ({termination})")
    assert missing is None


@pytest.mark.parametrize("which", ["shipped", "truth"])
def test_a_side_without_a_usable_score_is_unmeasured(store_path: Path, which: str) -> None:
    spec, sc = get_env("researchops"), P.scorers_of(get_env("researchops"))
    name = sc.shipped if which == "shipped" else sc.truth
    with open_store(store_path) as store:
        row = store.episode(KEY)
        assessments = [{**a, "assessment": {**a["assessment"], "status": "UNKNOWN"}}
                       if a["scorer"] == name else a for a in row["assessments"]]
        side = P._side(_Proxy(store, {KEY: {**row, "assessments": assessments}}), spec, sc,
                       KEY, rescore=True)
    assert side is not None and side.measured is False
    assert side.reason == "no usable score (UNKNOWN, INVALID or not a finite number)"
    assert (side.shipped is None) is (which == "shipped")
    assert (side.truth is None) is (which == "truth")


@pytest.mark.parametrize(("assessment", "want"), [
    (Assessment("composite_verifier", "1", "PASS", 0.9), 0.9),
    (Assessment("composite_verifier", "1", "FAIL", 0.0), 0.0),
    (Assessment("composite_verifier", "1", "UNKNOWN", 0.9), None),
    (Assessment("composite_verifier", "1", "INVALID", 0.9), None),
    (Assessment("composite_verifier", "1", "PASS", None), None),
    (Assessment("task_quality", "1", "PASS", 0.9), None),  # not the shipped scorer
])
def test_the_rescored_score_is_the_shipped_scorers_or_nothing(
        store_path: Path, monkeypatch: pytest.MonkeyPatch, assessment: Assessment,
        want: float | None) -> None:
    monkeypatch.setattr(P, "rescore_episode", lambda spec, ep: ((assessment,), "how"))
    spec = get_env("researchops")
    with open_store(store_path) as store:
        side = P._side(store, spec, P.scorers_of(spec), KEY, rescore=True)
    assert side is not None and (side.rescored, side.rescored_how) == (want, "how")


def test_the_rescored_score_is_on_the_shipped_scale(store_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    judged = Assessment("shape_judge", "1", "PASS", 80.0)
    monkeypatch.setattr(P, "rescore_episode", lambda spec, ep: ((judged,), "how"))
    spec = get_env("comtrade")
    key = EpisodeKey("c_ct", "careful", "T3_duplicates", 0, "mut:alias", "L2", 0)
    with open_store(store_path) as store:
        side = P._side(store, spec, P.scorers_of(spec), key, rescore=True)
    assert side is not None and side.rescored == 0.8


CT_KEY = EpisodeKey("c_ct", "careful", "T3_duplicates", 0, "mut:alias", "L2", 0)


def _with_truth(row: dict[str, Any], truth: dict[str, Any] | None) -> dict[str, Any]:
    kept = [a for a in row["assessments"] if a["scorer"] != "ground_truth_f1"]
    return {**row, "assessments": kept + ([{"scorer": "ground_truth_f1", "assessment": truth}]
                                          if truth is not None else [])}


def test_the_truth_is_the_named_component_not_the_score(store_path: Path) -> None:
    spec = get_env("comtrade")
    sc = P.scorers_of(spec)
    with open_store(store_path) as store:
        row = store.episode(CT_KEY)
        truth = next(a["assessment"] for a in row["assessments"]
                     if a["scorer"] == "ground_truth_f1")
        assert truth["score"] == 1.0
        exact = {**truth, "components": {**truth["components"], "f1_exact": 0.25}}
        side = P._side(_Proxy(store, {CT_KEY: _with_truth(row, exact)}), spec, sc, CT_KEY,
                       rescore=False)
        gone = P._side(_Proxy(store, {CT_KEY: _with_truth(row, None)}), spec, sc, CT_KEY,
                       rescore=False)
    assert side is not None and side.truth == 0.25 and side.measured
    assert gone is not None and (gone.truth, gone.truth_pass, gone.ptd) == (None, None, None)
    assert gone.measured is False


def _named(campaign: str, agent: str) -> str:
    """Return PLAIN as campaign CAMPAIGN with the alias mutation, target 'p' running AGENT."""
    return (PLAIN.replace('"a_plain"', f'"{campaign}"\nmutations = ["alias"]')
            .replace('name = "careful"', 'name = "p"').replace("scripted:careful", agent))


def test_one_target_name_running_two_agents_is_never_pooled(tmp_path: Path) -> None:
    # Found: campaigns partA (p = scripted:careful) and partB (p = scripted:overfit) in one
    # store were read as one policy 'p': 'behavioural failure' over both agents' pairs.
    for campaign, agent in (("partA", "scripted:careful"), ("partB", "scripted:overfit"),
                            ("partC", "scripted:careful")):
        record_campaign(tmp_path, _named(campaign, agent))
    with open_store(tmp_path / "store") as store:
        pairs, _ = P.collect_pairs(store)
    assert sorted((p.group[1], p.original.key.campaign) for p in pairs if p.original) == [
        ("partA/p", "partA"), ("partB/p", "partB"), ("partC/p", "partC")]


def test_one_target_running_one_agent_in_two_campaigns_is_pooled(tmp_path: Path) -> None:
    for campaign in ("partA", "partC"):
        record_campaign(tmp_path, _named(campaign, "scripted:careful"))
    with open_store(tmp_path / "store") as store:
        pairs, _ = P.collect_pairs(store)
    assert [(p.group[1], p.original.key.campaign) for p in pairs if p.original] == [
        ("p", "partA"), ("p", "partC")]
