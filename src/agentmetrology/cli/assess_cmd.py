"""`agm assess ENV`: goal-only and full-contract estimands, envelopes, original vs masked views.

Model-free executions are run (`--agent`), or a store's recorded episodes are assessed as they
are (`--store DIR [--campaign NAME]`, never re-run; the store's qualification is checked and an
unqualified store gets the evidence banner).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agentmetrology.archive.report_qualify import store_evidence
from agentmetrology.assess.executions import assess_runs
from agentmetrology.assess.options import check_recorded, executions, task_list
from agentmetrology.assess.recorded import assess_store
from agentmetrology.assess.sweep import sweep
from agentmetrology.cli.env_cmd import env_arg
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.cli.evidence_banner import print_banner
from agentmetrology.records.environment import EnvSpec
from agentmetrology.report.terminal.assess_text import render_assessment, render_sweep
from agentmetrology.store import EvidenceStore, LedgerError, StoreNotFoundError

# Options declared once here, so the command's signature stays a list of names.
SWEEP = typer.Option(None, "--sweep", help="Run the masking sweep with this seed: random, "
                     "failure-linked and success-linked masking of 0, 9.9, 30.2 and 50 % of the "
                     "trajectories (needs --agent and --mask).")
CONDITION = typer.Option(None, "--condition", help="clean (the default), or a recipe such as "
                         "recipe:level=editor (not with --store).")


def assess_cmd(
    env: str = typer.Argument(..., help="Environment with task contracts, e.g. permission."),
    task: str = typer.Option("all", "--task", help="Task id, comma-separated ids, or 'all'."),
    seeds: str = typer.Option(None, "--seeds", help="Episode seeds: 0-9, 3 or 1,4,7 "
                                                   "(default 0-9; not with --store)."),
    agent: str = typer.Option(None, "--agent", help="A model-free agent, e.g. scripted:within "
                                                    "(not with --store)."),
    level: str = typer.Option(None, "--level", help="Scaffold level (default L2; not with "
                                                    "--store)."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first; "
                                                        "not with --store)."),
    condition: str = CONDITION,
    mask: list[str] = typer.Option([], "--mask",
                                   help="Evidence path to withhold from the evaluator's copy "
                                        "(repeatable), e.g. final.records."),
    json_out: bool = typer.Option(False, "--json", help="Print the assessment as JSON."),
    sweep_seed: int = SWEEP,
    store: Path = typer.Option(None, "--store", help="Assess the recorded episodes of this "
                                                     "evidence store instead (never re-run)."),
    campaign: str = typer.Option(None, "--campaign", help="With --store: only this campaign."),
) -> None:
    """Check executions against their task contracts: goal-only and full-contract estimands."""
    spec = env_arg(env)
    with user_errors():
        tasks = task_list(spec, task)
        if store is not None:
            check_recorded(agent, sweep_seed, {"--seeds": seeds, "--level": level,
                                               "--profile": profile, "--condition": condition})
            _recorded(spec, store, campaign, None if task == "all" else tasks, mask, json_out)
            return
        run = executions(spec, agent, seeds, level, profile, condition, campaign=campaign,
                         sweep_seed=sweep_seed, masks=mask)
    doc = assess_runs(spec, tasks, run.seeds, run.agent, run.level, run.profile, run.condition,
                      mask)
    if sweep_seed is not None:
        doc = {**{k: v for k, v in doc.items() if k not in ("rows", "views")},
               "sweep_seed": sweep_seed, "sweep": sweep(doc["rows"], sweep_seed)}
        print(json.dumps(doc) if json_out else render_sweep(doc))
        return
    print(json.dumps(doc) if json_out else render_assessment(doc))


def _recorded(spec: EnvSpec, store: Path, campaign: str | None, tasks: list[str] | None,
              masks: list[str], json_out: bool) -> None:
    """Assess a store's recorded episodes; print them group by group under the banner."""
    try:
        st = EvidenceStore.open_readonly(store)
    except (StoreNotFoundError, LedgerError, OSError) as exc:
        fail(f"cannot open {store}: {exc}")
    try:  # UserError (no episodes, a bad contract or mask path): the one handler prints it
        doc = assess_store(st, spec, campaign, tasks, masks)
    finally:
        st.close()
    doc["store"] = store.name
    doc["evidence"] = store_evidence(store)
    print_banner(doc["evidence"])
    if json_out:
        print(json.dumps(doc))
        return
    print("\n\n".join(render_assessment(g) for g in doc["groups"]))
