"""An audit interrupted while writing leaves the previous four files, never a mix of two."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.audit.output import write_audit

NAMES = ("audit.json", "card.json", "report.md", "report.html")
DOC = {"card": {"licensed_claim": "model capability"}, "digests": {"card": "c" * 64}}


def test_an_interrupt_while_writing_leaves_the_previous_audit_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        (tmp_path / name).write_text(f"old {name}\n", encoding="utf-8")
    real = Path.write_text

    def interrupted(self: Path, text: str, *args: object, **kwargs: object) -> int:
        if self.name == "report.html.tmp":
            raise KeyboardInterrupt  # Ctrl-C after the other three were written
        return real(self, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_audit(tmp_path, DOC, "new markdown\n", "new html\n")
    # a new audit.json beside the old report.html was left before: two audits, one folder
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {
        name: f"old {name}\n" for name in NAMES}
    monkeypatch.setattr(Path, "write_text", real)
    write_audit(tmp_path, DOC, "new markdown\n", "new html\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES)
    assert (tmp_path / "report.html").read_text() == "new html\n"
    assert '"audit_digest": "' + "c" * 64 in (tmp_path / "card.json").read_text()
