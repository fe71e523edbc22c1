"""Archive importers stay honest under hostile input: bounded work, one-line refusals, no scores
made out of measurement failures or malformed records."""

from __future__ import annotations

import json
import math
import random
import zlib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import ArchiveFormatError, audit_archive, load_archive
from agentmetrology.archive import passk as passk_mod
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.taubench import load_taubench
from agentmetrology.archive.passk import pass_hat_k, pass_hat_k_curve, pass_hat_k_fraction
from agentmetrology.cli.main import app
from agentmetrology.inspect_ext.logs.importer import load_inspect

HEADER = {"status": "success", "eval": {
    "task": "demo", "model": "m", "run_id": "R1",
    "dataset": {"samples": 2, "sample_ids": ["a", "b"]}, "config": {"epochs": 1},
    "scorers": [{"name": "acc"}]}}


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data, 9)[2:-4]


def _sample(sid: str, **fields: object) -> bytes:
    rec: dict[str, object] = {"id": sid, "epoch": 1, "scores": {"acc": {"value": "C"}},
                              "events": []}
    rec.update(fields)
    return json.dumps(rec).encode()


def _log(path: Path, zip_writer: Callable, header: object = None, **members: bytes) -> Path:
    files = {"header.json": json.dumps(HEADER if header is None else header).encode()}
    files.update({f"samples/{k}_epoch_1.json": v for k, v in members.items()})
    zip_writer(path, files, method=8, compress=_deflate)
    return path


def _cli(args: list[str]) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, ["archive", *args])
    return res.exit_code, res.stdout, res.stderr


# --- 7: pass^k linear in trials, declared sizes capped ------------------------------------


def test_pass_hat_k_matches_exact_fraction_on_small_inputs() -> None:
    rng = random.Random(7)
    for _ in range(200):
        counts = []
        for _ in range(rng.randint(1, 6)):
            n = rng.randint(1, 12)
            counts.append((n, rng.randint(0, n)))
        for k in range(1, 14):
            exact = pass_hat_k_fraction(counts, k)
            got = pass_hat_k(counts, k)
            if exact is None:
                assert got is None
            else:
                assert got is not None and math.isclose(got, float(exact), rel_tol=1e-12,
                                                        abs_tol=1e-15)


