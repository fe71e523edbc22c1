"""ComtradeBench as a registered environment: everything the rest of the system reads about it."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from agentmetrology.envs.comtrade.actions import episode_actions
from agentmetrology.envs.comtrade.adversary import canonical_condition
from agentmetrology.envs.comtrade.contract import HOOKS as CONTRACT
from agentmetrology.envs.comtrade.demanded import demanded_call
from agentmetrology.envs.comtrade.environment import ComtradeEnv
from agentmetrology.envs.comtrade.generator import generate_rows, generator_seed
from agentmetrology.envs.comtrade.harness import MAX_STEPS, run_l0, run_l1
from agentmetrology.envs.comtrade.policies.registry import agent_names, make_agent
from agentmetrology.envs.comtrade.probes import battery
from agentmetrology.envs.comtrade.prompts import LEVEL_INSTRUCTIONS, SYSTEM_PROMPT, task_message
from agentmetrology.envs.comtrade.prompts import PROMPT_VERSION as PROMPTS
from agentmetrology.envs.comtrade.scorers import SCORERS
from agentmetrology.envs.comtrade.scoring.streamed import StreamedSubmission, read_streamed_dir
from agentmetrology.envs.comtrade.scoring.submission import (
    FILE_NAMES,
)
from agentmetrology.envs.comtrade.tasks import PROFILES, TASKS, ComtradeTask, profile_of
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

# 1.2.0: episodes record what happened where 1.1.0 recorded otherwise: an adversary intent the
# response never met is `not_realised`; an L1 run log with a skipped page ends complete=false;
# L0 passes the agent's fetch_page call as sent. A replay of a 1.1.0 episode touched by these
# differs from its record there (the audit's replay check says where).
VERSION = "1.2.0"
DECISIONS: tuple[str, ...] = (
    "retry", "pagination", "dedup", "totals_drop", "reemission", "submission",
)
OWNERSHIP: dict[str, dict[str, Owner]] = {
    # Production: the harness owns all six; the model only picks tool order and page numbers.
    "L0": dict.fromkeys(DECISIONS, "harness"),
    # Half scaffold: the model decides RETRY or SKIP on each fault; the harness does the rest.
    "L1": {**dict.fromkeys(DECISIONS, "harness"), "retry": "model"},
    # Slim: the model owns everything, including re-emitting every cleaned row.
    "L2": dict.fromkeys(DECISIONS, "model"),
}

# The audit's agents and tasks. Scripted profiles that share one traversal differ only in
# decisions the harness owns at L0 (JOINT); the spectrum adds the one that walks differently.
JOINT = ("scripted:careful", "scripted:no_dedup", "scripted:keeps_totals",
         "scripted:single_pass", "scripted:empty_submit", "scripted:fabricator",
         "scripted:never_submits")
SPECTRUM = ("scripted:careful", "scripted:off_by_one", *JOINT[1:])
SPECTRUM_TASKS = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500",
                  "T6_page_drift", "T8_mixed_faults")
L1_RULES = ("l1:always-retry", "l1:always-skip", "l1:quota-aware")


def _probes(task: str, seed: int | None, profile: str) -> dict[str, Any]:
    return battery(task, seed, profile_of(profile))


AUDIT = AuditHooks(
    # The ten tasks with a fault family of their own (T9_clean_ab is the stress substrate).
    probe_tasks=tuple(t for t in TASKS if t != "T9_clean_ab"),
    probes=_probes,  # probes in PROBE_NAMES order, "correct" first
    shipped_scorer="shape_judge", truth_scorer="ground_truth_f1", truth_component="f1_exact",
    truth_label="ground_truth_f1_exact",
    # every probe but contradictory_metadata (the correct rows under a lying self-report)
    degraded=("empty", "fabricated", "duplicate_laden", "totals_laden", "truncated",
              "guessed_ids"),
    shipped_scale=100.0, shipped_resolution=0.1,  # the judge rounds to 0.1 on 0-100
    claimed=DECISIONS, actions=episode_actions,
    ownership_tasks=("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500",
                     "T6_page_drift", "T7_totals_trap", "T8_mixed_faults"),
    ownership_agents={"L1": ("rule", *L1_RULES, *SPECTRUM), "L2": ("rule", *SPECTRUM)},
    joint_agents=JOINT, spectrum_agents=SPECTRUM, spectrum_tasks=SPECTRUM_TASKS,
    calibration_agents=L1_RULES, calibration_level="L1",
    calibration_tasks=("T4_rate_limit_429", "T5_server_error_500", "T8_mixed_faults",
                       "T9_adaptive_adversary"),
    replay_agents=("rule", "scripted:careful", "scripted:off_by_one"),
    replay_tasks=(*SPECTRUM_TASKS, "T9_adaptive_adversary"),
    demanded_call=demanded_call, emission_decision="reemission",
)


def _make(task: str, seed: int | None, profile: str, condition: str) -> EnvInstance:
    return ComtradeEnv(task, seed, profile_of(profile), condition)


def _conditions(condition: str) -> str:
    return canonical_condition(condition)


def _task_rows() -> list[dict[str, Any]]:
    return [{"task_id": t.task_id,
             "query": "/".join(str(v) for v in t.query.as_dict().values()),
             "page_size": t.page_size, "budget": t.budget, "rows": t.rows,
             "pages": t.total_pages, "family": t.family, "description": t.description}
            for t in TASKS.values()]


def _brief(task: ComtradeTask) -> tuple[str, dict[str, Any]]:
    return task.description, task.query.as_dict()


def _truth(task: str, seed: int | None, profile: str) -> list[dict[str, Any]]:
    return generate_rows(task, seed, profile_of(profile))


def _truth_note(task: str, seed: int | None, profile: str) -> str:
    return f"# generator seed {generator_seed(task, seed, profile_of(profile))}"


def _read(directory: Path) -> StreamedSubmission:
    # `agm score` reads a user's directory streaming: data.jsonl of any size in bounded memory,
    # the same assessments as the in-memory reader (tests/envs/comtrade/scoring/test_streamed.py).
    sub = read_streamed_dir(directory)
    if not any((directory / name).exists() for name in FILE_NAMES.values()):
        raise ValueError(f"{directory} holds none of {', '.join(FILE_NAMES.values())}; "
                         "point at a submission directory")
    return sub


def _extras(ep: Episode) -> dict[str, Any]:
    sub = ep.submission
    rows = 0
    if sub is not None and isinstance(sub.get("data_jsonl"), str):
        rows = sum(1 for line in sub["data_jsonl"].splitlines() if line.strip())
    return {"rows_submitted": rows}


SPEC = EnvSpec(
    name="comtrade", version=VERSION,
    description="ComtradeBench: paginated trade-data extraction with injected faults and "
                "exact ground truth",
    tasks=TASKS, make=_make, scorers=SCORERS,
    score_ranges={"shape_judge": (0.0, 100.0)},
    agents={name: partial(make_agent, name) for name in agent_names()},
    decisions=DECISIONS, ownership=OWNERSHIP, harness={"L0": run_l0, "L1": run_l1},
    profiles=PROFILES, conditions=_conditions, max_steps=MAX_STEPS,
    prompts=Prompts(PROMPTS, SYSTEM_PROMPT, LEVEL_INSTRUCTIONS, task_message),
    display=Display(
        task_rows=_task_rows, task_brief=_brief, row_extras=_extras,
        columns=(Column("GT F1", "ground_truth.f1"), Column("recall", "ground_truth.recall"),
                 Column("precision", "ground_truth.precision"),
                 Column("judge", "judge.total", 1))),
    offline=Offline(truth=_truth, truth_note=_truth_note, read_submission=_read),
    audit=AUDIT, contract=CONTRACT, serving=Serving("agentmetrology-comtrade"),
)
