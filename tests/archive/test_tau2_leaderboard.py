"""`agm archive leaderboard`: rows per submission and domain, rankings and reversals with ties."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.archive.tau2_leaderboard import leaderboard
from agentmetrology.archive.versions import rank_reversals
from agentmetrology.cli.archive_cmd import archive_app
from archive.tau2_files import (
    GPT_AIRLINE,
    QWEN_AIRLINE,
    raw,
    shared,
    write,
    writes_nothing_and_says_nothing,
)

pytestmark = pytest.mark.usefixtures("stated_tau2_verdicts")
runner = CliRunner()


def test_reversals_respect_the_tie_tolerance() -> None:
    a = {"x": 0.50, "y": 0.40, "z": 0.305}
    b = {"x": 0.10, "y": 0.30, "z": 0.30}
    # pairs: x-y flips (0.1 vs -0.2); x-z flips (0.195 vs -0.2); y-z: b differs by 0 -> tie
    out = rank_reversals(a, b, 0.01)
    assert (out["pairs"], out["strict_reversals"], out["ties"]) == (3, 2, 1)
    assert rank_reversals(a, b, 0.25)["strict_reversals"] == 0  # every pair within 0.25 somewhere



def test_a_pair_exactly_one_tolerance_apart_is_a_tie_however_binary_rounds_it() -> None:
    # Before, 0.50 - 0.49 (0.010000000000000009 in binary) was "more than" 0.01 and counted a
    # strict reversal, while 0.18 - 0.17 (0.009999999999999981) was a tie: the same written gap.
    for hi, lo in ((0.50, 0.49), (0.18, 0.17), (0.45, 0.44), (0.30, 0.29)):
        out = rank_reversals({"a": hi, "b": lo}, {"a": lo, "b": hi}, 0.01)
        assert (out["strict_reversals"], out["ties"]) == (0, 1), (hi, lo)
        assert rank_reversals({"a": hi, "b": lo}, {"a": lo, "b": hi})["strict_reversals"] == 1
    out = rank_reversals({"a": 0.511, "b": 0.50}, {"a": 0.18, "b": 0.50}, 0.01)
    assert (out["strict_reversals"], out["ties"]) == (1, 0)  # 0.011 apart: more than 0.01


def test_claims_one_point_apart_on_the_shared_files_tie_not_reverse(tmp_path: Path) -> None:
    # gpt-4.1 claims 50.0 and recomputes 10/20 = 0.5; qwen claims 51.0 and recomputes 9/50:
    # the claims are exactly the 0.01 tolerance apart, a tie, not a strict reversal.
    for name, source, claim in (("gpt", GPT_AIRLINE, 50.0), ("qwen", QWEN_AIRLINE, 51.0)):
        folder = tmp_path / "subs" / name
        folder.mkdir(parents=True)
        write(folder, source, raw(source))
        write(folder, "submission.json", {"results": {"airline": {"pass_1": claim}}})
    view = leaderboard([tmp_path / "subs"])["domains"]["airline"]
    comps = {(c["first"], c["second"]): c for c in view["comparisons"]}
    rep = comps[("reported", "recomputed")]
    assert (rep["pairs"], rep["strict_reversals"], rep["ties"]) == (1, 0, 1)

def _submissions(tmp: Path) -> Path:
    """Two airline submissions in the leaderboard's folder layout, one claiming too much."""
    for name, sims, claim in (("gpt_org_2025", raw(GPT_AIRLINE)["simulations"], 62.0),
                              ("qwen_org_2025", raw(QWEN_AIRLINE)["simulations"], 18.0)):
        folder = tmp / "subs" / name
        (folder / "trajectories").mkdir(parents=True)
        write(folder / "trajectories", f"{name}_airline.json",
              {"info": {"agent_info": {"llm": name}, "environment_info":
                        {"domain_name": "airline"}}, "simulations": sims,
               "tasks": raw(GPT_AIRLINE if name.startswith("gpt") else QWEN_AIRLINE)["tasks"]})
        write(folder, "submission.json", {"results": {"airline": {"pass_1": claim}}})
    return tmp / "subs"


