"""A second environment, outside the package: read seeded numbers, submit their sum.

It is the worked example of docs/environments.md and the acceptance test of the environment
interface: it imports only the protocols in `agentmetrology.records`, and every path (`agm run`,
campaigns on every backend, `agm serve mcp`, `agm audit`, `agm archive regrade`) uses it with
no edit anywhere else. Registered by an entry point in the group `agentmetrology.environments`.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import AuditHooks, Display, EnvSpec, Prompts, ScorerKind
from agentmetrology.records.policy import Brief, Level, Move, Question, ToolCall
from agentmetrology.records.tools import Observation, Tool, ToolSpec
from agentmetrology.runtime.rng import rng

TASKS = {"sum3": {"count": 3, "budget": 5}, "sum8": {"count": 8, "budget": 10}}
READ = ToolSpec("read_number", "Return the number at a 0-based index.",
                {"type": "object", "properties": {"index": {"type": "integer"}},
                 "required": ["index"], "additionalProperties": False})
SUBMIT = ToolSpec("submit_total", "Submit the sum of all numbers once; ends the episode.",
                  {"type": "object", "properties": {"total": {"type": "integer"}},
                   "required": ["total"], "additionalProperties": False})


def numbers(task: str, seed: int | None) -> list[int]:
    """Return the task's seeded numbers (the ground truth is their sum)."""
    return [int(x) for x in rng(seed or 0, "toy", task).integers(0, 100, TASKS[task]["count"])]


class ToySum:
    """One episode: a budget of reads, one submission."""

    def __init__(self, task: str, seed: int | None, profile: str, condition: str) -> None:
        self.task_id, self.seed, self.profile, self.condition = task, seed, profile, condition
        self.values = numbers(task, seed)
        self.requests_used = 0
        self.submitted: dict[str, Any] | None = None
        self.trace: list[Any] = []
        self.tools = {READ.name: Tool(READ, self.read), SUBMIT.name: Tool(SUBMIT, self.submit)}

    @property
    def budget_exhausted(self) -> bool:
        return self.requests_used >= TASKS[self.task_id]["budget"]

    def read(self, index: Any = None, **extra: Any) -> Observation:
        if self.budget_exhausted:
            return {"error": "request budget exhausted"}
        self.requests_used += 1
        if extra or isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.values):
            return {"error": f"index must be an integer in 0..{len(self.values) - 1}"}
        return {"index": index, "value": self.values[index], "count": len(self.values)}

    def submit(self, total: Any = None, **extra: Any) -> Observation:
        if self.submitted is not None:
            return {"error": "already submitted"}
        self.submitted = {"total": total}
        return {"status": "accepted"}


class ExactSum:
    """Outcome scorer: PASS with 1.0 iff the submitted total is the true sum."""

    name = "exact_sum"
    version = "1.0.0"
    kind: ScorerKind = "outcome"
    label = "exact"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None, trajectory: Any = None) -> Assessment:
        ev = evidence_digest or ""
        if submission is None:
            return Assessment(self.name, self.version, "FAIL", 0.0, {}, ("no submission",), ev)
        total = submission.get("total") if isinstance(submission, dict) else None
        if isinstance(total, bool) or not isinstance(total, int):
            return Assessment(self.name, self.version, "INVALID", None, {},
                              ("total is not an integer",), ev)
        ok = total == sum(numbers(task, seed))
        return Assessment(self.name, self.version, "PASS" if ok else "FAIL", float(ok),
                          {"total": total}, (), ev)

    def summary(self, a: Assessment) -> dict[str, Any]:
        return {"status": a.status, "score": a.score}


class Adder:
    """Scripted: read every number, submit the sum (`skip_last` forgets the last one)."""

    levels: tuple[Level, ...] = ("L2",)

    def __init__(self, skip_last: bool = False) -> None:
        self.name = "scripted:forgetful" if skip_last else "scripted:adder"
        self.skip_last = skip_last

    def reset(self, brief: Brief) -> None:
        self.i, self.total, self.count = 0, 0, None

    async def act(self, observation: Observation | None) -> Move:
        if observation and "value" in observation:
            self.total += observation["value"]
            self.count = observation["count"] - (1 if self.skip_last else 0)
        if self.count is not None and self.i >= self.count:
            return ToolCall("submit_total", {"total": self.total})
        self.i += 1
        return ToolCall("read_number", {"index": self.i - 1})

    async def decide(self, question: Question) -> str:
        return question.fallback

    def take_attempts(self) -> list[Any]:
        return []


def _probes(task: str, seed: int | None, profile: str) -> dict[str, Any]:
    truth = sum(numbers(task, seed))
    return {"correct": {"total": truth}, "off_by_one": {"total": truth + 1},
            "zero": {"total": 0}}


SPEC = EnvSpec(
    name="toy_sum", version="0.1.0", description="Toy: read seeded numbers, submit their sum",
    tasks=TASKS, make=ToySum, scorers=(ExactSum(),),
    agents={"scripted:adder": Adder, "scripted:forgetful": lambda: Adder(skip_last=True)},
    prompts=Prompts("toy-1", "You add numbers with tools.", {"L2": "Read all, submit the sum."},
                    lambda task, level, steps: f"Sum {task['count']} numbers."),
    ownership={"L2": {"arithmetic": "model"}}, decisions=("arithmetic",),
    display=Display(task_brief=lambda task: (f"Sum {task['count']} numbers", dict(task))),
    audit=AuditHooks(probe_tasks=tuple(TASKS), probes=_probes, shipped_scorer="exact_sum",
                     truth_scorer="exact_sum", spectrum_agents=("scripted:adder",
                                                                "scripted:forgetful"),
                     spectrum_tasks=tuple(TASKS), replay_agents=("scripted:adder",),
                     replay_tasks=tuple(TASKS)),
)
