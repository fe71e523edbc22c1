"""`agm archive`: audit an archived run (coverage, cost, provenance) and compare two archives.

Thin layer: resolve and check paths, call `archive` and `report`, write files, print a summary.
Every user error (missing file, unknown or unreadable format) exits with code 2 and one line;
an audit in which no episode was graded is written, and exits with code 1 and one line.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer

from agentmetrology.archive import ArchiveFormatError, audit_archive
from agentmetrology.archive.audit import audit_body, input_digests
from agentmetrology.archive.evidence_check import reopened_spec_digest
from agentmetrology.archive.importers.agm_ahead import reader_count
from agentmetrology.archive.importers.agm_store import looks_like_store
from agentmetrology.archive.importers.detect import FORMATS
from agentmetrology.archive.inputs import (
    DEFAULT_MEMBER_MB,
    InputRefused,
    input_file,
    load_checked,
    make_out_dir,
    read_from,
    store_binding,
    tau2_claim,
)
from agentmetrology.archive.model import Archive
from agentmetrology.archive.redact import redact
from agentmetrology.archive.regrade import regrade_store
from agentmetrology.archive.report_qualify import compare_with_evidence, store_evidence
from agentmetrology.cli import heap_exit
from agentmetrology.cli.archive_tau2_cmd import leaderboard_cmd, regrade_file
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.evidence_banner import print_banner
from agentmetrology.edges.display import one_line, printable
from agentmetrology.edges.files import FileRefused, resolved
from agentmetrology.records.canonical import canonical_json
from agentmetrology.report.archive_files import write_archive_audit, write_regrade
from agentmetrology.report.archive_report import render_regrade_report
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.report.terminal.archive_tables import (
    nothing_compared,
    nothing_graded,
    print_archive_audit,
    print_archive_compare,
    print_store_regrade,
)
from agentmetrology.runtime.gc_pause import gc_frozen, gc_paused
from agentmetrology.store.forked import ForkedCall
from agentmetrology.store.qualify import banner
from agentmetrology.store.store import LEDGER_FILE
from agentmetrology.store.verify_ahead import LedgerAhead

archive_app = typer.Typer(name="archive", help="Audit archived runs without new rollouts.",
                          no_args_is_help=True, add_completion=False)
archive_app.command("leaderboard")(leaderboard_cmd)

# The built-in formats: listing the plug-ins' would read every installed package's entry
# points on each archive command, --help or not.
FormatOpt = Annotated[str, typer.Option("--format", help="|".join(FORMATS)
                                        + " (or an installed plug-in's format)")]
OutOpt = Annotated[Path, typer.Option("--out", help="Directory for the output files.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the JSON instead of a summary.")]
MemberOpt = Annotated[int, typer.Option(
    "--max-member-mb", min=1, max=65536,
    help="Largest size (MiB) one member of an Inspect .eval log may inflate to; the whole log "
         "may inflate to 16 times that. Bytes actually produced are counted, not declared ones.")]


def _fail(message: str, given: tuple[Path | None, ...] = ()) -> typer.Exit:
    """Print one error line to stderr and return the exit (code 2) to raise.

    Not the one handler's line: these messages quote a hostile file (member names, parser
    errors), so they are redacted and flattened to one line first. A message that starts
    with the name of a file the user gave (`NAME: ...`, as the importers name it) starts with
    the path as the user gave it instead: it is the user's own word (and clearer than its
    last part), and redacting it would read a file called `token` or `passwd` as a
    credential label and hide the message's next word.
    """
    label, rest = _given_label(message, given)
    # one_line before redact, whose flattening would show a path's newline as a space
    typer.echo(f"error: {one_line(label)}{printable(redact(one_line(rest), limit=500))}",
               err=True)
    return typer.Exit(code=2)


def _given_label(message: str, given: tuple[Path | None, ...]) -> tuple[str, str]:
    """Split `NAME: ` (or an Inspect log's `NAME!` before a member's name) off `message` when
    NAME is a given path's name (a link's or its target's, which the importers name): the
    label, the path as the user gave it, and the rest."""
    for path in given:
        if path is None:
            continue
        try:
            target = resolved(path).name
        except FileRefused:
            target = path.name
        for name in (path.name, target):
            for sep in (": ", "!"):  # the member's name after `!` is the file's text: redacted
                if name and message.startswith(name + sep):
                    return f"{path}{sep}", message[len(name) + len(sep):]
    return "", message


@contextmanager
def _refused(*given: Path | None) -> Iterator[None]:
    """Print a refused input (archive.inputs) as `_fail` does and exit 2; `given` are the
    paths the user named (see `_fail`)."""
    try:
        yield
    except InputRefused as exc:
        raise _fail(str(exc), given) from exc


@archive_app.command("audit")
def audit(
    path: Annotated[Path, typer.Argument(help="Archive (tau-bench JSON, .eval, JSONL), an "
                                         "evidence store directory, or a directory of .eval "
                                         "logs.")],
    out: OutOpt,
    fmt: FormatOpt = "auto",
    spans: Annotated[Path | None, typer.Option("--spans", help="Trace span JSONL.")] = None,
    max_member_mb: MemberOpt = DEFAULT_MEMBER_MB,
    reported: Annotated[Path | None, typer.Option(
        "--reported", help="tau2: the submission.json (or a top level with pass_rate) whose "
                           "numbers to check; default: a submission.json beside the file.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Audit an archive: coverage and bounds, pass^k, cost, provenance; write the reports."""
    with _refused(path, spans, out):
        src = input_file(path, "archive", dir_ok=True)
        span_file = input_file(spans, "spans file") if spans is not None else None
        out_dir = make_out_dir(out)
    # An evidence store's audit builds a heap that lives to the end (every episode imported)
    # out of objects in no reference cycle; the cyclic collector, triggered by allocation
    # counts, scans that whole heap again and again and frees nothing (a fifth of the audit's
    # time on 100k episodes, the same peak memory without it). Paused for stores only: the
    # other formats' parsers were not measured. When the pause ends, that heap is frozen
    # (gc.freeze) while the reports are written: else the collector, resumed, scans it in each
    # generation in turn, freeing nothing (5% of the audit's CPU on 10,000 episodes).
    # The input files (a store's ledger: 438 MB at 100,000 episodes) are hashed in a thread
    # while the store is checked, once it is imported: hashlib lets go of the GIL on large
    # blocks, so they are hashed on the core the import's helper processes leave idle by then.
    store = looks_like_store(src)
    with gc_frozen() as heap:  # thawed however the audit ends (runtime.gc_pause)
        with gc_paused() if store else nullcontext(), _ledger_ahead(src, store) as ledger:
            with _refused(path, spans, reported):
                archive = load_checked(src, fmt, span_file, max_member_mb)
                if reported is not None and archive.format != "tau2":
                    # it would be ignored, unread: the user asked for a check never made
                    raise _fail(f"--reported applies to tau2-bench results files only, and "
                                f"{path} is not one (format {archive.format}): drop --reported")
                inputs = read_from(src) + ([("spans", span_file)] if span_file else [])
                claim = tau2_claim(src, reported, inputs) if archive.format == "tau2" else None
            # The checks read the archive alone: a store's are computed in a forked copy of
            # this process (its heap shared copy-on-write) while this one checks the store,
            # forked before the hashing thread starts (a fork copies the calling thread only).
            with _body_ahead(archive, claim, store) as body_call, \
                    ThreadPoolExecutor(1) as hashing:  # the inputs hashed meanwhile (above)
                digested = hashing.submit(input_digests, inputs)
                qualification, facts = store_binding(
                    archive, src, ledger.result() if ledger is not None else None)
                body = body_call.result()
                doc = audit_archive(archive, inputs, qualification, facts, claim,
                                    digested=digested.result(), body=body)
            if store:
                heap.freeze()  # still paused: no collection between the two
        code = _write_audit(doc, out_dir, as_json)
    heap_exit.keep(archive, body, doc)  # written: the process ends without freeing them
    if code:
        raise typer.Exit(code)