def test_leaderboard_rows_and_reversals_by_hand(tmp_path: Path) -> None:
    doc = leaderboard([_submissions(tmp_path)])
    assert doc["submissions"] == 2 and len(doc["inputs"]) == 4
    rows = {r["submission"]: r for r in doc["domains"]["airline"]["rows"]}
    gpt, qwen = rows["gpt_org_2025"], rows["qwen_org_2025"]
    assert (gpt["reported"], gpt["recomputed"], gpt["reported_finding"]) == (0.62, 0.5, True)
    assert (qwen["reported"], qwen["recomputed"], qwen["reported_finding"]) == (0.18, 0.18, False)
    assert qwen["all_passes_do_nothing_passable"] and qwen["where_doing_nothing_fails"] == 0
    assert qwen["cost_unpriced"] and not gpt["cost_unpriced"]
    # by hand: gpt passes on tasks the stated rule does not pass, over those tasks
    tasks = {t["id"]: t for t in raw(GPT_AIRLINE)["tasks"]}
    rest = [s for s in raw(GPT_AIRLINE)["simulations"]
            if not writes_nothing_and_says_nothing(tasks[s["task_id"]])]
    assert gpt["where_doing_nothing_fails"] == pytest.approx(
        sum(s["reward_info"]["reward"] for s in rest) / len(rest))
    comps = {(c["first"], c["second"]): c for c in doc["domains"]["airline"]["comparisons"]}
    assert comps[("reported", "recomputed")]["strict_reversals"] == 0
    assert gpt["ranks"] == {"reported": 1, "recomputed": 1, "where_doing_nothing_fails": 1}


