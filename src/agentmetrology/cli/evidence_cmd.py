"""`agm evidence verify|seal|qualify|head`: qualification of stores and reports, no re-execution.

Exit codes: 0 qualified (or sealed), 1 not qualified (every problem named), 2 bad input (not a
store, an older unsealed layout for verify/qualify, a report that cannot be read): one line,
and nothing in the store is changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.archive.report_qualify import read_report
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.records.errors import UserError
from agentmetrology.report.report_texts import qualify_report_files
from agentmetrology.report.terminal.evidence_text import (
    print_report_qualification,
    print_store_qualification,
    whole_check_notice,
)
from agentmetrology.store import EvidenceStore, LedgerError, StoreBusyError
from agentmetrology.store.errors import StoreError
from agentmetrology.store.qualify import QUALIFIED
from agentmetrology.store.verify import (
    NotAStoreError,
    require_sealed,
    store_head,
    store_is_sealed,
)
from agentmetrology.store.verify_heads import parse_head

evidence_app = typer.Typer(help="Verify evidence stores and qualify reports built from them.",
                           no_args_is_help=True, add_completion=False,
                           pretty_exceptions_enable=False)

StoreArg = Annotated[Path, typer.Argument(help="Evidence store directory.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the qualification as JSON.")]


def _sealed_store(store: Path) -> None:
    """Exit 2 with one line unless `store` is a sealed store."""
    with user_errors():
        require_sealed(store)


@evidence_app.command("verify")
def verify(
    store: StoreArg,
    hash_only: Annotated[bool, typer.Option(
        "--hash-only", help="Bytes only (the baseline): blobs, digests and the chain; accepts "
                            "rewrites that keep bytes self-consistent.")] = False,
    as_json: JsonOpt = False,
    expect_head: Annotated[str | None, typer.Option(
        "--expect-head", metavar="LEN:HEAD",
        help="A head pinned earlier (`agm evidence head`): fail when the chain is shorter or "
             "has another head at that length.")] = None,
    incremental: Annotated[bool, typer.Option(
        "--incremental", help="Re-check only what was appended since the head the last full "
                              "check on this machine found qualified (full when there is "
                              "none); older rows and blobs are not re-read.")] = False,
) -> None:
    """Check a store without re-execution; exit 1 and name every problem unless qualified."""
    expect = _expected_head(expect_head)
    if incremental and hash_only:
        fail("--incremental and --hash-only do not combine: the baseline is always a full read")
    _sealed_store(store)
    notice = whole_check_notice(err_console, (
        "no head verified by a full check here to start from" if incremental else
        "and every blob; --incremental re-reads only what was appended since"))
    doc = qualify_store(store, "hash-only" if hash_only else "full", expect, incremental,
                        notice=notice)
    doc["store"] = str(store)
    if as_json:
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        print_store_qualification(make_console(), doc)
    if not doc["qualified"]:
        raise typer.Exit(1)


def _expected_head(text: str | None) -> tuple[int, str] | None:
    if text is None:
        return None
    try:
        return parse_head(text)
    except ValueError as exc:
        fail(f"--expect-head {exc}")


@evidence_app.command("head")
def head_cmd(store: StoreArg, as_json: JsonOpt = False) -> None:
    """Print the store's chain length and head as LEN:HEAD, to pin for `verify --expect-head`."""
    _sealed_store(store)
    try:
        length, h = store_head(store)
    except NotAStoreError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps({"store": str(store), "length": length, "head": h}, sort_keys=True))
    else:
        print(f"{length}:{h}")


@evidence_app.command("seal")
def seal(store: StoreArg) -> None:
    """Seal an older (unsealed) store's ledger as it is now: an explicit, recorded migration."""
    try:
        store_is_sealed(store)  # refuses a path that is not a store before anything is opened
        with EvidenceStore.open(store, create=False, write=True, scrub_env=False) as st:
            n = st.seal_existing()
    except NotAStoreError as exc:
        fail(str(exc))
    except (StoreBusyError, LedgerError, OSError, StoreError) as exc:
        fail(f"cannot seal {store}: {exc}")
    if n == 0:
        make_console().print(f"{store}: already sealed; nothing changed", markup=False)
        return
    make_console().print(f"{store}: sealed {n} rows as found (recorded as a migration); "
                         f"run `agm evidence verify {store}`", markup=False)


@evidence_app.command("qualify")
def qualify(
    report_dir: Annotated[Path, typer.Argument(help="Directory of an `archive audit`, "
                                               "`archive regrade`, `diagnose` or `experiment "
                                               "report` report.")],
    store: Annotated[Path, typer.Option("--store", help="The evidence store it was built "
                                        "from.")],
    recompute: Annotated[bool, typer.Option(
        "--recompute", help="Also derive the report again from the store and compare every "
                            "number (as long as the command that wrote it; a diagnose's judge "
                            "is not run again).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Qualify a report against its store now: exit 1 unless it still qualifies."""
    try:
        path, doc = read_report(report_dir)
    except UserError as exc:
        fail(str(exc))
    _sealed_store(store)
    with user_errors():  # a store the audit cannot read: one line, exit 2
        out = qualify_report_files(path, doc, store, recompute)
    if as_json:
        print(json.dumps(out, indent=2, sort_keys=True))
    else:
        print_report_qualification(make_console(), path, out)
    if out["result"] != QUALIFIED:
        raise typer.Exit(1)

