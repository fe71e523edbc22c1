"""What `verify_store` reports of bindings: sealed binding against its columns, campaign and
plan, and the task specification re-opened (full and ledger modes; store.verify_fixtures).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.store.verify import verify_store
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    BOUND,
    CHECKED,
    built_store,  # noqa: F401
    episode_digests,
    store_copy,  # noqa: F401
    texts,
)


def test_reopen_sees_the_defaults_of_bindings_without_environment_or_profile(
        tmp_path: Path) -> None:
    root = vf.build(tmp_path / "s", details={"max_steps": 30})
    calls: list[tuple[str, str, str]] = []

    def reopen(env: str, task: str, profile: str) -> str | None:
        calls.append((env, task, profile))
        return None  # not installed: skipped, not counted

    q = verify_store(root, reopen=reopen)
    # as sealed: "" for the environment and the profile the bindings do not name (the caller's
    # reopen reads "" as its default)
    assert q.qualified and calls == [("", "T3_duplicates", "")] * 3
    assert q.checked["specifications_reopened"] == 0


def test_a_specification_that_changed_since_sealing(root: Path) -> None:
    now = "9" * 64
    q = verify_store(root, reopen=lambda env, task, profile: now)
    assert q.result == "invalid_binding" and q.checked["specifications_reopened"] == 3
    assert texts(q) == [("specification_mismatch", "invalid_binding", f"administration {i}",
                         f"task T3_duplicates of comtrade now has specification {'9' * 12}, "
                         f"sealed {'5' * 12}") for i in (1, 2, 3)]



def test_a_changed_specification_of_a_binding_that_names_no_environment(tmp_path: Path) -> None:
    # An older store names no environment: the store never names the default itself.
    root = vf.build(tmp_path / "s", details={"max_steps": 30})
    q = verify_store(root, reopen=lambda env, task, profile: "9" * 64)
    assert q.result == "invalid_binding"
    assert texts(q)[0][3] == (f"task T3_duplicates of the default environment now has "
                              f"specification {'9' * 12}, sealed {'5' * 12}")

# -- bindings (full and ledger modes) ------------------------------------------------------------

def _key(seed: int, campaign: str = "c1") -> str:
    return json.dumps({**to_plain(vf.key(seed)), "campaign": campaign}, sort_keys=True)[:80]


def test_a_resealed_seed_column(root: Path) -> None:
    vf.reseal(root, "UPDATE administrations SET seed=5 WHERE id=1",
              rows=(("administrations", 1),))
    assert verify_store(root, mode="hash-only").qualified  # the baseline accepts it
    key5 = json.dumps({**to_plain(vf.key(0)), "seed": 5}, sort_keys=True)
    expected = [
        ("scope_mismatch", "invalid_binding", "administration 1",
         f"sealed key {_key(0)} but the ledger says {key5[:80]}"),
        ("seed_mismatch", "invalid_binding", "administration 1",
         "sealed seed 0 but the ledger says 5")]
    q = verify_store(root)
    assert texts(q)[:2] == expected
    assert texts(q)[2:] == [("scope_mismatch", "invalid_binding", "episodes administration=1",
                             f"the episode blob {episode_digests(root, 1)[0][:12]} belongs to "
                             "c1/t1/T3_duplicates/0/clean/L2/0, not to "
                             "c1/t1/T3_duplicates/5/clean/L2/0")]
    assert q.checked == {**CHECKED, **BOUND}  # resealed in place: the chain keeps its length


def test_resealed_digest_and_version_columns(root: Path) -> None:
    vf.reseal(root, f"UPDATE administrations SET task_spec_digest='{'1' * 64}' WHERE id=3",
              f"UPDATE administrations SET target_config_digest='{'2' * 64}' WHERE id=3",
              "UPDATE administrations SET scorer_versions='{\"ground_truth_f1\": \"9\"}' "
              "WHERE id=3", rows=(("administrations", 3),))
    sealed = json.dumps(vf.VERSIONS, sort_keys=True)
    assert texts(verify_store(root)) == [
        ("specification_mismatch", "invalid_binding", "administration 3",
         f"sealed task_spec_digest {'5' * 12} but the ledger says {'1' * 12}"),
        ("target_mismatch", "invalid_binding", "administration 3",
         f"sealed target_config_digest {'7' * 12} but the ledger says {'2' * 12}"),
        ("instrument_mismatch", "invalid_binding", "administration 3",
         f"sealed scorer_versions {sealed} but the ledger says "
         '{"ground_truth_f1": "9"}')]


def test_a_resealed_registration_id(root: Path) -> None:
    (reg,) = vf.query(root, "SELECT registration_id FROM campaigns")[0]
    vf.reseal(root, f"UPDATE administrations SET registration_id='{'3' * 32}' WHERE id=2",
              rows=(("administrations", 2),))
    assert texts(verify_store(root)) == [
        ("registration_mismatch", "invalid_binding", "administration 2",
         f"sealed registration_id {str(reg)[:80]} but the ledger says {'3' * 32}"),
        ("registration_mismatch", "invalid_binding", "administration 2",
         f"registration {'3' * 12} is not the campaign's ({str(reg)[:12]})")]


def test_a_resealed_campaign_registration(root: Path) -> None:
    (reg,) = vf.query(root, "SELECT registration_id FROM campaigns")[0]
    vf.reseal(root, f"UPDATE campaigns SET registration_id='{'4' * 32}'",
              rows=(("campaigns", "c1"),))
    assert texts(verify_store(root)) == [
        ("registration_mismatch", "invalid_binding", f"administration {i}",
         f"registration {str(reg)[:12]} is not the campaign's ({'4' * 12})") for i in (1, 2, 3)]


def test_an_administration_moved_to_an_unregistered_campaign(root: Path) -> None:
    # 'a9' sorts before 'c1': the moved administration is checked first, the rest still after
    vf.reseal(root, "UPDATE administrations SET campaign='a9' WHERE id=1",
              rows=(("administrations", 1),))
    rest = vf.bindings()[1:]
    again = vf.plan_digest(rest)
    (registered,) = vf.query(root, "SELECT plan_digest FROM campaigns")[0]
    assert registered == vf.plan_digest(vf.bindings())
    q = verify_store(root)
    assert texts(q)[:4] == [
        ("scope_mismatch", "invalid_binding", "administration 1",
         f"sealed key {_key(0)} but the ledger says {_key(0, 'a9')}"),
        ("registration_mismatch", "invalid_binding", "administration 1",
         "campaign 'a9' is not registered"),
        ("scope_mismatch", "invalid_binding", "campaign c1", "2 administrations sealed, 3 planned"),
        ("plan_mismatch", "invalid_binding", "campaign c1",
         f"the sealed bindings give plan {again[:12]}, the campaign was registered with "
         f"{str(registered)[:12]}")]
    assert q.checked["administrations"] == 3


def test_planned_count_and_plan_digest_resealed(root: Path) -> None:
    vf.reseal(root, f"UPDATE campaigns SET planned=4, plan_digest='{'6' * 64}'",
              rows=(("campaigns", "c1"),))
    assert texts(verify_store(root)) == [
        ("scope_mismatch", "invalid_binding", "campaign c1", "3 administrations sealed, 4 planned"),
        ("plan_mismatch", "invalid_binding", "campaign c1",
         f"the sealed bindings give plan {vf.plan_digest(vf.bindings())[:12]}, the campaign "
         f"was registered with {'6' * 12}")]


def test_a_binding_that_is_not_json(root: Path) -> None:
    vf.set_binding(root, 2, "{not json")
    q = verify_store(root)
    assert texts(q)[:3] == [
        ("binding_unreadable", "invalid_binding", "administration 2",
         "the sealed binding is not JSON"),
        ("scope_mismatch", "invalid_binding", "campaign c1", "2 administrations sealed, 3 planned"),
        ("plan_mismatch", "invalid_binding", "campaign c1",
         f"the sealed bindings give plan {vf.plan_digest(vf.bindings()[::2])[:12]}, the "
         f"campaign was registered with {vf.plan_digest(vf.bindings())[:12]}")]
    assert verify_store(root, mode="hash-only").qualified


def test_scorer_versions_that_are_not_json(root: Path) -> None:
    vf.reseal(root, "UPDATE administrations SET scorer_versions='{' WHERE id=3",
              rows=(("administrations", 3),))
    q = verify_store(root, mode="ledger")
    assert texts(q)[0] == ("binding_unreadable", "invalid_binding", "administration 3",
                           "the sealed binding is not JSON")


def test_a_sealed_binding_edited_consistently_changes_the_plan(root: Path) -> None:
    text = str(vf.query(root, "SELECT binding FROM administrations WHERE id=3")[0][0])
    vf.set_binding(root, 3, text.replace('"max_steps":30', '"max_steps":31'))
    edited = vf.bindings()
    edited[2] = vf.Binding(vf.key(2), 2, vf.SPEC, vf.TARGET, dict(vf.VERSIONS),
                           {**vf.DETAILS, "max_steps": 31})
    assert texts(verify_store(root)) == [
        ("plan_mismatch", "invalid_binding", "campaign c1",
         f"the sealed bindings give plan {vf.plan_digest(edited)[:12]}, the campaign was "
         f"registered with {vf.plan_digest(vf.bindings())[:12]}")]


@pytest.mark.parametrize("details", [
    {"profile": 'a "$quoted" name'},  # `"$` in the text, no tag: both encodings agree
    {"profile": "seeded", "note": {"$float": "x", "other": 1}},
    {"profile": "seeded", "limits": [1.5, "é", None, True]}])
def test_the_plan_digest_is_the_registered_one_for_any_details(tmp_path: Path,
                                                               details: dict) -> None:  # type: ignore[type-arg]
    root = vf.build(tmp_path / "s", details=details)
    q = verify_store(root)
    assert q.qualified, texts(q)


def test_the_plan_digest_definition(root: Path) -> None:
    """The registered plan digest is the canonical digest of the spec's plan document."""
    (registered,) = vf.query(root, "SELECT plan_digest FROM campaigns")[0]
    rows = [{"key": to_plain(vf.key(i)), "task": vf.SPEC, "target": vf.TARGET,
             "scorers": vf.VERSIONS, "details": vf.DETAILS} for i in range(3)]
    assert registered == digest({"campaign": "c1", "bindings": rows})


