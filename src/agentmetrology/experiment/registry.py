"""Pre-registration: a plan is frozen into the evidence store before its first episode.

An experiment's registrations are campaigns named `exp.NAME` (the first) and `exp.NAME.rK`
(K >= 2, each later `registration = "new"`). The campaign's stored config holds the frozen plan
and its digest under `experiment`, and the plan's canonical JSON is the campaign's source blob;
both are written in the same registration that seals the campaign's administrations, before
anything runs. A plan that differs from its latest registration is refused, naming the changed
fields, unless it declares `registration = "new"`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.experiment.plan import ExperimentPlan, changed_fields, plan_digest
from agentmetrology.records.errors import UserError
from agentmetrology.run.campaign import CampaignConfig, Limits, TargetSpec
from agentmetrology.run.campaign.execute import ProgressFn, RunResult, run_campaign
from agentmetrology.run.campaign.plan import plan_campaign
from agentmetrology.store import EvidenceStore


class PlanChangedError(UserError):
    """Raised when a plan differs from its frozen registration and is not declared new."""


@dataclass(frozen=True, slots=True)
class Registration:
    """One frozen registration of an experiment: its campaign, index and frozen plan."""

    campaign: str
    index: int
    plan: dict[str, Any]
    digest: str


def campaign_name(name: str, index: int) -> str:
    """Return the campaign name of registration `index` (1-based) of experiment `name`."""
    return f"exp.{name}" if index == 1 else f"exp.{name}.r{index}"


def campaign_config(plan: ExperimentPlan, index: int) -> CampaignConfig:
    """Return the campaign that runs a plan: its arms x task x seeds 0..n-1 x levels x targets."""
    targets = tuple(TargetSpec(a, "scripted" if a.startswith("scripted:") else "rule", a)
                    for a in plan.targets)
    # Calibration rules run on the identical protocol (arms, seeds), at the levels they act at.
    rules = tuple(TargetSpec(a, "rule", a, levels=None if lv == plan.levels else lv)
                  for a, lv in plan.calibration.items())
    return CampaignConfig(
        name=campaign_name(plan.name, index), targets=targets + rules, tasks=(plan.task,),
        seeds=plan.seeds, levels=plan.levels, conditions=plan.arms, repeats=plan.repeats,
        concurrency=4,
        profile="seeded", limits=Limits(), environment=plan.environment,
        file=plan.file, source=_plan_text(plan.doc()))


def _plan_text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=True) + "\n"


def registrations(store: EvidenceStore, name: str) -> list[Registration]:
    """Return every registration of experiment `name` in the store, oldest first."""
    out = []
    pattern = re.compile(rf"exp\.{re.escape(name)}(?:\.r(\d+))?")
    for c in store.campaigns():
        m = pattern.fullmatch(c)
        if m is None:
            continue
        row = store.ledger.campaign(c)
        config = store.get_json(row["config_digest"]) if row else None
        frozen = (config or {}).get("experiment") if isinstance(config, dict) else None
        if not isinstance(frozen, dict):
            continue  # a campaign of that name that no experiment registered
        if not isinstance(frozen.get("plan"), dict) or \
                plan_digest(frozen["plan"]) != frozen.get("digest"):
            # A report would evaluate a plan other than the digest it names (hand-edited store).
            raise UserError(f"registration {c} of experiment {name!r}: its frozen plan no "
                            "longer hashes to the digest it was registered with (the store was "
                            "edited); `agm evidence verify` names what changed")
        out.append(Registration(c, int(m.group(1) or 1), frozen["plan"], frozen["digest"]))
    return sorted(out, key=lambda r: r.index)


def find(store: EvidenceStore, plan: ExperimentPlan) -> Registration | None:
    """Return the registration frozen with exactly this plan (the latest such), or None."""
    same = [r for r in registrations(store, plan.name) if r.digest == plan.digest]
    return same[-1] if same else None


def refusal(latest: Registration, plan: ExperimentPlan) -> str:
    """Return the one line that refuses a changed plan, naming the changed fields."""
    fields = changed_fields(latest.plan, plan.doc())
    return (f"experiment {plan.name!r} is registered ({latest.campaign}, plan "
            f"{latest.digest[:12]}) and this plan changes {', '.join(fields)}; restore it, or "
            "declare registration = \"new\" to register a new experiment")


def registered(store: EvidenceStore, plan: ExperimentPlan, where: Path) -> Registration:
    """Return the registration of `plan` in the store at `where`; a UserError when the plan
    changed since it was registered (naming what changed) or was never registered."""
    reg = find(store, plan)
    if reg is not None:
        return reg
    existing = registrations(store, plan.name)
    if existing and plan.new_registration:  # declared new, so "declare it new" would not help
        raise UserError(f"experiment {plan.name!r}: this plan (registration = \"new\") is not "
                        f"registered in {where} yet; `agm experiment run` registers it")
    if existing:
        raise UserError(refusal(existing[-1], plan))
    raise UserError(f"experiment {plan.name!r} is not registered in {where}; run "
                    "`agm experiment run` first")


def register(store: EvidenceStore, plan: ExperimentPlan) -> tuple[Registration, bool]:
    """Freeze the plan before any episode (or find its registration); return it and whether new.

    A plan equal to a frozen registration resumes it (whether or not it declares "new").
    Raises PlanChangedError when the plan differs from the latest registration and is not
    declared new.
    """
    existing = registrations(store, plan.name)
    same = [r for r in existing if r.digest == plan.digest]
    if same:  # the plan of a frozen registration (the latest such): resume it
        return same[-1], False
    if existing and not plan.new_registration:
        raise PlanChangedError(refusal(existing[-1], plan))
    index = existing[-1].index + 1 if existing else 1
    config = campaign_config(plan, index)
    if config.name in store.campaigns():  # its name, not its plan, is what the user can change
        raise UserError(f"campaign {config.name!r} in this store was not registered by an "
                        f"experiment (an `agm campaign` of that name); rename experiment "
                        f"{plan.name!r} or use another store")
    cplan = plan_campaign(config)
    doc = plan.doc()
    stored = {**config.to_json(), "experiment": {"plan": doc, "digest": plan_digest(doc)}}
    with store.lock():
        store.register_campaign(config.name, cplan.digest, stored, cplan.bindings,
                                config.source)
    return Registration(config.name, index, doc, plan.digest), True


def run_experiment(store: EvidenceStore, plan: ExperimentPlan, *, backend: str = "inline",
                   workers: int | None = None,
                   progress: ProgressFn | None = None) -> tuple[Registration, bool, RunResult]:
    """Register (or resume) the plan, then run every episode not yet recorded."""
    reg, new = register(store, plan)
    config = campaign_config(plan, reg.index)
    result = run_campaign(config, store, backend=backend, workers=workers, progress=progress)
    return reg, new, result
