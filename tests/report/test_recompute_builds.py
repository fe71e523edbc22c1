"""Every report `agm evidence qualify --recompute` derives again records the build of agm that
wrote it, and the recomputation compares builds first. Before, a report carried no build: an
honest report written by an earlier build whose format had changed since (a diagnose.json
without `paired.bootstrap_difference_p`) read `report_recomputed_differs`, exactly as a forged
one does. Now another build's report is `report_from_other_build`, compared on the values both
builds write and saying whether they agree: it qualifies only when it holds exactly what this
build derives again, each value the same, and a number it holds that differs is named, never
called agreeing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import agentmetrology
from agentmetrology.records.canonical import digest
from agentmetrology.report.build_id import build_name, build_of, code_digest, this_build
from report.test_recompute_reports import EQUAL, SQUEEZE, _edit, _qualify, diagnosed
from support.agm_runs import agm

__all__ = ["diagnosed"]  # the module-scoped fixture, shared with test_recompute_reports

OTHER = {"version": "0.0.9", "code_sha256": "ab" * 32}
OTHER_NAME = "agm 0.0.9 (code abababababab)"
NEW_FIELDS = ("bootstrap_difference_p",)  # a group's paired field an earlier build lacked


def _this_name() -> str:
    b = this_build()
    return f"agm {b['version']} (code {b['code_sha256'][:12]})"


def _older(doc: dict[str, Any]) -> None:
    """Make `doc` what a simulated earlier build wrote: its build, without the new fields."""
    doc["build"] = dict(OTHER)
    for g in doc["groups"].values():
        for f in NEW_FIELDS:
            del g["paired"][f]


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(_leaves(v) for v in value)
    return 1


def _compared(report: Path) -> int:
    """Return how many values of a diagnose report another build's recomputation compares."""
    doc = json.loads((report / "diagnose.json").read_text())
    return _leaves({k: v for k, v in doc.items()
                    if k not in ("store", "evidence", "build", "digest")})