def test_hash_only_checks_no_binding(root: Path) -> None:
    vf.reseal(root, "UPDATE administrations SET seed=5, task='T9' WHERE id=1",
              rows=(("administrations", 1),))
    q = verify_store(root, mode="hash-only")
    assert q.qualified and "administrations" not in q.checked and "episodes" not in q.checked


@pytest.mark.parametrize("details", [
    {"profile": "seeded", "deadline_s": float("inf")},  # registered as {"$float": "inf"}
    {"profile": "seeded", "x": {"$float": "nan"}},  # a mapping that looks like a tag: escaped
    {"profile": "seeded", "x": {"$literal": {"a": 1}}}])
def test_a_plan_with_tags_is_the_registered_one(tmp_path: Path, details: dict) -> None:  # type: ignore[type-arg]
    """Bug fixed: the tags of the sealed texts were encoded again (a false plan_mismatch)."""
    root = vf.build(tmp_path / "s", details=details)
    assert verify_store(root).qualified, texts(verify_store(root))


def test_a_bare_nan_token_in_a_forged_binding_is_a_finding_not_a_crash(root: Path) -> None:
    """Bug fixed: json.loads reads NaN, the plan's fallback then raised (a traceback)."""
    text = str(vf.query(root, "SELECT binding FROM administrations WHERE id=1")[0][0])
    vf.set_binding(root, 1, text.replace('"deadline_s":60.0', '"deadline_s":NaN'))
    q = verify_store(root)
    assert [p.kind for p in q.problems] == ["plan_mismatch"]


