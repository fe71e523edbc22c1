import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.envs.comtrade import TASKS, generate_rows

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_tasks_table_lists_all_eleven() -> None:
    code, out, _ = invoke("tasks", "comtrade", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["task_id"] for r in rows] == list(TASKS)
    code, out, _ = invoke("tasks", "comtrade")
    assert code == 0 and "T7_totals_trap" in out


def test_truth_prints_the_generator_rows() -> None:
    code, out, err = invoke("truth", "comtrade", "--task", "T1_single_page", "--seed", "0",
                            "--profile", "legacy")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows == generate_rows("T1_single_page", 0, "legacy")
    assert "2916913234" in err


def test_run_careful_l2_gives_f1_one_on_every_task() -> None:
    code, out, _ = invoke("run", "comtrade", "--task", "all", "--seeds", "0", "--agent",
                          "scripted:careful", "--level", "L2", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == len(TASKS)
    assert all(r["ground_truth"]["f1"] == 1.0 for r in rows)
    expected = {"task", "seed", "profile", "agent", "level", "termination", "requests_used",
                "rows_submitted", "submission_sha256", "ground_truth", "judge"}
    assert expected <= set(rows[0])
    assert set(rows[0]["ground_truth"]) >= {"f1", "recall", "precision", "duplicates",
                                            "totals_rows", "spurious"}
    assert set(rows[0]["judge"]) >= {"status", "total", "breakdown"}
    # Each score names the scorer version that made it.
    assert (rows[0]["ground_truth"]["version"], rows[0]["judge"]["version"]) == ("1.1.0", "1.0.0")


def test_run_is_deterministic() -> None:
    args = ("run", "comtrade", "--task", "T9_adaptive_adversary,T6_page_drift", "--seeds",
            "0-2", "--agent", "rule", "--level", "L0", "--json")
    assert invoke(*args)[1] == invoke(*args)[1]


def test_score_a_submission_directory(tmp_path: Path) -> None:
    rows = generate_rows("T3_duplicates", 2)
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "metadata.json").write_text(json.dumps({"task_id": "T3_duplicates"}))
    (tmp_path / "run.log").write_text("task_id=T3_duplicates\ncomplete=true\n")
    code, out, _ = invoke("score", "comtrade", str(tmp_path), "--task", "T3_duplicates",
                          "--seed", "2", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["ground_truth"]["f1"] == 1.0
    # the same rows scored against another seed's ground truth: ids match, so F1 stays 1.0
    code, out, _ = invoke("score", "comtrade", str(tmp_path), "--task", "T3_duplicates")
    assert code == 0 and "ground_truth_f1" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("run", "comtrade", "--task", "T99", "--agent", "rule"), "unknown task"),
        (("run", "comtrade", "--task", "T1_single_page", "--seeds", "9-2"), "seed range"),
        (("run", "comtrade", "--task", "T1_single_page", "--seeds", "a"), "seed list"),
        (("run", "comtrade", "--task", "T1_single_page", "--agent", "gpt"), "unknown agent"),
        (("run", "comtrade", "--task", "T1_single_page", "--level", "L7"), "unknown level"),
        (("run", "comtrade", "--task", "T1_single_page", "--agent", "l1:always-skip",
          "--level", "L2"), "acts only at L1"),
        (("run", "comtrade", "--task", "T1_single_page", "--profile", "x"), "unknown profile"),
        (("run", "comtrade", "--task", "T9_clean_ab", "--condition", "chaos"), "condition"),
        (("truth", "comtrade", "--task", "nope"), "unknown task"),
        (("score", "comtrade", "/nonexistent/dir", "--task", "T1_single_page"), "nonexistent"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: tuple[str, ...], needle: str) -> None:
    code, out, err = invoke(*args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_demo_runs() -> None:
    code, out, _ = invoke("demo", "--seeds", "2")
    assert code == 0 and "scripted:fabricator" in out
    code, out, _ = invoke("demo", "--seeds", "1")  # its title said "x 1 seeds"
    assert code == 0 and "on 5 tasks x 1 seed: ground truth" in " ".join(out.split())


def test_score_an_empty_directory_is_a_user_error(tmp_path: Path) -> None:
    code, _, err = invoke("score", "comtrade", str(tmp_path), "--task", "T1_single_page")
    assert code == 2 and "none of data.jsonl" in err


def test_unwritable_output_places_are_user_errors() -> None:
    code, out, err = invoke("audit", "comtrade", "--seeds", "0-0", "--out", "/proc/agm-nope")
    assert code == 2 and "cannot write the audit" in err and "Traceback" not in err + out
    code, out, err = invoke("run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m",
                            "--store", "/proc/agm-nope", "--base-url", "http://127.0.0.1:9/v1")
    assert code == 2 and "evidence store" in err and "Traceback" not in err + out


def test_run_table_never_cuts_a_number_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    args = ("run", "comtrade", "--task", "T3_duplicates,T9_adaptive_adversary", "--seeds",
            "0-1", "--agent", "scripted:off_by_one", "--level", "L2")
    code, table, _ = invoke(*args)
    assert code == 0 and "…" not in table
    assert max(len(line) for line in table.splitlines()) <= 80
    rows = [json.loads(line) for line in invoke(*args, "--json")[1].splitlines()]
    for r in rows:
        assert r["task"] in table  # names whole, never folded
        assert f"{r['ground_truth']['f1']:.3f}" in table
        assert f"{r['judge']['total']:.1f}" in table
    assert "not shown at this width" in table  # what was dropped is said


def test_envs_lists_comtrade_with_its_scorers() -> None:
    code, out, _ = invoke("envs", "--json")
    assert code == 0
    rows = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert rows["comtrade"]["tasks"] == 11 and rows["comtrade"]["levels"] == ["L0", "L1", "L2"]
    assert rows["comtrade"]["scorers"] == ["ground_truth_f1 1.1.0 (outcome)",
                                           "shape_judge 1.0.0 (shape)"]


@pytest.mark.parametrize(("args", "needle"), [
    (("run", "nope", "--task", "T1"), "unknown environment 'nope'"),
    (("run", "comtrade", "--task", "T1_single_page", "--seeds", "0,0,0"), "repeats seed"),
    (("run", "comtrade", "--task", "T1_single_page", "--seeds", "9223372036854775808"),
     "too large"),
    (("run", "comtrade", "--task", "T9_clean_ab", "--condition", "stress:dose=2"), "dose"),
    (("audit", "comtrade", "--seeds", "3-4"), "seeds 0..N-1"),
])
def test_more_bad_arguments_exit_2(args: tuple[str, ...], needle: str) -> None:
    code, out, err = invoke(*args)
    assert code == 2 and needle in err and "Traceback" not in err + out


def test_equal_doses_are_one_condition() -> None:
    rows = [json.loads(invoke("run", "comtrade", "--task", "T9_clean_ab", "--agent", "rule",
                              "--condition", c, "--json")[1]) for c in ("stress:dose=0.5",
                                                                        "stress:dose=0.50")]
    assert rows[0]["condition"] == rows[1]["condition"] == "stress:dose=0.5"
    assert rows[0] == rows[1]


def test_a_closed_pipe_ends_quietly_with_exit_0() -> None:
    import subprocess
    import sys

    cmd = (f"{sys.executable} -m agentmetrology.cli.main run comtrade --task all "
           "--seeds 0-19 --agent rule --json | head -1")
    res = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True,
                         text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["task"] == "T1_single_page"
    assert res.stderr == ""


def test_score_reads_a_data_file_past_the_in_memory_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`agm score` streams data.jsonl: a file over the 8 MiB in-memory limit is scored, not
    refused, and scores exactly as the in-memory reader does once its limit is lifted."""
    from agentmetrology.envs.comtrade.scoring import submission

    rows = generate_rows("T3_duplicates", 2)
    pad = dict(rows[0])
    lines = [json.dumps(r) for r in rows]
    size = sum(len(x) + 1 for x in lines)  # a running total: re-summing each time is quadratic
    i = 0
    while size <= submission.MAX_DATA_BYTES:
        lines.append(json.dumps({**pad, "record_id": f"invented-{i:07d}"}))
        size += len(lines[-1]) + 1
        i += 1
    (tmp_path / "data.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "metadata.json").write_text(json.dumps({"task_id": "T3_duplicates"}))
    (tmp_path / "run.log").write_text("task_id=T3_duplicates\ncomplete=true\n")
    code, out, err = invoke("score", "comtrade", str(tmp_path), "--task", "T3_duplicates",
                            "--seed", "2", "--json")
    assert code == 0, err
    streamed = json.loads(out)
    assert "too large" not in out
    assert streamed["ground_truth"]["recall"] == 1.0
    assert streamed["ground_truth"]["spurious"] == i
    monkeypatch.setitem(submission.LIMITS, "data_jsonl", 64 * submission.MIB)
    whole = submission.read_submission_dir(tmp_path)
    from agentmetrology.envs.registry import get_env
    from agentmetrology.scoring.episode import score_submission

    spec = get_env("comtrade")
    scored = score_submission(spec, whole, "T3_duplicates", 2, "seeded")
    expected = {s.label: {"version": a.scorer_version, **s.summary(a), "reasons": list(a.reasons)}
                for s, a in zip(spec.scorers, scored, strict=True)}
    assert {k: streamed[k] for k in expected} == expected
    assert streamed["submission_sha256"] == whole.digest


def test_an_unwritable_audit_folder_is_refused_before_the_audit_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmetrology.cli import audit_cmd

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran before its output folder was checked")

    monkeypatch.setattr(audit_cmd, "audit_env", never)
    code, out, err = invoke("audit", "comtrade", "--seeds", "0-0", "--out", "/proc/agm-nope/x")
    assert code == 2 and "cannot write the audit" in err and "Traceback" not in err + out
    # a writable folder is probed without leaving anything behind when the audit then fails
    target = tmp_path / "a" / "b"
    code, _, _ = invoke("audit", "comtrade", "--seeds", "0-0", "--out", str(target))
    assert code != 0 and not (tmp_path / "a").exists()


@pytest.mark.parametrize("flag", [("--store", "st"), ("--base-url", "http://127.0.0.1:9/v1"),
                                  ("--api-key-env", "KEY"), ("--price", "1,2"),
                                  ("--max-retries", "2"), ("--retry-measurement-failures",)])
def test_run_refuses_llm_only_options_for_a_model_free_agent(tmp_path: Path,
                                                              flag: tuple[str, ...]) -> None:
    """README's first run gave --store to `--agent rule`: ignored, nothing was recorded and the
    `agm view` after it failed. An llm-only option with a model-free agent is a usage error."""
    args = [a if a != "st" else str(tmp_path / "st") for a in flag]
    code, out, err = invoke("run", "comtrade", "--task", "T3_duplicates", "--seeds", "0",
                            "--agent", "rule", *args)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {flag[0]} applies to llm: agents only")
    assert "agm campaign run FILE --store DIR" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "st").exists()


def test_a_reversed_seed_range_says_how_to_write_it() -> None:
    """`--seeds 5-1` said 'seeds are non-negative and lo <= hi', not what to type instead."""
    code, out, err = invoke("run", "comtrade", "--task", "T3_duplicates", "--seeds", "5-1")
    assert (code, out) == (2, "")
    assert err == "error: --seeds: bad seed range '5-1': write the low seed first (1-5)\n"
