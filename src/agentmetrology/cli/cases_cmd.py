"""`agm cases propose|calibrate|admit|use|withdraw|list --store DIR`: the case lifecycle.

Exit codes: 0 done, 1 a calibration whose controls did not all hold (recorded; the case stays
proposed), 2 bad input or a step out of order (one line; nothing in the store is changed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from agentmetrology.assess import cases as C
from agentmetrology.cli.args import seed_value
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.report.terminal.cases_text import case_line, control_lines, proposed_line
from agentmetrology.store import EvidenceStore, LedgerError, StoreBusyError, StoreNotFoundError
from agentmetrology.store.cases import list_cases

cases_app = typer.Typer(help="Failure-derived cases: propose, calibrate, admit, use, withdraw.",
                        no_args_is_help=True, add_completion=False,
                        pretty_exceptions_enable=False)

StoreOpt = Annotated[Path, typer.Option("--store", help="Evidence store directory.")]
CaseArg = Annotated[str, typer.Argument(help="Case id (see `agm cases list`).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@contextmanager
def _open(store: Path, write: bool = True) -> Iterator[EvidenceStore]:
    """Open an existing store (exit 2 when there is none or it is busy)."""
    try:
        st = EvidenceStore.open(store, create=False, write=write)
    except (StoreNotFoundError, StoreBusyError, LedgerError, OSError) as exc:
        fail(f"cannot open {store}: {exc}")
    try:
        yield st
    finally:
        st.close()


def _say(text: str) -> None:
    make_console().print(text, markup=False, highlight=False)


@cases_app.command("propose")
def propose(
    store: StoreOpt,
    campaign: Annotated[str, typer.Option("--campaign", help="Campaign of the source.")],
    target: Annotated[str, typer.Option("--target", help="Target of the source episode.")],
    task: Annotated[str, typer.Option("--task", help="Task of the source episode.")],
    seed: Annotated[int, typer.Option("--seed", callback=seed_value,
                                                help="Seed of the source episode.")],
    condition: Annotated[str, typer.Option("--condition", help="Its condition.")] = "clean",
    level: Annotated[str, typer.Option("--level", help="Its scaffold level.")] = "L2",
    repeat: Annotated[int, typer.Option("--repeat", callback=seed_value,
                                                    help="Its repeat.")] = 0,
) -> None:
    """Propose a case from a recorded failing episode (its source record is kept)."""
    with _open(store) as st:
        case = C.propose(st, EpisodeKey(campaign, target, task, seed, condition, level, repeat))
    _say(proposed_line(case, f"{campaign}/{target}/{task}/seed={seed}"))


@cases_app.command("calibrate")
def calibrate(
    case_id: CaseArg, store: StoreOpt,
    positive: Annotated[str, typer.Option(
        "--positive", help="A compliant scripted agent that must pass the case, e.g. "
                           "scripted:within.")],
) -> None:
    """Run the positive, defect and missingness controls; calibrated when all three hold."""
    with _open(store) as st:
        result = C.calibrate(st, case_id, positive)
    for line in control_lines(result.controls):
        _say(line)
    if not result.passed:
        _say(f"{case_id}: calibration failed ({', '.join(result.failed())}); the case stays "
             "proposed")
        raise typer.Exit(1)
    _say(f"{case_id}: calibrated")


@cases_app.command("admit")
def admit(
    case_id: CaseArg, store: StoreOpt,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Who approved it.")],
    revision: Annotated[str, typer.Option("--revision", help="The approved revision id.")],
) -> None:
    """Admit a calibrated case as an approved revision."""
    with _open(store) as st:
        C.admit(st, case_id, reviewer, revision)
    _say(f"{case_id}: admitted (revision {revision}, reviewer {reviewer})")


@cases_app.command("use")
def use(
    case_id: CaseArg, store: StoreOpt,
    agent: Annotated[str, typer.Option("--agent", help="A model-free agent to run.")],
    level: Annotated[str | None, typer.Option("--level", help="Scaffold level (default: "
                                                               "the case's).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run an agent on an admitted case; record the episode and a consumption receipt."""
    with _open(store) as st:
        receipt = C.use(st, case_id, agent, level)
    if as_json:
        print(json.dumps(receipt, sort_keys=True))
        return
    _say(f"{case_id}: use {receipt['use']} by {agent} at {receipt['level']}: contract "
         f"{receipt['status']} (episode {receipt['episode_digest'][:12]})")


@cases_app.command("withdraw")
def withdraw(
    case_id: CaseArg, store: StoreOpt,
    reason: Annotated[str, typer.Option("--reason", help="Why it is withdrawn.")],
) -> None:
    """Withdraw a case: new use is blocked; earlier evidence and receipts are kept."""
    with _open(store) as st:
        case = C.withdraw(st, case_id, reason)
    _say(f"{case_id}: withdrawn ({len(case.uses)} earlier use(s) kept)")


@cases_app.command("list")
def list_cmd(store: StoreOpt, as_json: JsonOpt = False) -> None:
    """List the store's cases with their state and number of uses."""
    with _open(store, write=False) as st:
        cases = list_cases(st)
    if as_json:
        print(json.dumps([c.to_json() for c in cases], sort_keys=True))
        return
    if not cases:
        _say(f"{store}: no cases")
        return
    for case in cases:
        _say(case_line(case))
