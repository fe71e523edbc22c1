"""The audit's stage bar: drawn with each stage's name on a terminal, nothing when piped
(moved from tests/cli/test_audit_card_width.py)."""

from __future__ import annotations

import io

from rich.console import Console

from agentmetrology.report.terminal.progress import stage_progress


def test_stage_progress_draws_stage_names_only_on_a_terminal() -> None:
    tty = Console(file=io.StringIO(), force_terminal=True, width=80)
    with stage_progress(tty) as update:
        assert update is not None
        for i, stage in enumerate(("probes", "ownership", "2x2", "replay", "spectrum")):
            update(stage, i, 5)
    drawn = tty.file.getvalue()  # type: ignore[attr-defined]
    for stage in ("probes", "ownership", "2x2", "replay", "spectrum"):
        assert f"audit: {stage}" in drawn
    piped = Console(file=io.StringIO(), force_terminal=False, width=80)
    with stage_progress(piped) as update:
        assert update is None
    assert piped.file.getvalue() == ""  # type: ignore[attr-defined]
