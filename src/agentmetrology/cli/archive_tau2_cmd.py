"""`agm archive leaderboard`: many tau2 results files, one row per submission and domain.

Thin layer: check paths, call `archive.tau2_leaderboard` and the report, write three files,
print a summary. Every user error exits with code 2 and one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from agentmetrology.archive.audit import file_digest
from agentmetrology.archive.importers import load_archive
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.archive.tau2_leaderboard import TIE_TOLERANCE, leaderboard
from agentmetrology.archive.tau2_regrade import regrade_doc
from agentmetrology.cli.args import finite
from agentmetrology.cli.console import make_console
from agentmetrology.edges.display import one_line
from agentmetrology.edges.files import resolved
from agentmetrology.records.canonical import canonical_json
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.report.tau2_leaderboard_report import render_leaderboard
from agentmetrology.report.tau2_regrade_report import render_tau2_regrade
from agentmetrology.report.terminal.archive_tables import print_leaderboard, tau2_regrade_line
from agentmetrology.store.enclosing import InsideStoreError, refuse_inside_store

T = TypeVar("T")


def _guarded(build: Callable[[], T], out: Path) -> tuple[T, Path]:
    """Return build()'s result and the created --out directory; user errors exit 2, one line.
    An --out inside an evidence store is refused before anything is built."""
    try:
        refuse_inside_store(out, "report")
        value = build()
        out_dir = resolved(out)
        out_dir.mkdir(parents=True, exist_ok=True)
    except (ArchiveFormatError, NumberGuardError, InsideStoreError) as exc:
        typer.echo(f"error: {one_line(str(exc))}", err=True)
        raise typer.Exit(code=2) from exc
    except OSError as exc:
        typer.echo(f"error: cannot write {one_line(str(out))}: {exc.strerror}", err=True)
        raise typer.Exit(code=2) from exc
    return value, out_dir


def leaderboard_cmd(
    paths: Annotated[list[Path], typer.Argument(help="tau2 results files, or folders searched "
                                                     "for them (e.g. leaderboard submissions).")],
    out: Annotated[Path, typer.Option("--out", help="Directory for the output files.")],
    tie: Annotated[float, typer.Option("--tie-tolerance", min=0.0, max=1.0, callback=finite,
                                       help="Pass rates closer than this are a tie.")
                   ] = TIE_TOLERANCE,
    regrade: Annotated[bool, typer.Option(
        "--regrade", help="Also re-grade every simulation (airline, retail, telecom; up "
                          "to a second each) and show its pass^1 beside the reported and "
                          "stored.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON instead of a "
                                                         "summary.")] = False,
) -> None:
    """Audit many tau2 submissions: reported vs recomputed, do-nothing share, rank reversals."""
    def build() -> tuple[dict[str, Any], tuple[str, str]]:
        doc = leaderboard(paths, tol=tie, regrade=regrade)  # resolved there, named as given
        return doc, render_leaderboard(doc)

    (doc, (md, page)), out_dir = _guarded(build, out)
    (out_dir / "leaderboard.json").write_bytes(canonical_json(doc))
    (out_dir / "report.md").write_text(md, encoding="utf-8")
    (out_dir / "report.html").write_text(page, encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False))
        return
    console = make_console()
    print_leaderboard(console, doc, regrade)
    console.print(f"wrote {out_dir / 'leaderboard.json'}, {out_dir / 'report.md'}, "
                  f"{out_dir / 'report.html'}", markup=False, highlight=False)


def regrade_file(src: Path, out: Path, as_json: bool) -> None:
    """Re-grade a tau2 results file's simulations; write regrade.json and report.md."""
    def build() -> tuple[dict[str, Any], str]:
        doc = regrade_doc(load_archive(src, "tau2"), [file_digest(src)])
        return doc, render_tau2_regrade(doc)

    (doc, md), out_dir = _guarded(build, out)
    (out_dir / "regrade.json").write_bytes(canonical_json(doc))
    (out_dir / "report.md").write_text(md, encoding="utf-8")
    r = doc["regrade"]
    if as_json:
        typer.echo(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False))
    elif not r["applicable"]:
        typer.echo(f"not re-graded: {r['reason']}")
    else:
        typer.echo(tau2_regrade_line(r) + f"; wrote {out_dir / 'regrade.json'}")
