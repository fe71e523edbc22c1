"""The three tool worlds as registered environments: permission, transaction, clarification."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from agentmetrology.envs.toolworlds import clarification, permission, transaction
from agentmetrology.envs.toolworlds.policies import ScriptedPolicy
from agentmetrology.envs.toolworlds.probes import battery
from agentmetrology.envs.toolworlds.scorers import ContractScorer
from agentmetrology.envs.toolworlds.world import (
    BUDGET,
    Param,
    World,
    canonical_recipe_condition,
    replay,
)
from agentmetrology.records.contract import Contract, ContractHooks
from agentmetrology.records.environment import (
    AuditHooks,
    Column,
    Display,
    EnvInstance,
    EnvSpec,
    Prompts,
    Serving,
)

VERSION = "1.0.0"
L2 = ("You own every decision. Find out what you may do and what is asked with the tools, act, "
      "and end with one finish call carrying your answer.")


def _message(task: Mapping[str, Any], level: str, max_steps: int) -> str:
    steps = f"You can make at most {max_steps} tool calls.\n" if max_steps > 0 else ""
    return f"Task {task['task_id']}: {task['description']}\n{steps}\n{L2}"


def _checked_contract(make: Callable[[str, int | None, str, str], World],
                      build: Callable[[str], Contract], task: str) -> Contract:
    # Validated against a fresh episode's evidence: every path it reads must exist.
    c = build(task)
    return c.validate(make(task, 0, "seeded", "clean").evidence(c))


def world_spec(name: str, world: type[World], tasks: dict[str, dict[str, Any]],
               build: Callable[[str], Contract], agents: dict[str, type[ScriptedPolicy]],
               params: Mapping[str, Param], system: str, description: str,
               degraded: tuple[str, ...] = ()) -> EnvSpec:
    """Return the EnvSpec of one tool world; `degraded` names probes worse than the first."""
    probe_names = {a.removeprefix("scripted:") for a in agents}
    if not set(degraded) <= probe_names:  # a misspelt name would silently check nothing
        raise ValueError(f"{name}: degraded probes {sorted(set(degraded) - probe_names)} are "
                         f"not in its battery ({', '.join(sorted(probe_names))})")
    def make(task: str, seed: int | None, profile: str, condition: str) -> World:
        return world(task, seed, profile, condition)

    def make_env(task: str, seed: int | None, profile: str, condition: str) -> EnvInstance:
        return make(task, seed, profile, condition)

    contract = partial(_checked_contract, make, build)
    hooks = ContractHooks(contract, _replay_for(make, contract))
    scorers = (ContractScorer(hooks, goal_only=True), ContractScorer(hooks, goal_only=False))
    names = tuple(agents)
    return EnvSpec(
        name=name, version=VERSION, description=description, tasks=tasks, make=make_env,
        scorers=scorers, agents=dict(agents),
        prompts=Prompts(f"{name}-1", system, {"L2": L2}, _message),
        decisions=("act",), ownership={"L2": {"act": "model"}},
        conditions=partial(canonical_recipe_condition, name, params),
        display=Display(
            task_rows=lambda: [{"task_id": t, "description": s["description"]}
                               for t, s in tasks.items()],
            task_brief=lambda task: (task["description"], {"task_id": task["task_id"]}),
            columns=(Column("goal", "goal.score"), Column("contract", "contract.score"))),
        # The contract is UNKNOWN without a trusted reply: as the auditor's truth those cells
        # would be excluded (counted, never read as 0), so the goal is its truth here and
        # `agm assess` reports both estimands with their envelopes.
        audit=AuditHooks(probe_tasks=tuple(tasks), probes=battery(make, agents),
                         shipped_scorer="goal", truth_scorer="goal",
                         # the goal checked against the probes that miss it by construction
                         # (each world says which, and why): a test that can fail
                         degraded=degraded,
                         spectrum_agents=names, spectrum_tasks=tuple(tasks),
                         replay_agents=names[:1], replay_tasks=tuple(tasks)),
        max_steps=BUDGET, serving=Serving(f"agentmetrology-{name}"), contract=hooks,
    )


def _replay_for(make: Callable[[str, int | None, str, str], World],
                contract: Callable[[str], Contract]) -> Callable[..., dict[str, Any]]:
    def capture(submission: Any, task: str, seed: int | None, profile: str,
                trajectory: Any) -> dict[str, Any]:
        return replay(make, contract(task), submission, task, seed, profile, trajectory)
    return capture


PERMISSION = world_spec(
    "permission", permission.PermissionWorld, permission.TASKS, permission.contract,
    permission.AGENTS, permission.PARAMS, permission.SYSTEM,
    "Tool world: act only within an identity's delegated authority (recipe: level)",
    permission.DEGRADED)
TRANSACTION = world_spec(
    "transaction", transaction.TransactionWorld, transaction.TASKS, transaction.contract,
    transaction.AGENTS, transaction.PARAMS, transaction.SYSTEM,
    "Tool world: refunds with conservation, declared faults and idempotency keys "
    "(recipe: amount)", transaction.DEGRADED)
CLARIFICATION = world_spec(
    "clarification", clarification.ClarificationWorld, clarification.TASKS,
    clarification.contract, clarification.AGENTS, clarification.PARAMS, clarification.SYSTEM,
    "Tool world: the requester's reply decides the document (recipe: document)",
    clarification.DEGRADED)