def _body_ahead(archive: Archive, claim: tuple[str, dict[str, Any]] | None,
                store: bool) -> AbstractContextManager[ForkedCall[dict[str, Any]]]:
    """Return the audit's checks of `archive` computed in a forked copy of this process
    (store.forked.ForkedCall) where its store is checked meanwhile, else computed here when
    asked for (a ForkedCall never entered forks nothing)."""
    call = ForkedCall(audit_body, archive, claim)
    # (a thread left running, e.g. by a reader pool that broke, rules out a fork: the copy
    # would hold whatever lock that thread held, for ever)
    if store and reader_count() > 0 and threading.active_count() == 1:
        return call
    return nullcontext(call)


def _ledger_ahead(src: Path, store: bool) -> AbstractContextManager[LedgerAhead | None]:
    """Start the ledger half of the store's full check in another process, to run while the
    store is imported (store.verify_ahead), where the import reads its blobs ahead in one too
    (AGM_ARCHIVE_READERS, archive.importers.agm_ahead); else nothing."""
    return (LedgerAhead(src, reopened_spec_digest) if store and reader_count() > 0
            else nullcontext())


def _write_audit(doc: dict[str, Any], out_dir: Path, as_json: bool) -> int:
    """Write the audit's files and print its summary (or the JSON); return the exit code: 1
    when no episode was graded (the audit measured nothing), else 0."""
    try:
        written = write_archive_audit(doc, out_dir)
    except NumberGuardError as exc:
        raise _fail(str(exc)) from exc
    print_banner(doc.get("evidence"))  # the summary and --json alike
    if as_json:  # archive.json's content, the rendered files' digests included
        typer.echo(json.dumps(written, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print_archive_audit(make_console(), doc, out_dir)
    return nothing_graded(err_console, doc)


@archive_app.command("compare")
def compare(
    old: Annotated[Path, typer.Argument(help="Archive graded with the old versions.")],
    new: Annotated[Path, typer.Argument(help="The same tasks graded with the new versions.")],
    out: OutOpt,
    fmt: FormatOpt = "auto",
    v1_g0: Annotated[Path | None, typer.Option("--v1-g0", help="Crossed cell: new evaluator, "
                                                "old task data.")] = None,
    v0_g1: Annotated[Path | None, typer.Option("--v0-g1", help="Crossed cell: old evaluator, "
                                                "new task data.")] = None,
    max_member_mb: MemberOpt = DEFAULT_MEMBER_MB,
    as_json: JsonOpt = False,
) -> None:
    """Compare two archives of the same tasks: transitions, flip fraction, rank reversals."""
    with _refused(old, new, v1_g0, v0_g1, out):
        old_src, new_src = input_file(old, "OLD", dir_ok=True), input_file(new, "NEW",
                                                                            dir_ok=True)
        a_old = load_checked(old_src, fmt, max_member_mb=max_member_mb)
        a_new = load_checked(new_src, fmt, max_member_mb=max_member_mb)
        crossed: list[Archive | None] = []
        if v1_g0 is not None or v0_g1 is not None:
            crossed = [load_checked(input_file(p, "crossed archive", dir_ok=True), fmt,
                                    max_member_mb=max_member_mb) if p else None
                       for p in (v1_g0, v0_g1)]
        out_dir = make_out_dir(out)
    # Our own stores: the comparison carries each side's qualification, banner when unqualified.
    doc, evidence = compare_with_evidence((old_src, a_old), (new_src, a_new), crossed)
    (out_dir / "compare.json").write_bytes(canonical_json(doc))
    for side, q in evidence.items():
        text = banner(q)
        if text is not None:
            typer.secho(f"{side.upper()}: {text}", err=True, fg="red", bold=True)
    for warning in doc["warnings"]:
        typer.echo(f"warning: {printable(warning)}", err=True)
    if as_json:
        typer.echo(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print_archive_compare(make_console(), doc, a_old.source, a_new.source, evidence)
    if code := nothing_compared(err_console, doc):
        raise typer.Exit(code)


@archive_app.command("regrade")
def regrade(
    store: Annotated[Path, typer.Argument(help="Evidence store directory (agm), or a tau2 "
                                                "results file.")],
    out: OutOpt,
    as_json: JsonOpt = False,
) -> None:
    """Re-score every stored episode with the current scorers (a tau2 file: replay each
    simulation through the domain's database and checks); compare with the stored ones."""
    src = resolved(store)  # FileRefused (a UserError) for a link loop
    if src.is_file():  # a tau2 results file: its simulations replayed through the domain
        return regrade_file(src, out, as_json)
    if not src.exists():  # else it read as "not an evidence store", which it also is not
        raise _fail(f"not found: {store} (give an evidence store directory or a tau2 results "
                    "file)")
    if not looks_like_store(src):
        raise _fail(f"not an evidence store (a directory holding {LEDGER_FILE}): {store}")
    with _refused():
        out_dir = make_out_dir(out)
    evidence = store_evidence(src)  # NotAStoreError (a UserError) for an unreadable ledger
    try:
        doc = regrade_store(src, evidence)
        md = render_regrade_report(doc)
    except (ArchiveFormatError, NumberGuardError) as exc:
        raise _fail(str(exc), (store,)) from exc
    except (OSError, ValueError, KeyError) as exc:
        raise _fail(f"{store}: cannot be re-graded ({type(exc).__name__}: {exc})",
                    (store,)) from exc
    written = write_regrade(doc, md, out_dir)
    print_banner(doc.get("evidence"))  # the summary and --json alike
    if as_json:
        typer.echo(json.dumps(written, indent=2, sort_keys=True, ensure_ascii=False))
        return
    print_store_regrade(make_console(), doc)