def test_reopen_is_asked_for_the_environment_the_binding_names(tmp_path: Path) -> None:
    root = vf.build(tmp_path / "s", details={"environment": "toolworlds", "profile": "p1"})
    calls: list[tuple[str, str, str]] = []

    def reopen(env: str, task: str, profile: str) -> str:
        calls.append((env, task, profile))
        return vf.SPEC

    assert verify_store(root, reopen=reopen).qualified
    assert calls == [("toolworlds", "T3_duplicates", "p1")] * 3


@pytest.mark.parametrize(("details", "sealed", "forged"), [
    ({"profile": "seeded", "deadline_s": float("nan")}, '{"$float":"nan"}', "NaN"),
    ({"profile": "seeded", "x": {"$float": "y"}}, '{"$literal":{"$float":"y"}}',
     '{"$float":"y"}'),
    ({"profile": "seeded", "x": {"$float": "y"}}, '{"$literal":{"$float":"y"}}',
     '{"\\u0024float":"y"}')])  # unescaped, `$` spelt as an escape
def test_the_plan_is_compared_by_value_not_by_spelling(
        tmp_path: Path, details: dict, sealed: str, forged: str) -> None:  # type: ignore[type-arg]
    """A sealed text re-spelt with the same values (a bare NaN for its tag, an unescaped
    mapping for its escaped form, `$` as an escape) gives the registered plan: the values are
    what was bound."""
    root = vf.build(tmp_path / "s", details=details)
    for adm in (1, 2, 3):  # every binding: no other text may hold a literal tag
        text = str(vf.query(root, "SELECT binding FROM administrations WHERE id=?", adm)[0][0])
        assert sealed in text
        vf.set_binding(root, adm, text.replace(sealed, forged))
    q = verify_store(root)
    assert q.qualified, texts(q)


@pytest.mark.parametrize("mode", ["full", "ledger"])
def test_a_binding_or_scorer_versions_that_are_json_but_not_objects(root: Path,
                                                                    mode: str) -> None:
    # resealed by a forger: named as unreadable, never an AttributeError out of the check
    vf.set_binding(root, 2, "[1]")
    vf.reseal(root, "UPDATE administrations SET scorer_versions='[1]' WHERE id=1",
              rows=(("administrations", 1),))
    q = verify_store(root, mode=mode)
    unreadable = [t for t in texts(q) if t[0] == "binding_unreadable"]
    assert unreadable == [
        ("binding_unreadable", "invalid_binding", f"administration {adm}",
         "the sealed binding is not a JSON object") for adm in (1, 2)]


def test_unreadable_scorer_versions_of_a_recorded_episode(root: Path) -> None:
    # administration 1 has an episode: its assessments meet versions that cannot be read
    vf.reseal(root, "UPDATE administrations SET scorer_versions='{' WHERE id=1",
              rows=(("administrations", 1),))
    q = verify_store(root, mode="ledger")
    assert texts(q)[0] == ("binding_unreadable", "invalid_binding", "administration 1",
                           "the sealed binding is not JSON")
    assert any(t[0] == "instrument_mismatch" and "(administration 1)" in t[2] for t in texts(q))