def test_pass_hat_k_uses_no_binomials_and_is_exact_for_many_trials(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_comb(*_: object) -> int:
        raise AssertionError("math.comb grows with the trial count")

    monkeypatch.setattr(passk_mod.math, "comb", no_comb)
    n = 30_000
    curve = pass_hat_k_curve([(n, n - 1)], 50)
    # C(n-1, k)/C(n, k) = (n - k)/n exactly
    assert all(math.isclose(v or -1, (n - k) / n, rel_tol=1e-12)
               for k, v in enumerate(curve, start=1))
    assert pass_hat_k_curve([(3, 3), (2, 1)], 4) == [0.75, 0.5, None, None]


def test_jsonl_with_thirty_thousand_trials_lists_bounded_pass_k(tmp_path: Path) -> None:
    lines = [json.dumps({"task": "t", "model": "m", "trial": i, "grade": 1.0 if i else 0.0})
             for i in range(30_000)]
    f = tmp_path / "many.jsonl"
    f.write_text("\n".join(lines) + "\n")
    (cell,) = audit_archive(load_jsonl(f))["pass_hat_k"]
    assert cell["k_defined"] == 30_000 and len(cell["rows"]) == 100
    assert cell["k_rows_omitted"] == 29_900
    assert cell["rows"][0]["stored"] == pytest.approx(29_999 / 30_000)
    assert cell["rows"][1]["stored"] == pytest.approx(29_998 / 30_000)


@pytest.mark.parametrize("epochs", [10**6, 10**7])
def test_eval_declaring_huge_epochs_is_refused(tmp_path: Path, zip_writer: Callable,
                                                epochs: int) -> None:
    header = json.loads(json.dumps(HEADER))
    header["eval"]["config"]["epochs"] = epochs
    log = _log(tmp_path / "big.eval", zip_writer, header, a=_sample("a"))
    assert log.stat().st_size < 1000
    with pytest.raises(ArchiveFormatError, match="refused as implausible"):
        load_inspect(log)


@pytest.mark.parametrize("epochs", ["three", 1e400, -2, 0, [1]])
def test_eval_with_unreadable_epochs_is_refused(tmp_path: Path, zip_writer: Callable,
                                                 epochs: object) -> None:
    header = json.loads(json.dumps(HEADER))
    header["eval"]["config"]["epochs"] = epochs
    text = json.dumps(header).replace("Infinity", "1e400")
    path = tmp_path / "e.eval"
    zip_writer(path, {"header.json": text.encode()}, method=8, compress=_deflate)
    with pytest.raises(ArchiveFormatError, match="epochs"):
        load_inspect(path)


def test_taubench_sparse_grid_is_refused(tmp_path: Path) -> None:
    rows = [{"task_id": i, "trial": i, "reward": 1.0, "info": {}, "traj": []}
            for i in range(400)]  # 400 tasks x 400 trial numbers: 159,600 empty grid entries
    f = tmp_path / "sparse.json"
    f.write_text(json.dumps(rows))
    with pytest.raises(ArchiveFormatError, match="missing grid entries"):
        load_taubench(f)


# --- 8: inflate caps count bytes actually produced ------------------------------------------


def test_member_declared_over_cap_is_refused(tmp_path: Path, zip_writer: Callable) -> None:
    big = json.dumps({"status": "success", "eval": HEADER["eval"], "pad": "x" * (3 << 20)})
    path = tmp_path / "big.eval"
    zip_writer(path, {"header.json": big.encode()}, method=8, compress=_deflate)
    with pytest.raises(ArchiveFormatError, match="zip bomb"):
        load_archive(path, max_member_bytes=1 << 20)
    assert load_archive(path, max_member_bytes=8 << 20).notes["planned"] == 2


def test_pathological_json_within_cap_is_refused(tmp_path: Path, zip_writer: Callable) -> None:
    bomb = b"[" + b"[]," * (1 << 20) + b"[]]"  # 3 MiB of text that parses to ~60 MiB of lists
    path = _log(tmp_path / "lists.eval", zip_writer, a=bomb)
    with pytest.raises(ArchiveFormatError, match="parsing would need"):
        load_archive(path, max_member_bytes=4 << 20)


def test_zstd_member_inflating_past_its_declared_size(tmp_path: Path,
                                                      zip_writer: Callable) -> None:
    zstandard = pytest.importorskip("zstandard")
    body = _sample("a")
    real = body + b" " * (2 << 20)
    path = tmp_path / "z.eval"
    members = {"header.json": json.dumps(HEADER).encode(), "samples/a_epoch_1.json": body}
    comp = {"header.json": zstandard.ZstdCompressor().compress(members["header.json"]),
            "samples/a_epoch_1.json": zstandard.ZstdCompressor().compress(real)}
    zip_writer(path, members, method=93, compress=lambda d: comp[
        "header.json" if d == members["header.json"] else "samples/a_epoch_1.json"])
    archive = load_inspect(path)
    (problem,) = archive.problems
    assert "inflates beyond its declared" in problem.message
    assert {e.task: e.reason for e in archive.episodes} == {"a": "not_in_archive",
                                                             "b": "not_in_archive"}


def test_cli_names_the_cap_option(tmp_path: Path, zip_writer: Callable) -> None:
    big = json.dumps({"eval": HEADER["eval"], "pad": "x" * (2 << 20)})
    path = tmp_path / "big.eval"
    zip_writer(path, {"header.json": big.encode()}, method=8, compress=_deflate)
    code, _, err = _cli(["audit", str(path), "--out", str(tmp_path / "o"),
                         "--max-member-mb", "1"])
    assert code == 2 and "--max-member-mb" in err and len(err.strip().splitlines()) == 1


# --- 9: one line and exit 2, never a traceback ----------------------------------------------


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def test_deeply_nested_json_in_every_importer(tmp_path: Path, zip_writer: Callable) -> None:
    tau = tmp_path / "deep.json"
    tau.write_text('[{"task_id": 1, "reward": 1, "info": {}, "traj": ' + _deep(100_000) + "}]")
    with pytest.raises(ArchiveFormatError, match="nested too deeply"):
        load_archive(tau)
    jl = tmp_path / "deep.jsonl"
    jl.write_text('{"task": "t", "model": "m", "grade": 1}\n{"task": ' + _deep(100_000) + "}\n")
    archive = load_archive(jl)
    (problem,) = archive.problems
    assert problem.line == 2 and "nested too deeply" in problem.message
    log = _log(tmp_path / "deep.eval", zip_writer, header=None,
               a=('{"id": "a", "x": ' + _deep(100_000) + "}").encode())
    archive = load_archive(log)
    assert "nested too deeply" in archive.problems[0].message
    head = tmp_path / "deephead.eval"
    zip_writer(head, {"header.json": _deep(100_000).encode()})
    with pytest.raises(ArchiveFormatError, match="nested too deeply"):
        load_archive(head)
    # nesting under Python's parser limit but beyond what later recursive code can follow
    jl2 = tmp_path / "deep2.jsonl"
    jl2.write_text('{"task": "t", "model": "m", "grade": {"score": 1, "detail": '
                   + "{\"a\": " * 600 + "1" + "}" * 600 + "}}\n")
    with pytest.raises(ArchiveFormatError, match="nested too deeply"):
        load_archive(jl2)


@pytest.mark.parametrize(("row", "message"), [
    ({"traj": "hello"}, "traj is a string, not a list"),
    ({"traj": [1, 2]}, "traj[0] is a number, not an object"),
    ({"info": [1]}, "info is a list, not an object"),
    ({"info": {"reward_info": "x"}}, "info.reward_info is a string"),
    ({"traj": [{"role": "assistant", "tool_calls": [{"function": "f"}]}]},
     "traj[0].tool_calls[0].function is a string"),
])
def test_taubench_rows_of_the_wrong_shape(tmp_path: Path, row: dict, message: str) -> None:
    good = {"task_id": 0, "reward": 1.0, "trial": 0, "traj": [],
            "info": {"reward_info": {"reward": 1.0}}}
    bad = {**good, "task_id": 1, **row}
    f = tmp_path / "rows.json"
    f.write_text(json.dumps([good, bad]))
    archive = load_archive(f)
    by = {e.task: e for e in archive.episodes}
    assert by["0"].outcome == "pass"
    assert by["1"].outcome == "ungraded" and by["1"].reason == "malformed_record"
    assert by["1"].grade is None and message in by["1"].reason_detail
    (problem,) = archive.problems
    assert "row 1" in str(problem) and "rows.json" in str(problem)


@pytest.mark.parametrize(("reward", "trial"), [(10**400, 0), (1e400, 0), (1.0, 10**400),
                                               (1.0, "x"), (1.0, float("nan"))])
def test_taubench_huge_and_non_finite_numbers(tmp_path: Path, reward: object,
                                              trial: object) -> None:
    f = tmp_path / "n.json"
    row = {"task_id": 0, "trial": trial, "reward": reward, "traj": [],
           "info": {"reward_info": {"reward": reward}}}
    f.write_text(json.dumps([row]))
    code, _, err = _cli(["audit", str(f), "--out", str(tmp_path / "o"), "--json"])
    assert code in (0, 1, 2) and "Traceback" not in err
    if code != 2:
        doc = json.loads((tmp_path / "o" / "archive.json").read_text())
        assert doc["coverage"]["overall"]["counts"]["pass"] == 0  # never a score
        assert (code == 1) == (doc["coverage"]["overall"]["graded"] == 0)  # nothing measured


def test_eval_header_list_and_bad_events(tmp_path: Path, zip_writer: Callable) -> None:
    path = _log(tmp_path / "h.eval", zip_writer, header=[1, 2], a=_sample("a"))
    with pytest.raises(ArchiveFormatError, match=r"h\.eval!header\.json: the header is a list"):
        load_inspect(path)
    path = _log(tmp_path / "e.eval", zip_writer, a=_sample("a", events=[1, "x"]),
                b=_sample("b", events=[{"event": "model", "output": []}]))
    archive = load_inspect(path)
    by = {e.task: e for e in archive.episodes}
    assert by["a"].reason == "malformed_record" and "events[0] is a number" in \
        by["a"].reason_detail
    assert by["b"].reason == "malformed_record" and "events[0].output is a list" in \
        by["b"].reason_detail
    assert [str(p).split(":")[0] for p in archive.problems] == [
        "e.eval!samples/a_epoch_1.json", "e.eval!samples/b_epoch_1.json"]


def test_eval_summaries_that_are_not_objects(tmp_path: Path, zip_writer: Callable) -> None:
    path = tmp_path / "s.eval"
    zip_writer(path, {"header.json": json.dumps(HEADER).encode(),
                      "summaries.json": json.dumps([1, {"id": "a", "epoch": 1,
                                                        "scores": {"acc": {"value": 1}}}]
                                                   ).encode()})
    archive = load_inspect(path)
    assert [e.outcome for e in archive.episodes] == ["pass", "ungraded"]
    assert "entry 0 is a number" in str(archive.problems[0])


def test_cli_one_line_for_broken_inputs(tmp_path: Path, zip_writer: Callable) -> None:
    cases = {"deep.json": "[" + _deep(100_000) + "]",
             "head.eval": None,
             "num.jsonl": '{"task": "t", "model": "m", "trial": 1e400, "grade": 10' + "0" * 400
                          + "}\n"}
    zip_writer(tmp_path / "head.eval", {"header.json": b'["a"]'})
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        code, _, err = _cli(["audit", str(tmp_path / name), "--out", str(tmp_path / "o")])
        assert code == 2, name
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        # the path as given; an Inspect log's member after it (before: `head.eval!...`)
        first = f"{tmp_path / name}!header.json: " if name == "head.eval" else str(tmp_path / name)
        assert err.startswith(f"error: {first}"), err


# --- 10: wrong shapes are never scores; unrelated compares warn; bad spans refused ----------


@pytest.mark.parametrize(("scores", "detail"), [
    ([1, 2], "scores is a list"), ("C", "scores is a string"),
    ({"acc": 2}, "score is a number, not a score object"),
    ({"acc": {"value": [1, 2]}}, "value list"),
    ({"acc": {"value": 10**400}}, "non-finite or out-of-range")])
def test_inspect_scores_of_the_wrong_shape_are_ungraded(
        tmp_path: Path, zip_writer: Callable, scores: object, detail: str) -> None:
    text = json.dumps({"id": "a", "epoch": 1, "scores": scores})
    path = _log(tmp_path / "s.eval", zip_writer, a=text.encode(), b=_sample("b"))
    by = {e.task: e for e in load_inspect(path).episodes}
    assert by["a"].grade is None and by["a"].outcome == "ungraded"
    assert by["a"].reason in ("unsupported_score", "unscored") and detail in by["a"].reason_detail
    assert by["b"].outcome == "pass"


def test_compare_of_unrelated_archives_warns_and_fails(tmp_path: Path) -> None:
    # A comparison with no episode graded in both measured nothing: before it exited 0 (a
    # warning only), which a script reads as a comparison made; now 1, compare.json written.
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    a.write_text('{"task": "t1", "model": "m", "grade": 1}\n')
    b.write_text('{"task": "zz", "model": "other", "grade": 0}\n')
    c.write_text('{"task": "t1", "model": "m", "grade": null}\n')
    code, _, err = _cli(["compare", str(a), str(b), "--out", str(tmp_path / "o")])
    assert code == 1 and "warning: the archives share no episode" in err
    assert err.splitlines()[-1] == (
        "error: no episode is graded in both archives (0 in both, 0 compared): the comparison "
        "measured nothing and none of its fractions holds (compare.json is written; its "
        "warnings say why)")
    doc = json.loads((tmp_path / "o" / "compare.json").read_text())
    assert doc["episodes_in_both"] == 0 and "share no episode" in doc["warnings"][0]
    code, _, err = _cli(["compare", str(a), str(c), "--out", str(tmp_path / "o")])
    assert code == 1 and "none is graded in both" in err and "(1 in both, 0 compared)" in err
    code, _, err = _cli(["compare", str(a), str(a), "--out", str(tmp_path / "o")])
    assert code == 0 and "warning" not in err and "error" not in err


def test_spans_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    arch = tmp_path / "a.jsonl"
    arch.write_text('{"task": "t1", "model": "m", "grade": 1}\n')
    spans = tmp_path / "spans.jsonl"
    spans.write_text("this is not json\nnor is this\n")
    code, _, err = _cli(["audit", str(arch), "--spans", str(spans), "--out",
                         str(tmp_path / "o")])
    assert code == 2 and "no trace span could be read" in err and "line 1" in err
    assert len(err.strip().splitlines()) == 1


# --- 17: a directory of .eval logs ------------------------------------------------------------


def test_audit_directory_of_eval_logs(tmp_path: Path, zip_writer: Callable) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    header2 = json.loads(json.dumps(HEADER))
    header2["eval"]["run_id"] = "R2"
    _log(logs / "1.eval", zip_writer, a=_sample("a"), b=_sample("b"))
    _log(logs / "2.eval", zip_writer, header2, a=_sample("a", scores={"acc": {"value": "I"}}))
    (logs / "3.eval").write_bytes(b"not a zip")
    (logs / "notes.txt").write_text("ignored")
    code, out, err = _cli(["audit", str(logs), "--out", str(tmp_path / "o"), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["archive"]["format"] == "inspect" and doc["archive"]["episodes"] == 4
    assert doc["coverage"]["overall"]["counts"] == {"pass": 2, "fail": 1, "ungraded": 1,
                                                    "invalid_replay": 0}
    assert [i["name"] for i in doc["inputs"]] == ["1.eval", "2.eval", "3.eval"]
    assert doc["load"]["notes"]["logs_imported"] == 2
    assert doc["load"]["problems"][0].startswith("3.eval: log not imported")
    for bad in ("1.eval", "2.eval"):
        (logs / bad).write_bytes(b"junk")
    code, _, err = _cli(["audit", str(logs), "--out", str(tmp_path / "o")])
    assert code == 2 and "none of its 3 .eval log(s) could be read" in err


def test_empty_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    code, _, err = _cli(["audit", str(tmp_path / "d"), "--out", str(tmp_path / "o")])
    assert code == 2 and "neither an evidence store" in err


# --- 1: a measurement failure is never a score ----------------------------------------------


def test_errored_inspect_sample_with_a_score_is_ungraded(tmp_path: Path,
                                                         zip_writer: Callable) -> None:
    path = _log(tmp_path / "e.eval", zip_writer,
                a=_sample("a", error={"message": "API timeout"}), b=_sample("b"))
    archive = load_inspect(path)
    by = {e.task: e for e in archive.episodes}
    assert by["a"].grade is None and by["a"].reason == "sample_error"
    assert "stored score is ignored" in by["a"].reason_detail
    cov = audit_archive(archive)["coverage"]
    assert cov["overall"]["graded"] == 1 and cov["overall"]["reasons"] == {"sample_error": 1}
    (listed,) = cov["unresolved_episodes"]
    assert listed["score"] is None and listed["outcome"] == "ungraded"


def test_jsonl_infra_error_with_a_grade_is_ungraded(tmp_path: Path) -> None:
    f = tmp_path / "e.jsonl"
    f.write_text('{"task": "t1", "model": "m", "grade": 0, "termination": "infra_error"}\n'
                 '{"task": "t2", "model": "m", "grade": 1}\n'
                 '{"task": "t3", "model": "m", "grade": 0}\n')
    doc = audit_archive(load_jsonl(f))
    o = doc["coverage"]["overall"]
    assert o["counts"] == {"pass": 1, "fail": 1, "ungraded": 1, "invalid_replay": 0}
    assert o["reasons"] == {"infra_error": 1} and o["score_graded_only"] == 0.5
    # the stored mean averages graded episodes only and says how many it left out
    assert o["stored_values"] == {"count": 2, "mean": 0.5, "excluded_unresolved": 1}


def test_taubench_stored_zero_of_ungraded_rows_is_not_averaged(tmp_path: Path) -> None:
    rows = [{"task_id": 0, "trial": 0, "reward": 1.0, "traj": [],
             "info": {"reward_info": {"reward": 1.0}}},
            {"task_id": 0, "trial": 1, "reward": 0.0, "traj": [], "info": {"reward_info": None}}]
    f = tmp_path / "t.json"
    f.write_text(json.dumps(rows))
    o = audit_archive(load_taubench(f))["coverage"]["overall"]
    assert o["stored_values"] == {"count": 1, "mean": 1.0, "excluded_unresolved": 1}
    assert o["bounds"] == {"lower": 0.5, "upper": 1.0, "width": 0.5}


def test_fraction_reference_unchanged() -> None:
    assert pass_hat_k_fraction([(4, 4), (4, 2), (4, 0)], 2) == (1 + Fraction(1, 6)) / 3


def test_pareto_accuracy_excludes_unresolved_and_counts_them() -> None:
    from agentmetrology.archive.synthetic import synthetic_archive

    archive, _ = synthetic_archive(4)
    doc = audit_archive(archive)
    pareto = doc["cost"]["pareto"]
    assert pareto["applicable"]
    for row in pareto["rows"]:
        eps = [e for e in archive.episodes if e.run == row["run"]]
        graded = [e for e in eps if e.outcome in ("pass", "fail")]
        assert row["accuracy"] == sum(e.outcome == "pass" for e in graded) / len(graded)
        assert row["unresolved_excluded"] == len(eps) - len(graded)
    assert any(r["unresolved_excluded"] for r in pareto["rows"])


def test_encrypted_member_is_one_line(tmp_path: Path, zip_writer: Callable) -> None:
    path = _log(tmp_path / "enc.eval", zip_writer)
    data = bytearray(path.read_bytes())
    data[6] |= 1  # general-purpose flag bit 0: encrypted (local header) ...
    at = data.index(b"PK\x01\x02")
    data[at + 8] |= 1  # ... and central directory
    path.write_bytes(bytes(data))
    code, _, err = _cli(["audit", str(path), "--out", str(tmp_path / "o")])
    assert code == 2 and "encrypted" in err and "Traceback" not in err


def test_a_blank_detail_is_empty_and_a_filled_one_is_still_redacted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Blank details (most rows) skip reading the environment; the rest still lose its secrets.
    from agentmetrology.archive.redact import redact

    monkeypatch.setenv("MY_SERVICE_API_KEY", "s3cr3t-value-0123456789")
    assert [redact(t) for t in ("", " ", "\n\t ")] == ["", "", ""]
    assert redact("  bad key s3cr3t-value-0123456789\nfrom   server ") == \
        "bad key [redacted] from server"
