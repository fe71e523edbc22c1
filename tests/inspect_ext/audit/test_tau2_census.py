"""The empty-trajectory census on tau-bench-style tasks, pinned on small prefixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.inspect_ext.audit.census_tau2 import archive_census, tau2_census

ARCHIVE = (Path(__file__).resolve().parents[3].parent / "shared" / "data" / "taubench"
           / "gpt-4o-airline.json")


@pytest.fixture(scope="module")
def archive() -> dict:
    if not ARCHIVE.exists():
        pytest.skip(f"needs the tau-bench archive at {ARCHIVE}")
    return archive_census(ARCHIVE)


def test_archive_database_criterion_by_gold_hash_reproduces_19_of_50(archive):
    # 46 of 50 tasks record their gold end-state hash; 19 of them equal the start state's.
    assert archive["tasks"] == 50 and archive["tasks_with_gold_hash"] == 46
    assert archive["database_unchanged_by_gold_hash"]["passed"] == 19


def test_archive_gold_actions_count_one_more_task_and_say_which(archive):
    # Task 44 writes nothing but requires the output "4": its hash row is overwritten by the
    # outputs check, so the hash count cannot see it; by its gold actions it passes the DB check.
    assert archive["database_unchanged_by_gold_actions"]["passed"] == 20
    assert archive["hash_unrecorded_no_write"] == [44]
    assert archive["required_outputs_none"]["passed"] == 46
    assert archive["both"]["passed"] == 19


def test_archive_unreadable_is_a_value_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("not json")
    with pytest.raises(ValueError, match="cannot read the tau-bench archive"):
        archive_census(bad)


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000, "cannot read the tau-bench archive .*: does not parse as JSON \\(JSON nested "
                    "too deeply\\)"),  # was: a RecursionError traceback
    ('[{"task_id": 1, "info": 5}]', "not a tau-bench run archive \\(AttributeError"),  # was too
    ('{"task_id": 1}', "not a tau-bench run archive \\(a JSON list of result rows\\)"),
])
def test_an_archive_of_another_shape_is_a_value_error(tmp_path, text, message):
    bad = tmp_path / "x.json"
    bad.write_text(text)
    with pytest.raises(ValueError, match=message):
        archive_census(bad)


def test_a_named_pipe_is_refused_not_waited_on(tmp_path):
    import os

    os.mkfifo(tmp_path / "p.json")  # was: read until a writer came (for ever); /dev/zero, whole
    with pytest.raises(ValueError, match="is a named pipe, not a regular file"):
        archive_census(tmp_path / "p.json")


def test_tau2_retail_first_three_tasks_criteria_separately():
    pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")
    r = tau2_census("retail", 3)
    assert (r["tasks"], r["dataset_tasks"]) == (3, 114)
    assert (r["shipped"]["passed"], r["shipped"]["scored"]) == (0, 3)
    assert r["database_unchanged"]["passed"] == 0
    assert r["required_outputs"]["passed_tasks"] == ["0", "1"]
    assert r["both"] == 0


def test_tau2_airline_first_two_tasks_pass_with_a_do_nothing_agent():
    pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")
    r = tau2_census("airline", 2)
    assert r["dataset_tasks"] == 50
    assert r["shipped"]["passed_tasks"] == ["0", "1"]
    assert r["database_unchanged"]["passed"] == 2 and r["required_outputs"]["passed"] == 2


def test_unknown_tau2_domain_is_refused():
    with pytest.raises(ValueError, match="not one of airline, retail, telecom"):
        tau2_census("banking")


def test_tau2_rubric_target_is_counted_as_no_usable_target():
    pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")
    from agentmetrology.inspect_ext.audit.load import load_task

    loaded = load_task("inspect_evals/tau2_retail", {"shuffle": True}, limit=2)
    assert loaded.reordered  # a shuffled dataset is put back in id order
    assert [i.sample_id for i in loaded.infos] == ["0", "1"]
    assert {i.unusable for i in loaded.infos} == {
        "the target is the same rubric for every sample, not an answer"}
