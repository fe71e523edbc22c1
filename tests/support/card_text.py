"""What a validity card printed on a terminal must show whole (CLI and renderer tests)."""

from __future__ import annotations

from typing import Any

from agentmetrology.report.terminal.audit_card import CARD_ROWS


def assert_card_whole(text: str, card: dict[str, Any], width: int) -> None:
    """Assert every row, scorer and claim word of `card` is in `text`, none past `width`."""
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    lines = text.splitlines()
    for key in CARD_ROWS:
        assert any(key.replace("_", " ") in line for line in lines), key
    for c in card["configurations"]:
        assert any(c["scorer"] in line for line in lines), c["scorer"]
        for word in str(c["licensed_claim"]).split():
            assert word in text
    assert "not shown at this width" not in text  # every configuration is on screen
