"""The text of `agm campaign run` (what the run did, then the status) and of `agm campaign
status` (each campaign's status and score cells, the graders' requests, the check's scope)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from agentmetrology.report.terminal.campaign_tables import cell_table
from agentmetrology.report.terminal.campaign_text import (
    cost_text,
    print_status,
    say,
    unknown_cost_notice,
    unmeasured_notice,
)
from agentmetrology.store import CampaignStatus
from agentmetrology.store.status_memo import StatusView
from agentmetrology.store.verify import MOVED
from agentmetrology.store.verify_checkpoint import describe


def print_run_summary(console: Console, err: Console, config: Any, result: Any, backend: str,
                      retry: bool) -> None:
    """Print what a campaign run did and the campaign's status; notices go to `err`."""
    s = result.status
    console.print(f"campaign {s.campaign}: {result.recorded} recorded this run "
                  f"({result.launched} launched, {result.failed_attempts} failed attempts, "
                  f"{result.recovered} interrupted attempts recovered) in "
                  f"{result.elapsed_s:.2f} s with the {backend} backend"
                  + (f"; {result.superseded} measurement failures re-opened"
                     if retry else ""), markup=False, emoji=False)
    print_status(console, s)
    for name, c in s.targets.items():
        target = config.target(name)
        if c.cost_unknown and not target.model_free:
            say(err, unknown_cost_notice(name, c.cost_unknown, target.llm_target().prices,
                                         "add price = { input_per_m = ..., output_per_m = ... } "
                                         "to the target"), "yellow")
    if result.stop_reason:
        say(err, f"stopped launching: {result.stop_reason}", "")
    for name, reasons in result.unmeasured.items():
        say(err, unmeasured_notice(name, s.targets[name].done, reasons), "red")



def print_store_status(console: Console, err: Console, store: Path, view: StatusView,
                       graders: dict[str, dict[str, Any]], evidence: dict[str, Any]) -> None:
    """Print every campaign's status and score cells, the graders' requests and, when the
    check was incremental, what it covered; cells that could not be shown are said on `err`."""
    statuses: list[CampaignStatus] = view.statuses
    for name, why in view.cell_errors.items():
        say(err, f"{name}: scores per level and condition not shown: {why}", "red")
    if not statuses:
        console.print(f"{store}: no campaigns yet")
    for s in statuses:
        print_status(console, s)
        if s.campaign in view.cells:
            cell_table(console, view.cells[s.campaign])
    for name, g in graders.items():  # judges' requests: the store's, never a campaign's cost
        console.print(f"grader {name}: {g['requests']} requests ({g['failed']} failed), cost "
                      f"{cost_text(g['cost_known'], g['cost_unknown'])} (not in any "
                      "campaign's cost)", markup=False)
    for note in evidence.get("notes") or ():  # a rewrite or rollback since, in the text too
        if str(note).startswith(MOVED):
            say(err, f"evidence: {note}", "yellow")
    if evidence.get("incremental_since"):  # a full check is what status always did: unsaid
        console.print(f"evidence: {describe(evidence)}; --full-check re-checks everything",
                      markup=False, emoji=False)