def test_the_code_digest_is_over_every_file_of_the_package_but_bytecode(
        tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_bytes(b"x = 1\n")
    (tmp_path / "pkg" / "sub" / "b.json").write_bytes(b"{}")
    (tmp_path / "pkg" / "sub" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "pkg" / "c.pyc").write_bytes(b"\1")
    want = hashlib.sha256(b"a.py\x006\x00x = 1\nsub/b.json\x002\x00{}").hexdigest()
    assert code_digest(tmp_path / "pkg") == want
    (tmp_path / "pkg" / "sub" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\2")
    assert code_digest(tmp_path / "pkg") == want  # bytecode is no build of its own
    (tmp_path / "pkg" / "a.py").write_bytes(b"x = 2\n")
    assert code_digest(tmp_path / "pkg") != want
    package = Path(agentmetrology.__file__).parent
    assert this_build() == {"version": agentmetrology.__version__,
                            "code_sha256": code_digest(package)}


@pytest.mark.parametrize(("build", "name"), [
    (OTHER, OTHER_NAME), (None, "an unknown build (the report records none)"),
    ("0.1.0", "an unknown build (the report records none)"),
    ({**OTHER, "version": "0.1\n[red]"}, "an unknown build (the report records none)"),
    ({**OTHER, "code_sha256": "AB" * 32}, "an unknown build (the report records none)"),
    ({**OTHER, "extra": 1}, "an unknown build (the report records none)")])
def test_a_build_is_read_only_in_agms_form(build: Any, name: str) -> None:
    assert build_name(build_of({} if build is None else {"build": build})) == name


def test_a_same_build_report_is_compared_as_before(diagnosed: tuple[Path, Path],
                                                   tmp_path: Path) -> None:
    report, store = diagnosed
    doc = json.loads((report / "diagnose.json").read_text())
    assert doc["build"] == this_build()
    code, got = _qualify(report, store, "--recompute")
    assert code == 0 and got["notes"] == [EQUAL] and got["numbers_rederived"] is True
    assert got["recomputed"] == {"status": "equal", "same_build": True,
                                 "report_build": this_build(), "this_build": this_build()}
    group = sorted(doc["groups"])[0]
    forged = _edit(report, "diagnose.json",
                   lambda d: d["groups"][group].__setitem__("msr", 0.123), tmp_path / "f")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert got["recomputed"]["status"] == "report_recomputed_differs"
    # a field this build writes, missing from a report it wrote, is a difference (as before)
    cut = _edit(report, "diagnose.json",
                lambda d: d["groups"][group]["paired"].pop("bootstrap_difference_p"),
                tmp_path / "cut")
    code, got = _qualify(cut, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]


def test_an_honest_report_of_another_build_is_not_called_edited(
        diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    # Its values agree, and it lacks the fields this build added: named as another build's
    # report whose numbers agree, not as an edit; but not qualified, since a section deleted
    # from it would read the same (see the next test).
    report, store = diagnosed
    older = _edit(report, "diagnose.json", _older, tmp_path / "older")
    groups = sorted(json.loads((older / "diagnose.json").read_text())["groups"])
    code, got = _qualify(older, store, "--recompute")
    n = _compared(older)
    paths = [f"groups.{g}.paired.bootstrap_difference_p" for g in groups]
    assert code == 1 and got["result"] == "unavailable" and got["problems"] == [{
        "kind": "report_from_other_build", "result": "unavailable",
        "detail": f"diagnose.json was written by another build: {OTHER_NAME} wrote it, "
                  f"{_this_name()} recomputed it; of the {n} value(s) both builds write, the "
                  f"numbers agree and the texts agree; {len(groups)} value(s) this build writes "
                  f"are missing from the report ({'; '.join(paths)}); a change between builds "
                  "and an edit of the report read alike here: write the report again with "
                  "this build to compare like with like"}], got["problems"]
    assert got["recomputed"] == {
        "status": "report_from_other_build", "same_build": False, "report_build": OTHER,
        "this_build": this_build(), "digests_not_compared": ["digest"], "compared": n,
        "numbers_agree": True, "numbers_differing": 0, "texts_agree": True,
        "texts_differing": 0, "only_in_report": 0, "only_in_report_paths": [],
        "only_recomputed": len(groups), "only_recomputed_paths": paths}


def test_a_section_deleted_from_another_builds_report_does_not_qualify(
        diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    # A group whose diagnosis was unwelcome, deleted, the report marked as another build's:
    # every value left agrees, and it still does not qualify.
    report, store = diagnosed
    doc = json.loads((report / "diagnose.json").read_text())
    group = sorted(doc["groups"])[0]

    def delete(d: dict[str, Any]) -> None:
        d["build"] = dict(OTHER)
        del d["groups"][group]
    cut = _edit(report, "diagnose.json", delete, tmp_path / "cut")
    code, got = _qualify(cut, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_from_other_build"]
    block = got["recomputed"]
    assert f"groups.{group}" in block["only_recomputed_paths"]
    assert block["only_in_report"] == 0


def test_a_report_without_a_build_is_another_unknown_build(diagnosed: tuple[Path, Path],
                                                           tmp_path: Path) -> None:
    # written before builds were recorded: no build field at all
    report, store = diagnosed
    before = _edit(report, "diagnose.json", lambda d: d.pop("build"), tmp_path / "before")
    code, got = _qualify(before, store, "--recompute")
    assert code == 0 and got["problems"] == []
    assert got["notes"][0] == (
        "report_from_other_build: diagnose.json was written by another build: an unknown "
        f"build (the report records none) wrote it, {_this_name()} recomputed it; the "
        f"{_compared(before)} value(s) both builds write agree (numbers and texts)")
    assert got["recomputed"]["report_build"] is None
    assert got["recomputed"]["status"] == "report_from_other_build"


def test_a_forged_number_in_another_builds_report_is_still_named(
        diagnosed: tuple[Path, Path], tmp_path: Path) -> None:
    report, store = diagnosed
    doc = json.loads((report / "diagnose.json").read_text())
    group = sorted(doc["groups"])[0]
    true_msr = doc["groups"][group]["msr"]

    def forge(d: dict[str, Any]) -> None:
        _older(d)
        d["groups"][group]["msr"] = 0.123
    forged = _edit(report, "diagnose.json", forge, tmp_path / "forged")
    code, got = _qualify(forged, store, "--recompute")
    n = _compared(forged)
    assert code == 1 and got["result"] == "unavailable" and got["problems"] == [{
        "kind": "report_from_other_build", "result": "unavailable",
        "detail": f"diagnose.json was written by another build: {OTHER_NAME} wrote it, "
                  f"{_this_name()} recomputed it; of the {n} value(s) both builds write, 1 "
                  f"number(s) differ (groups.{group}.msr: 0.123 in the report, {true_msr!r} "
                  "recomputed) and the texts agree; 1 value(s) this build writes are missing "
                  f"from the report (groups.{group}.paired.bootstrap_difference_p); a change "
                  "between builds and an edit of the report read alike here: write the report "
                  "again with this build to compare like with like"}]
    assert got["recomputed"]["numbers_agree"] is False
    assert got["recomputed"]["numbers_differing"] == 1


@pytest.mark.parametrize("edit", ["reading", "renamed"])
def test_an_edited_text_or_a_value_only_the_report_holds_does_not_qualify(
        diagnosed: tuple[Path, Path], edit: str, tmp_path: Path) -> None:
    # A verdict word is a result too; a group renamed by an edit is a value this build does
    # not derive again: neither is agreement, whichever build the report names.
    report, store = diagnosed
    doc = json.loads((report / "diagnose.json").read_text())
    group = sorted(doc["groups"])[0]

    def forge(d: dict[str, Any]) -> None:
        _older(d)
        if edit == "reading":
            d["groups"][group]["reading"] = "agent capability"
        else:
            d["groups"][group + "x"] = d["groups"].pop(group)
    forged = _edit(report, "diagnose.json", forge, tmp_path / "forged")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_from_other_build"]
    block = got["recomputed"]
    if edit == "reading":
        assert (block["numbers_agree"], block["texts_agree"]) == (True, False)
        assert (f"the numbers agree and 1 text(s) differ (groups.{group}.reading: \"agent "
                f"capability\" in the report, {json.dumps(doc['groups'][group]['reading'])} "
                "recomputed)") in got["problems"][0]["detail"]
    else:
        assert block["only_in_report_paths"] == [f"groups.{group}x"]
        assert block["only_in_report"] == 1
        assert got["numbers_rederived"] is False
        assert got["numbers"] == ("numbers re-derived from the store (--recompute) by another "
                                  "build than the report's: 1 value(s) the report alone holds "
                                  "were not derived again")


def test_a_regrade_of_another_build_leaves_its_row_ids_out(diagnosed: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    # A score row's id digests its other fields, so an earlier build's row (one field fewer)
    # has another id: the fields are compared, the id is not (qualify checks it hashes).
    _, store = diagnosed
    out = tmp_path / "rg"
    assert agm("archive", "regrade", str(store), "--out", str(out)).returncode == 0
    doc = json.loads((out / "regrade.json").read_text())
    assert doc["build"] == this_build()

    def older(d: dict[str, Any]) -> None:
        d.pop("build")
        for row in d["score_rows"]:
            row.pop("task_revision")
            row["row_id"] = digest({k: v for k, v in row.items() if k != "row_id"})
    honest = _edit(out, "regrade.json", older, tmp_path / "honest")
    code, got = _qualify(honest, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_from_other_build"]
    assert (got["recomputed"]["numbers_agree"], got["recomputed"]["texts_agree"]) == (True, True)
    assert got["recomputed"]["digests_not_compared"] == ["score_rows[].row_id"]
    assert got["recomputed"]["only_recomputed"] == len(doc["score_rows"])

    def forged_row(d: dict[str, Any]) -> None:
        older(d)
        d["score_rows"][0]["score"] = 0.5 if d["score_rows"][0]["score"] != 0.5 else 0.25
        d["score_rows"][0]["row_id"] = digest(
            {k: v for k, v in d["score_rows"][0].items() if k != "row_id"})
    forged = _edit(out, "regrade.json", forged_row, tmp_path / "forged")
    code, got = _qualify(forged, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_from_other_build"]
    assert "1 number(s) differ (score_rows[0].score: " in got["problems"][0]["detail"]


def test_every_recomputable_report_records_its_build(diagnosed: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    report, store = diagnosed
    assert agm("archive", "audit", str(store), "--out", str(tmp_path / "au")).returncode == 0
    assert json.loads((tmp_path / "au" / "archive.json").read_text())["build"] == this_build()
    shown = agm("diagnose", str(store), "--out", str(tmp_path / "dg"), "--json")
    assert shown.returncode == 0
    written = (tmp_path / "dg" / "diagnose.json").read_text()
    assert json.loads(shown.stdout) == json.loads(written)  # --json prints what is written
    assert written == (report / "diagnose.json").read_text()  # the same run to run
    exp, er = tmp_path / "exp", tmp_path / "er"
    assert agm("experiment", "run", str(SQUEEZE), "--store", str(exp)).returncode == 0
    assert agm("experiment", "report", str(SQUEEZE), "--store", str(exp), "--out",
               str(er)).returncode == 0
    assert json.loads((er / "experiment.json").read_text())["build"] == this_build()
    older = _edit(er, "experiment.json", lambda d: d.__setitem__("build", dict(OTHER)),
                  tmp_path / "older")
    code, got = _qualify(older, exp, "--recompute")
    assert code == 0 and got["recomputed"]["status"] == "report_from_other_build"
    assert got["recomputed"]["only_in_report"] == got["recomputed"]["only_recomputed"] == 0
