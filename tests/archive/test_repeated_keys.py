"""A JSON object naming a key twice in an archive: never read silently with one of its values.

json.loads keeps the last value, other readers the first, so the record is a measurement failure
(kept ungraded as `malformed_record`, listed as a load problem with file and position; a JSONL
line is skipped), a record naming its own task or trial twice is skipped, and a repeated key
outside the records (tau2's info, tasks, top level) refuses the file. Files without a repeated
key give the same bytes as a plain parse gives.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.importers import limits
from agentmetrology.archive.importers.tau2 import load_tau2
from agentmetrology.cli.main import app
from agentmetrology.edges.json_keys import KeyMarks, RepeatedKeys, first_repeated
from archive.tau2_files import GPT_AIRLINE, GPT_TELECOM, QWEN_AIRLINE, shared

WHY = "(JSON readers differ on which value counts)"
GOOD = '{"task_id": 0, "trial": 0, "reward": 1.0, "traj": [], "info": {"reward_info": ' \
       '{"reward": 1.0}}}'


def _audit(path: Path, out: Path) -> tuple[int, str, dict[str, Any], str]:
    """Return exit code, stderr, archive.json and report.md of `agm archive audit path`."""
    res = CliRunner().invoke(app, ["archive", "audit", str(path), "--out", str(out)])
    if res.exit_code:
        return res.exit_code, res.stderr, {}, ""
    doc = json.loads((out / "archive.json").read_text())
    return 0, res.stderr, doc, (out / "report.md").read_text()


def test_the_hook_marks_an_object_naming_a_key_twice_at_any_depth() -> None:
    marks = KeyMarks()
    value = json.loads('{"a": [{"b": {"k": 1, "j": 0, "k": 2}}], "c": 1}',
                       object_pairs_hook=marks)
    assert marks.count == 1 and first_repeated(value) == ["k"]
    assert value == {"a": [{"b": {"k": 2, "j": 0}}], "c": 1}  # still the dict json.loads gives
    clean = KeyMarks()
    assert first_repeated(json.loads('[{"k": 1}, {"k": 2}]', object_pairs_hook=clean)) is None
    assert clean.count == 0 and first_repeated("text") is None
    assert not isinstance(json.loads('{"k": 1}', object_pairs_hook=clean), RepeatedKeys)


@pytest.mark.parametrize(("row", "key"), [
    ('"task_id": 1, "trial": 0, "reward": 1.0, "traj": [], "reward": 0.0, "info": '
     '{"reward_info": {"reward": 1.0}}', "reward"),
    ('"task_id": 1, "trial": 0, "reward": 1.0, "traj": [], "info": {"reward_info": '
     '{"reward": 0.0, "reward": 1.0}}', "reward"),
    ('"task_id": 1, "trial": 0, "reward": 1.0, "info": {"reward_info": {"reward": 1.0}}, '
     '"traj": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", '
     '"arguments": "{\\"id\\": 1, \\"id\\": 2}"}}]}]', "id"),
])
def test_taubench_row_naming_a_key_twice_is_kept_ungraded(tmp_path: Path, row: str,
                                                          key: str) -> None:
    # Before, the row was read with its last values (a pass for the first two; arguments {id: 2}).
    f = tmp_path / "rows.json"
    f.write_text(f"[{GOOD}, {{{row}}}]")
    code, _, doc, md = _audit(f, tmp_path / "o")
    assert code == 0
    overall = doc["coverage"]["overall"]
    assert overall["counts"]["pass"] == 1 and overall["counts"]["ungraded"] == 1
    assert overall["reasons"] == {"malformed_record": 1}
    problem = "rows.json: row 1 (task 1): malformed, kept ungraded: "
    assert problem in md and f"names {key!r} more than once {WHY}" in md
    (ep,) = [e for e in load_archive(f).episodes if e.task == "1"]
    assert ep.grade is None and ep.events == []
    # no value of a row naming a key twice is read; one whose tool-call arguments (a JSON text
    # inside the row) do is malformed as a row of the wrong shape is, its reward still stored
    assert ep.stored_score == (None if key == "reward" else 1.0)


def test_taubench_row_naming_its_task_twice_is_skipped(tmp_path: Path) -> None:
    f = tmp_path / "rows.json"
    f.write_text(f'[{GOOD}, {{"task_id": 1, "task_id": 2, "reward": 1.0, "traj": [], '
                 '"info": {}}]')
    archive = load_archive(f)
    assert [e.task for e in archive.episodes] == ["0"]
    assert [str(p) for p in archive.problems] == [
        f"rows.json: row 1: skipped: a JSON object names 'task_id' more than once {WHY}"]


def _tau2_variant(tmp_path: Path, edit: str) -> Path:
    """Write the shared airline file cut to 4 simulations, with one key repeated at `edit`."""
    data = json.loads(shared(GPT_AIRLINE).read_text(encoding="utf-8"))
    data["simulations"] = data["simulations"][:4]
    sim = data["simulations"][1]
    sim["reward_info"]["reward"] = 1.0
    text = json.dumps(data)
    if edit == "reward":  # simulation 1 stores reward 1.0 and then 0.0
        at = text.index('"reward": 1.0', text.index(f'"id": "{sim["id"]}"'))
        text = text[:at] + '"reward": 1.0, "reward": 0.0' + text[at + len('"reward": 1.0'):]
    elif edit == "info":
        at = text.index('"info": {') + len('"info": {')
        text = text[:at] + '"seed": 1, ' + text[at:]
    f = tmp_path / "tau2.json"
    f.write_text(text)
    return f


def test_tau2_simulation_naming_a_key_twice_is_kept_ungraded(tmp_path: Path) -> None:
    code, _, clean, _ = _audit(_tau2_variant(tmp_path, ""), tmp_path / "clean")
    assert code == 0
    code, _, doc, md = _audit(_tau2_variant(tmp_path, "reward"), tmp_path / "o")
    assert code == 0
    before, after = clean["coverage"]["overall"], doc["coverage"]["overall"]
    assert after["counts"]["pass"] == before["counts"]["pass"] - 1  # its 1.0 is not read
    assert after["reasons"]["malformed_record"] == 1
    task = json.loads(shared(GPT_AIRLINE).read_text())["simulations"][1]["task_id"]
    assert (f"tau2.json: simulation 1 (task {task}): malformed, kept ungraded: a JSON object "
            f"names 'reward' more than once {WHY}") in md
    (ep,) = [e for e in load_tau2(tmp_path / "tau2.json").episodes if e.task == task]
    assert ep.reason == "malformed_record" and ep.stored_score is None


def test_tau2_key_twice_outside_the_simulations_refuses_the_file(tmp_path: Path) -> None:
    code, err, _, _ = _audit(_tau2_variant(tmp_path, "info"), tmp_path / "o")
    assert code == 2
    assert err == f"error: {tmp_path / 'tau2.json'}: outside the simulations, a JSON object " \
                  f"names 'seed' more than once {WHY}; the file is refused\n"


def test_jsonl_line_naming_a_key_twice_is_skipped(tmp_path: Path) -> None:
    # Before, line 2 was read as a grade of 0.0 (the last value), silently.
    f = tmp_path / "a.jsonl"
    f.write_text('{"task": "a", "model": "m", "grade": 1.0}\n'
                 '{"task": "b", "model": "m", "grade": 1.0, "grade": 0.0}\n'
                 '{"task": "c", "model": "m", "grade": {"score": 1, "detail": {"x": 1, '
                 '"x": 1}}}\n')
    archive = load_archive(f)
    assert [e.task for e in archive.episodes] == ["a"]
    assert archive.notes["lines_skipped"] == 2
    assert [str(p) for p in archive.problems] == [
        f"a.jsonl:2: skipped: a JSON object names 'grade' more than once {WHY}",
        f"a.jsonl:3: skipped: a JSON object names 'x' more than once {WHY}"]
    assert audit_archive(archive)["coverage"]["overall"]["counts"]["pass"] == 1


@pytest.mark.parametrize("name", [GPT_AIRLINE, GPT_TELECOM, QWEN_AIRLINE, "taubench"])
def test_real_files_give_the_bytes_a_plain_parse_gives(tmp_path: Path, name: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       request: pytest.FixtureRequest) -> None:
    path = request.getfixturevalue("taubench_file") if name == "taubench" else shared(name)
    code, _, _, _ = _audit(path, tmp_path / "new")
    assert code == 0
    # the reading before this check: json.loads with no hook (nothing marked, nothing searched)
    plain = types.SimpleNamespace(loads=lambda text, object_pairs_hook=None: json.loads(text))
    monkeypatch.setattr(limits, "json", plain)
    code, _, _, _ = _audit(path, tmp_path / "old")
    assert code == 0
    for out in ("archive.json", "report.md"):
        assert (tmp_path / "new" / out).read_bytes() == (tmp_path / "old" / out).read_bytes()
