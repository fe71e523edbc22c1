"""report.md / report.html rendered from archive.json only, every number guarded."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.model import ReplaySpec
from agentmetrology.archive.replay import apply_gate
from agentmetrology.archive.synthetic import synthetic_archive
from agentmetrology.report import archive_report
from agentmetrology.report.archive_report import render_archive_report
from agentmetrology.report.numberguard import NumberGuardError


def test_taubench_report(taubench_file: Path) -> None:
    doc = audit_archive(load_archive(taubench_file), [("archive", taubench_file)])
    md, page = render_archive_report(doc)
    assert "pass^k as stored for k up to 4: 0.420, 0.273, 0.220, 0.200" in md
    assert "lies between 0.420 and 0.445" in md
    for ep in ("33/0", "2/1", "9/2", "9/3", "46/3"):
        assert f"`gpt-4o-airline/{ep}`" in md
    assert "28 of 50 tasks (counted per cell) have more than one outcome" in md
    assert doc["inputs"][0]["sha256"] in md
    assert "<script" not in page and not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    assert "<svg" in page and "0.420" in page


def test_synthetic_report_covers_all_sections() -> None:
    archive, _ = synthetic_archive(2)
    first = archive.episodes[0]
    first.replay = ReplaySpec("stubbed_model", (), ())
    apply_gate(first)
    doc = audit_archive(archive)
    md, _ = render_archive_report(doc)
    for heading in ("## Cost", "## Action provenance", "## Replay gate",
                    "### Differences between cells", "Cost–accuracy frontier"):
        assert heading in md
    assert f"{doc['provenance']['candidates']} archived actions match no executed call" in md


def test_report_refuses_a_number_not_in_the_json(taubench_file: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    doc = audit_archive(load_archive(taubench_file))
    original = archive_report._tasks

    def computing(d: Any, doc: dict[str, Any]) -> None:
        original(d, doc)
        c = doc["tasks"]["counts"]
        d.p(f"{c['tasks'] - c['mixed']} tasks are stable.")  # a new number: must be refused

    monkeypatch.setattr(archive_report, "_tasks", computing)
    with pytest.raises(NumberGuardError, match="22"):
        render_archive_report(doc)
