"""A tau2 results file as an export: one row per simulation, in `agm export`'s columns.

So `agm stats` runs on real runs. The key fields map as: campaign = the file's run name, target
= the agent model, task = the task id, seed = the trial (tau2 files share one seed across
trials), condition `clean`, repeat 0. The reward is the scorer `tau2` (version: the runner's
git commit); it is null with status UNKNOWN when the simulation is ungraded (never a 0), and an
infrastructure failure is a measurement failure. The cost is the agent's cost, null when it
is unpriced or the simulation a malformed record (unknown, as the audit counts it; so are its
request and tool-call counts). Planned simulations absent from the file are not rows; they
are counted as unrecorded (planned (task, trial) pairs, as an evidence store's unrecorded
administrations are), and apart the tasks with no simulation at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers import load_archive
from agentmetrology.archive.model import Archive, ArchiveEpisode
from agentmetrology.archive.tau2_cost import cost_section
from agentmetrology.archive.tau2_terms import never_ran
from agentmetrology.run.export import BASE_FIELDS, DIGEST_FIELDS, SCORER_PARTS, Export
from agentmetrology.run.export_write import export_errors, render, write_output

SCORER = "tau2"
_STATUS = {"pass": "PASS", "fail": "FAIL"}


@dataclass(frozen=True, slots=True)
class Absent:
    """What a tau2 export leaves out: planned (task, trial) pairs with no simulation, of how
    many planned, and the tasks with no simulation at all, of how many tasks."""

    pairs: int
    planned: int
    tasks_never_run: int
    tasks: int


def _row(ep: ArchiveEpisode, domain: str, version: str | None,
         unpriced: bool) -> dict[str, Any]:
    graded = ep.outcome in ("pass", "fail")
    # A malformed record is kept ungraded, but what the importer read of it before it failed
    # (its agent_cost, its message counts) is no reading: the audit counts its cost missing
    # (tau2_cost), and a row giving it had `agm stats` sum it as a known cost; its events were
    # dropped, so a count of 0 tool calls would read as none made.
    malformed = ep.reason == "malformed_record"
    failure = (f"infra_error: {ep.termination_detail}" if ep.termination == "infra_error"
               else None)
    return {
        "campaign": ep.run, "target": ep.model, "task": ep.task, "seed": ep.trial,
        "condition": "clean", "level": None, "repeat": 0, "environment": f"tau2-{domain}",
        "profile": None, "termination": ep.termination or "not recorded",
        "termination_detail": ep.termination_detail, "measurement_failure": failure,
        "requests": None if malformed else (ep.meta.get("roles") or {}).get("assistant"),
        "tool_calls": None if malformed else len(ep.events),
        "model_attempts": None, "input_tokens": None, "output_tokens": None,
        "cost": None if unpriced or malformed else ep.meta.get("agent_cost"),
        f"{SCORER}.score": ep.stored_score if graded else None,
        f"{SCORER}.status": _STATUS.get(ep.outcome, "UNKNOWN"),
        f"{SCORER}.version": version, f"{SCORER}.digest": None,
        "episode_digest": None, "submission_digest": None, "binding_digest": None,
        "plan_digest": None,
    }


def tau2_export(archive: Archive) -> Export:
    """Return the export of a tau2 archive: a row per simulation present, the absent counted."""
    notes = archive.notes.get("tau2") or {}
    present = [e for e in archive.episodes if not e.meta.get("never_ran")]
    unpriced = bool(cost_section(present, str(notes.get("agent_model") or "")).get("unpriced"))
    columns = [*BASE_FIELDS, *(f"{SCORER}.{p}" for p in SCORER_PARTS), *DIGEST_FIELDS]
    rows = [_row(e, str(notes.get("domain") or "unknown"), notes.get("git_commit"), unpriced)
            for e in present]
    full = [{c: r.get(c) for c in columns} for r in rows]
    return Export(full, columns, len(archive.episodes) - len(present), [SCORER])


def export_tau2_file(path: Path, kind: str, out: Path | None, *,
                     force: bool) -> tuple[int, Absent]:
    """Write the export of the tau2 results file at `path` to `out` (stdout when None); return
    the rows written and what the file lacks of its plan."""
    with export_errors(path):
        archive = load_archive(path, "tau2")
        export = tau2_export(archive)
        write_output(render(export, kind), out, force=force)
    runs = never_ran(archive.episodes)
    absent = Absent(export.unrecorded, len(archive.episodes), runs["tasks_never_run"],
                    len({e.task for e in archive.episodes}))
    return len(export.rows), absent
