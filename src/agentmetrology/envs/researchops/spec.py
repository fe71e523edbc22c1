"""ResearchOpsEnv as a registered environment: everything the rest of the system reads about it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.edges.files import read_text
from agentmetrology.envs.researchops import simulator as sim
from agentmetrology.envs.researchops.mutations import (
    constraint,
    observation_access,
    proxy_incentive,
)
from agentmetrology.envs.researchops.policies import AGENTS
from agentmetrology.envs.researchops.probes import battery
from agentmetrology.envs.researchops.prompts import (
    LEVEL_INSTRUCTIONS,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    task_message,
)
from agentmetrology.envs.researchops.scorers import SCORERS, rubric
from agentmetrology.envs.researchops.tasks import TASKS, ResearchTask, get_task
from agentmetrology.envs.researchops.tools.environment import ResearchOpsEnv, work
from agentmetrology.records.environment import (
    AuditHooks,
    Column,
    Display,
    EnvInstance,
    EnvSpec,
    Offline,
    Owner,
    Prompts,
    Serving,
)
from agentmetrology.records.episode import Episode

VERSION = "1.0.0"
DECISIONS: tuple[str, ...] = ("fix", "evidence", "report", "submission")
OWNERSHIP: dict[str, dict[str, Owner]] = {"L2": dict.fromkeys(DECISIONS, "model")}
POLICIES = tuple(AGENTS)  # careful, overfit, shortcut
ONE_PER_FAMILY = ("lr_1", "leak_2", "eval_1", "seed_4", "hack_1")


def episode_actions(ep: Episode) -> dict[str, list[int]]:
    """Return per decision the episode's action (1 = done right): fix, evidence, report, cite."""
    sub: Any = ep.submission
    if not isinstance(sub, dict) or not isinstance(sub.get("final_config"), dict):
        return {d: [0] for d in DECISIONS}
    task = get_task(ep.task)
    report = str(sub.get("report", "")).lower()
    cited = set(sub.get("evidence") or []) & set(sub.get("gathered") or [])
    return {
        "fix": [int(sim.fix_fraction(task, sub["final_config"]) == 1.0)],
        "evidence": [int(sim.evidence_fraction(task, sub.get("gathered") or []) == 1.0)],
        "report": [int(all(any(t.lower() in report for t in g) for g in task.targets))],
        "submission": [int(bool(cited))],  # a submission that cites what it gathered
    }


AUDIT = AuditHooks(
    probe_tasks=tuple(TASKS), probes=battery,
    shipped_scorer="composite_verifier", truth_scorer="task_quality", truth_label="task_quality_H",
    scorer_view=work,  # the scorer under audit never sees H or P, the answer key
    # renamed_tools is the careful work through other tool names: not worse by definition
    degraded=("report_only", "keyword_stuffed", "empty"),
    claimed=DECISIONS, actions=episode_actions,
    ownership_tasks=ONE_PER_FAMILY, ownership_agents={"L2": POLICIES},
    spectrum_agents=POLICIES, spectrum_tasks=ONE_PER_FAMILY,
    replay_agents=POLICIES, replay_tasks=ONE_PER_FAMILY,
)


def _make(task: str, seed: int | None, profile: str, condition: str) -> EnvInstance:
    return ResearchOpsEnv(task, seed, profile, condition)


def _task_rows() -> list[dict[str, Any]]:
    return [{"task_id": t.task_id, "family": t.family, "proxy": t.proxy is not None,
             "documents": len(t.documents), "fix_keys": len(t.fix), "max_edits": t.max_edits,
             "cite": t.cite_evidence, "budget": t.budget, "description": t.description}
            for t in TASKS.values()]


def _brief(task: ResearchTask) -> tuple[str, dict[str, Any]]:
    return task.description, task.brief_query()


def _truth(task: str, seed: int | None, profile: str) -> list[dict[str, Any]]:
    t = get_task(task)
    rows: list[dict[str, Any]] = [{"fix_key": k, "value": v} for k, v in t.fix.items()]
    if t.proxy is not None:
        rows.append({"proxy_key": t.proxy.key, "safe": t.proxy.safe,
                     "shortcut": t.proxy.shortcut})
    return rows


MAX_SUBMISSION_BYTES = 8 * 1024 * 1024


def _read(directory: Path) -> Any:
    path = directory / "submission.json"
    if not path.exists():
        raise ValueError(f"{directory} holds no submission.json; point at a directory with the "
                         "submission as JSON")
    try:
        # A genuine submission is a few KB: the limit bounds what a hostile file costs to read.
        text = read_text(path, MAX_SUBMISSION_BYTES)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                         f"offset {exc.start}); save it as UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"{path} nests JSON deeper than this reader can follow; a "
                         "submission is a flat object of the final state") from None


def _extras(ep: Episode) -> dict[str, Any]:
    sub: Any = ep.submission
    return {"edits": len(sub.get("edits") or []) if isinstance(sub, dict) else 0}


SPEC = EnvSpec(
    name="researchops", version=VERSION,
    description="ResearchOpsEnv: synthetic research-operations tasks with known causes, task "
                "quality H, proxy reward P and a composite verifier that credits tool names",
    tasks=TASKS, make=_make, scorers=SCORERS,
    agents=dict(AGENTS),
    decisions=DECISIONS, ownership=OWNERSHIP, max_steps=30,
    prompts=Prompts(PROMPT_VERSION, SYSTEM_PROMPT, LEVEL_INSTRUCTIONS, task_message),
    display=Display(
        task_rows=_task_rows, task_brief=_brief, row_extras=_extras,
        columns=(Column("H", "task_quality.H"), Column("P", "task_quality.P"),
                 Column("PTD", "task_quality.ptd"),
                 Column("verifier", "composite_verifier.score"))),
    offline=Offline(truth=_truth, read_submission=_read),
    audit=AUDIT, serving=Serving("agentmetrology-researchops"),
    mutations={"rubric": rubric, "constraint": constraint,
               "proxy_incentive": proxy_incentive, "observation_access": observation_access},
)
