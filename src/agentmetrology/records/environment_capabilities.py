"""The optional capabilities of an environment: each a small record it supplies or leaves None.

The required core of an `EnvSpec` (`records.environment`) is what every environment must say.
Everything here is optional: a command that needs a capability the environment does not supply
refuses with a message naming it, and the auditor reports the stages it would feed as
`not probed`, never as a default or a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event


@dataclass(frozen=True, slots=True)
class Column:
    """A column of `agm run`'s table: header and a dotted path into the result row."""

    header: str
    path: str
    digits: int = 3


@dataclass(frozen=True, slots=True)
class Display:
    """What commands show about an environment: `agm tasks`, the agent's brief, `agm run`'s
    table. Any part left empty falls back to the bare task ids, an empty brief, the scorers'
    own columns and no extra row fields."""

    task_rows: Callable[[], list[dict[str, Any]]] | None = None  # `agm tasks` columns
    task_brief: Callable[[Any], tuple[str, dict[str, Any]]] | None = None  # description, query
    columns: tuple[Column, ...] = ()
    row_extras: Callable[[Episode], dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Offline:
    """Ground truth and submission files outside an episode: `agm truth` and `agm score DIR`.

    A command whose part is missing refuses, naming the environment.
    """

    truth: Callable[[str, int | None, str], Iterable[dict[str, Any]]] | None = None
    truth_note: Callable[[str, int | None, str], str] | None = None  # printed on stderr
    read_submission: Callable[[Path], Any] | None = None  # a directory -> a submission


@dataclass(frozen=True, slots=True)
class Serving:
    """How the environment is served to others: the MCP server's name."""

    name: str


# Environment-specific mutations: "rubric" maps the scorers to mutated scorers; "constraint",
# "proxy_incentive", "observation_access" map an instance to one with the changed setting. A
# mutation without its hook is refused for this environment.
MutationHooks = Mapping[str, Callable[[Any], Any]]


@dataclass(frozen=True, slots=True)
class Prompts:
    """What an LLM agent is told: a system prompt and per-level instructions."""

    version: str
    system: str
    instructions: Mapping[str, str]
    # (task spec, level, max_steps) -> text; max_steps 0 means no limit is enforced (MCP), so
    # the message must not state one.
    task_message: Callable[[Any, str, int], str]


@dataclass(frozen=True, slots=True)
class Forged:
    """A forged episode for the auditor's probes: a submission with the trajectory it claims.

    Probes of scorers that read the trajectory (tool coverage, evidence gathering) forge both.
    """

    submission: Any
    trajectory: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class DemandedCall:
    """The one call that writes a task's minimal correct answer, as the model must emit it.

    `text` is the call's whole argument text; `rows` are the parts of it that grow with the
    answer (one per answer row, as they appear inside `text`, escapes included).
    """

    text: str
    rows: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AuditHooks:
    """What the auditor can probe: forged submissions, ownership stages, who acts where.

    Any hook left empty makes the stages that need it `not probed`, never `pass`.
    """

    probe_tasks: tuple[str, ...]
    # (task, seed, profile) -> {probe name: submission or Forged}; the first is the correct one.
    probes: Callable[[str, int | None, str], dict[str, Any]] | None
    shipped_scorer: str  # the scorer the benchmark ships (its leaderboard number)
    truth_scorer: str  # the valid scorer used as ground truth
    truth_component: str | None = None  # a component of the truth assessment used instead
    truth_label: str = ""  # how reports name the truth (default: the truth scorer's name)
    # (submission) -> what a scorer under audit is handed: the agent's work without what the
    # environment computed to grade it (a scorer that reads the grade back passes every check).
    # None: the submission holds no grade and is handed whole. The valid scorer sees it whole.
    scorer_view: Callable[[Any], Any] | None = None
    # Probes worse than `correct` by their own definition (nothing fetched, invented ids, ...):
    # the truth scorer is checked against this declaration, the one check of it that can fail.
    # Left empty, its criterion row could only hold by definition: not probed, no claim.
    degraded: tuple[str, ...] = ()
    shipped_scale: float = 1.0  # the shipped scorer's full scale (e.g. 100)
    shipped_resolution: float = 0.0  # ties within this are ties
    claimed: tuple[str, ...] = ()  # decisions the benchmark claims to test
    # (episode) -> {decision: [0/1 actions where the decision was live]}
    actions: Callable[[Episode], dict[str, list[int]]] | None = None
    ownership_tasks: tuple[str, ...] = ()
    ownership_agents: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # per level
    joint_agents: tuple[str, ...] = ()
    spectrum_agents: tuple[str, ...] = ()
    spectrum_tasks: tuple[str, ...] = ()
    calibration_agents: tuple[str, ...] = ()  # fixed half-scaffold rules
    calibration_level: str = "L1"
    calibration_tasks: tuple[str, ...] = ()
    replay_agents: tuple[str, ...] = ()
    replay_tasks: tuple[str, ...] = ()
    # (task, seed) -> the answer-writing call; its owner per level is `emission_decision`'s.
    demanded_call: Callable[[str, int | None], DemandedCall] | None = None
    emission_decision: str = ""  # the decision whose owner writes the answer rows
