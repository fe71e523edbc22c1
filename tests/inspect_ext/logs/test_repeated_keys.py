"""An Inspect `.eval` log whose JSON names a key twice is never read with one of the values:
in the header the log is refused, in a sample the sample is kept ungraded (or skipped when its
own id or epoch is the repeated key), as the other archive importers do."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.inspect_ext.logs.importer import load_inspect

HEADER = json.dumps({
    "status": "success",
    "eval": {"model": "mockllm/model", "task": "t", "run_id": "r", "solver": "s",
             "scorers": [{"name": "sc"}], "dataset": {"sample_ids": ["a", "b"]},
             "config": {"epochs": 1}},
    "plan": {"steps": []}, "results": {"headline": {"scorer": "sc"}}})


def _sample(sid: str, value: str) -> str:
    return f'{{"id": "{sid}", "epoch": 1, "scores": {{"sc": {{"value": {value}}}}}, "events": []}}'


def _log(path: Path, header: str, a: str, b: str) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", header)
        zf.writestr("samples/a_epoch_1.json", a)
        zf.writestr("samples/b_epoch_1.json", b)
    return path


def test_a_clean_log_is_read_as_before(tmp_path: Path) -> None:
    archive = load_inspect(_log(tmp_path / "c.eval", HEADER, _sample("a", "1.0"),
                                _sample("b", "0.0")))
    assert [(e.task, e.stored_score) for e in archive.episodes] == [("a", 1.0), ("b", 0.0)]
    assert archive.problems == []


def test_a_sample_naming_a_key_twice_is_kept_ungraded(tmp_path: Path) -> None:
    twice = '{"value": 1.0, "value": 0.0}'  # json.loads would read 0.0, others 1.0
    b = _sample("b", "0.0").replace('{"value": 0.0}', twice)
    archive = load_inspect(_log(tmp_path / "s.eval", HEADER, _sample("a", "1.0"), b))
    a_ep, b_ep = archive.episodes
    assert (a_ep.task, a_ep.stored_score, a_ep.reason) == ("a", 1.0, None)
    assert (b_ep.task, b_ep.grade, b_ep.stored_score, b_ep.reason) == (
        "b", None, None, "malformed_record")
    (problem,) = archive.problems
    assert problem.message == ("malformed sample: a JSON object names 'value' more than once "
                               "(JSON readers differ on which value counts)")


def test_a_sample_naming_its_own_id_twice_is_skipped(tmp_path: Path) -> None:
    b = _sample("b", "0.0").replace('"id": "b"', '"id": "b", "id": "a"')
    archive = load_inspect(_log(tmp_path / "i.eval", HEADER, _sample("a", "1.0"), b))
    assert [(e.task, e.reason) for e in archive.episodes] == [("a", None), ("b", "not_in_archive")]
    assert archive.problems[0].message.startswith("skipped: a JSON object names 'id' more")


def test_a_header_naming_a_key_twice_refuses_the_log(tmp_path: Path) -> None:
    header = HEADER.replace('"model": "mockllm/model"',
                            '"model": "mockllm/model", "model": "other/model"')
    with pytest.raises(ArchiveFormatError) as err:
        load_inspect(_log(tmp_path / "h.eval", header, _sample("a", "1.0"),
                          _sample("b", "0.0")))
    assert str(err.value) == ("h.eval!header.json: a JSON object names 'model' more than once "
                              "(JSON readers differ on which value counts)")
