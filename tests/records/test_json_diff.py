"""Where a report and its recomputation differ (records.json_diff): a key one side lacks is a
difference, never equal to a null the other side holds. Before, `old.get(key)` read a deleted
key as null, so a report whose null field was deleted (and rendered again) qualified as equal
to its recomputation (review rev48, verified on an archive.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.records.json_diff import differences
from report.test_recompute_reports import _edit, _qualify, diagnosed

__all__ = ["diagnosed"]


def test_a_key_one_side_lacks_is_a_difference() -> None:
    assert differences({"a": None, "b": 1}, {"b": 1}) == [
        "a: null in the report, absent recomputed"]
    assert differences({"b": 1}, {"a": None, "b": 1}) == [
        "a: absent in the report, null recomputed"]
    assert differences({"x": [{"a": None}]}, {"x": [{}]}) == [
        "x[0].a: null in the report, absent recomputed"]
    assert differences({"a": None, "b": [1, {"c": 2.5}]}, {"a": None, "b": [1, {"c": 2.5}]}) == []


def _null_path(doc: Any, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """Return the path of a key holding null in `doc`, None when it has none."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if v is None:
                return (*path, k)
            found = _null_path(v, (*path, k))
            if found:
                return found
    if isinstance(doc, list):
        for i, v in enumerate(doc):
            found = _null_path(v, (*path, i))
            if found:
                return found
    return None


def test_a_null_field_deleted_from_a_report_is_not_equal(diagnosed: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    report, store = diagnosed
    doc = json.loads((report / "diagnose.json").read_text())
    doc.pop("digest", None)
    where = _null_path({k: v for k, v in doc.items() if k not in ("store", "evidence")})
    assert where is not None

    def delete(d: dict[str, Any]) -> None:
        at: Any = d
        for k in where[:-1]:
            at = at[k]
        del at[where[-1]]
    cut = _edit(report, "diagnose.json", delete, tmp_path / "cut")
    code, got = _qualify(cut, store, "--recompute")
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert got["recomputed"]["status"] == "report_recomputed_differs"