def test_leaderboard_cli_writes_three_files_and_refuses_bad_paths(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = runner.invoke(archive_app, ["leaderboard", str(_submissions(tmp_path)),
                                      str(shared(GPT_AIRLINE)), "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "leaderboard.json").read_text())
    assert doc["submissions"] == 3
    md = (out / "report.md").read_text()
    assert "**Every pass falls on a task a do-nothing agent also passes:** " \
           "`qwen_org_2025`." in md
    assert "<svg" in (out / "report.html").read_text()
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(archive_app, ["leaderboard", str(empty), "--out", str(out)])
    assert res.exit_code == 2 and "no tau2 results file" in res.output


def test_regraded_pass_1_beside_the_stored(tmp_path: Path) -> None:
    pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")
    data = raw(GPT_AIRLINE)
    few = {**data, "simulations": [data["simulations"][i] for i in (2, 3, 4)]}
    path = write(tmp_path, "few-airline.json", few)
    view = leaderboard([path], regrade=True)["domains"]["airline"]
    (row,) = view["rows"]
    by_hand = sum(s["reward_info"]["reward"] for s in few["simulations"]) / 20  # 2 of 20
    assert row["recomputed"] == row["regraded"] == by_hand == 0.1
    assert row["regrade_note"] == "3 of 3 stored rewards reproduced"
    assert ("recomputed", "regraded") in {(c["first"], c["second"]) for c in view["comparisons"]}
    (plain,) = leaderboard([path])["domains"]["airline"]["rows"]
    assert plain["regraded"] is None and "regraded" not in plain["ranks"]


def test_a_simulation_not_regradable_leaves_no_regraded_pass_1(tmp_path: Path) -> None:
    pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")
    data = copy.deepcopy(raw(GPT_AIRLINE))
    few = {**data, "simulations": [data["simulations"][i] for i in (2, 3)]}
    (task,) = [t for t in few["tasks"] if t["id"] == few["simulations"][1]["task_id"]]
    task["evaluation_criteria"]["reward_basis"] = ["DB", "NL_ASSERTION"]
    path = write(tmp_path, "nl-airline.json", few)
    (row,) = leaderboard([path], regrade=True)["domains"]["airline"]["rows"]
    assert row["regraded"] is None  # never a 0 counted for the simulation a judge must grade
    assert row["regrade_note"] == ("1 of 2 simulations not re-gradable (not re-gradable "
                                   "without a judge)")


def test_a_file_given_twice_is_refused_not_ranked_against_itself(tmp_path: Path) -> None:
    # Before, `leaderboard q.json q.json` (or a folder and a file in it) made two identical
    # rows, the one submission ranked 1 and 2 against itself.
    path = write(tmp_path, "q.json", raw(QWEN_AIRLINE))
    for twice in ([path, path], [tmp_path, path]):
        res = runner.invoke(archive_app, ["leaderboard", *map(str, twice), "--out",
                                          str(tmp_path / "out")])
        assert res.exit_code == 2
        assert f"{path}: given twice (named twice, or also found in a folder given); give " \
               "each results file once" in " ".join(res.output.split())
    assert not (tmp_path / "out").exists()


def test_a_named_pipe_is_named_not_called_missing(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "p.json")  # was: "p.json: not found"
    res = runner.invoke(archive_app, ["leaderboard", str(tmp_path / "p.json"), "--out",
                                      str(tmp_path / "out")])
    assert res.exit_code == 2
    assert f"{tmp_path / 'p.json'}: is a named pipe, neither a tau2 results file nor a " \
           "folder" in " ".join(res.output.split())


def test_two_folders_files_of_one_name_are_two_submissions_ranked_apart(tmp_path: Path) -> None:
    # Before, both rows were `airline/airline.json`: the rankings, keyed by that id, gave 0.500
    # and 0.180 the same rank 2 and compared one unit (0 pairs) instead of two (1 pair).
    for folder, name in (("a", GPT_AIRLINE), ("b", QWEN_AIRLINE)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "airline.json").write_bytes(shared(name).read_bytes())
    view = leaderboard([tmp_path])["domains"]["airline"]
    got = {r["id"]: (r["submission"], r["recomputed"], r["ranks"]["recomputed"])
           for r in view["rows"]}
    assert got == {"a/airline.json": ("a/airline", 0.5, 1),
                   "b/airline.json": ("b/airline", 0.18, 2)}
    dn = next(c for c in view["comparisons"] if c["second"] == "where_doing_nothing_fails")
    assert (dn["units"], dn["pairs"]) == (2, 1)


def test_do_nothing_share_is_over_the_tasks_probed(tmp_path: Path) -> None:
    # Before, the tasks the evaluator could not score were in the denominator: 5 passable of
    # 10 probed among 20 tasks read 0.25 where the docs (and the column) say 0.5.
    def half_probed(domain: str, defs: dict[str, object]) -> dict[str, dict[str, object]]:
        return {t: {"passed": None if i % 2 else i % 4 == 0, "decided_by": "stated"}
                for i, t in enumerate(sorted(defs))}

    row = leaderboard([shared(GPT_AIRLINE)], evaluator=half_probed)["domains"]["airline"][
        "rows"][0]
    assert row["do_nothing_share"] == 0.5
    none = leaderboard([shared(GPT_AIRLINE)], evaluator=lambda d, defs: {
        t: {"passed": None, "decided_by": "stated"} for t in defs})
    assert none["domains"]["airline"]["rows"][0]["do_nothing_share"] is None


def test_equal_pass_rates_share_a_rank(tmp_path: Path) -> None:
    # Before, two submissions with the same recomputed 10/20 = 0.500 were ranked 1 and 2 by
    # their names, and the one below them 3: an order the numbers do not have.
    for folder, name in (("a", GPT_AIRLINE), ("b", GPT_AIRLINE), ("c", QWEN_AIRLINE)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "airline.json").write_bytes(shared(name).read_bytes())
    view = leaderboard([tmp_path])["domains"]["airline"]
    got = {r["submission"]: (r["recomputed"], r["ranks"]["recomputed"]) for r in view["rows"]}
    assert got == {"a/airline": (0.5, 1), "b/airline": (0.5, 1), "c/airline": (0.18, 3)}
