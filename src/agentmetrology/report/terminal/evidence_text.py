"""The text of `agm evidence verify` and `agm evidence qualify`: a store's or a report's
qualification, every problem named, notes in yellow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from agentmetrology.store.qualify import NOTICE_FROM, QUALIFIED, banner
from agentmetrology.store.verify_checkpoint import describe


def whole_check_notice(console: Console, why: str) -> Callable[[int], None]:
    """Return what tells the user, before a whole check of a large store, why it takes longer
    (`why`: which check this is); nothing below NOTICE_FROM chain entries."""
    def notice(length: int) -> None:
        if length >= NOTICE_FROM:
            console.print(Text(f"checking all {length:,} chain entries of the store ({why})",
                               style="dim"))
    return notice


def print_store_qualification(console: Console, doc: dict[str, Any]) -> None:
    """Print a store's qualification: the verdict and what was checked, or every problem."""
    checked = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in doc["checked"].items())
    if doc["qualified"]:
        console.print(Text.assemble((f"{doc['store']}: qualified", "bold green"),
                                    f" ({doc['mode']} check: {checked}); evidence digest "
                                    f"{doc['evidence_digest']}"))
        if doc.get("incremental_since"):
            console.print(Text(f"note: {describe(doc)}; without --incremental the whole store "
                               "is re-checked", style="yellow"))
        if banner(doc):  # sealed by migration: unchained before its seal point
            console.print(Text(banner(doc) or "", style="bold yellow"))
    else:
        console.print(Text(banner(doc) or "", style="bold red"))
        for p in doc["problems"]:
            console.print(Text(f"  {p['kind']}: {p['where']}: {p['detail']}"))
        if doc["problem_count"] > len(doc["problems"]):
            console.print(f"  ... and {doc['problem_count'] - len(doc['problems'])} more")
    for note in doc["notes"]:
        console.print(Text(f"note: {note}", style="yellow"))


def print_report_qualification(console: Console, path: Path, out: dict[str, Any]) -> None:
    """Print a report's qualification against its store now, and the store's own problems."""
    result = out["result"]
    style = "bold green" if result == QUALIFIED else "bold red"
    console.print(Text(f"{path}: {result}", style=style))
    if not out.get("numbers_rederived", True):
        console.print(Text(str(out["numbers"]), style="yellow"))
    for p in out["problems"]:
        console.print(Text(f"  {p['kind']}: {p['detail']}"))
    for note in out["notes"]:
        console.print(Text(f"note: {note}", style="yellow"))
    current = out["store_qualification"]
    if not current["qualified"]:
        for p in current["problems"]:
            console.print(Text(f"  store: {p['kind']}: {p['where']}: {p['detail']}"))
