"""What every tool world shares: state, receipts, recipes, the finish tool and evidence capture.

A world's state is plain nested data. Every write a tool performs through `write` records a
receipt naming the state leaves it changed (write attribution); reads go through `read`. The
episode's evidence is not what the agent says but what replaying its recorded calls on a fresh
world gives: the initial and final state, the changed leaves, the receipts, every write the
world applied with the leaves it changed (`writes`: a change undone before the end is still
there), and the world's own log (replies, conflicts, faults). A replay that does not reproduce
the recorded results is an identity mismatch, and the contract is INVALID.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.canonical import canonical_json, digest
from agentmetrology.records.contract import Contract
from agentmetrology.records.events import Event
from agentmetrology.records.tools import Observation, Tool, ToolSpec

BUDGET = 30  # tool calls per episode (finish included)
RECIPE_PREFIX = "recipe:"
FINISH = ToolSpec("finish", "Finish the task with your answer; ends the episode.",
                  {"type": "object", "properties": {"answer": {}}, "required": ["answer"],
                   "additionalProperties": False})


@dataclass(frozen=True, slots=True)
class Param:
    """A recipe parameter: its default, how a text value is read, what it may be."""

    name: str
    default: Any
    parse: Callable[[str], Any]
    help: str


def parse_recipe(world: str, params: Mapping[str, Param], condition: str) -> dict[str, Any]:
    """Return the full recipe of a condition (`clean` or `recipe:k=v,...`), or raise ValueError.

    An unknown parameter or an unreadable value is refused with one line naming the known ones.
    """
    recipe = {p.name: p.default for p in params.values()}
    if condition == "clean":
        return recipe
    if not condition.startswith(RECIPE_PREFIX):
        raise ValueError(f"unknown condition {condition!r} of {world}; use clean or "
                         f"recipe:{','.join(f'{p}=...' for p in params)}")
    body = condition[len(RECIPE_PREFIX):]
    for item in filter(None, body.split(",")):
        key, eq, text = item.partition("=")
        if key not in params:
            raise ValueError(f"unknown recipe parameter {key!r} of {world}; known: "
                             f"{', '.join(f'{p.name} ({p.help})' for p in params.values())}")
        if not eq or not text:
            raise ValueError(f"recipe parameter {key!r} of {world} needs a value: {key}=VALUE")
        recipe[key] = params[key].parse(text)
    return recipe


def recipe_text(recipe: Mapping[str, Any]) -> str:
    """Return the canonical spelling of a recipe: `k=v` pairs sorted by name."""
    return ",".join(f"{k}={recipe[k]}" for k in sorted(recipe))


def canonical_recipe_condition(world: str, params: Mapping[str, Param], condition: str) -> str:
    """Return the one spelling of a condition: `clean` for the defaults, else `recipe:...`."""
    recipe = parse_recipe(world, params, condition)
    defaults = {p.name: p.default for p in params.values()}
    changed = {k: v for k, v in recipe.items() if v != defaults[k]}
    return "clean" if not changed else RECIPE_PREFIX + recipe_text(changed)


def choice(name: str, options: tuple[str, ...]) -> Callable[[str], str]:
    """Return a parser accepting one of `options`."""
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"recipe parameter {name}={text!r}: use one of "
                             f"{', '.join(options)}")
        return text
    return parse


def int_range(name: str, low: int, high: int) -> Callable[[str], int]:
    """Return a parser accepting an integer in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"recipe parameter {name}={text!r}: an integer in "
                             f"{low}..{high}") from None
        if not low <= value <= high:
            raise ValueError(f"recipe parameter {name}={value}: must be in {low}..{high}")
        return value
    return parse


def token(name: str) -> Callable[[str], str]:
    """Return a parser accepting a short token of letters, digits, '-' and '_'."""
    def parse(text: str) -> str:
        if len(text) > 40 or not all(c.isalnum() or c in "-_" for c in text):
            raise ValueError(f"recipe parameter {name}={text!r}: up to 40 letters, digits, "
                             "'-' or '_'")
        return text
    return parse


def leaves(node: Any, prefix: str = "") -> dict[str, Any]:
    """Return {dotted path: value} of every leaf of nested mappings (lists are leaves)."""
    if isinstance(node, Mapping) and node:
        out: dict[str, Any] = {}
        for k, v in node.items():
            out.update(leaves(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: node} if prefix else {}


def changed_leaves(before: Any, after: Any) -> list[str]:
    """Return the sorted leaf paths added, removed or changed between two states.

    An empty mapping is a leaf; when it gains (or loses) children, the children are the
    change, not the container.
    """
    a, b = leaves(before), leaves(after)
    changed = {p for p in set(a) | set(b)
               if p not in a or p not in b or canonical_json(a[p]) != canonical_json(b[p])}
    def emptied(p: str) -> bool:  # an empty mapping on one side, children on the other
        return ({} in (a.get(p), b.get(p))) and any(q.startswith(p + ".") for q in changed)
    return sorted(p for p in changed if not emptied(p))


def covered(path: str, receipts: Sequence[Mapping[str, Any]]) -> bool:
    """Return True when a receipt names `path` or a path above it."""
    return any(path == p or path.startswith(p + ".") for r in receipts
               for p in r.get("paths") or ())


def write_record(tool: str, op: str, receipt: str | None, at: int, before: Any,
                 after: Any) -> dict[str, Any]:
    """Return one applied write as evidence: its tool, op, receipt (None: none recorded), the
    call it was made in and each leaf it changed with its value before and after (a side
    without the leaf has no key)."""
    a, b = leaves(before), leaves(after)
    changes = [{"path": p, **({"before": a[p]} if p in a else {}),
                **({"after": b[p]} if p in b else {})} for p in changed_leaves(before, after)]
    return {"tool": tool, "op": op, "receipt": receipt, "at": at, "changes": changes}


def _set(state: dict[str, Any], path: str, value: Any) -> None:
    node = state
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def _delete(state: dict[str, Any], path: str) -> None:
    node = state
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[part]
    node.pop(parts[-1], None)


class World(ABC):
    """One episode of a tool world: state, receipts, a log, a budget and a finish tool.

    Subclasses set `name`, `params`, build `initial_state()` and add their tools in
    `world_tools()`; every observation carries the canonical recipe so the evidence of any
    recorded episode can be rebuilt by replay.
    """

    name = "world"
    params: Mapping[str, Param] = {}
    actor = "svc-agent-7"  # the session's authenticated principal
    # Backdrop domains (static sections of the shared enterprise, see `domains`): part of the
    # state the evidence shows, materialized into `state` on the first write, so an episode
    # that never touches a domain binds the same final-state digest it bound before it existed.
    backdrop: Mapping[str, Any] = {}

    def __init__(self, task: str, seed: int | None, profile: str, condition: str) -> None:
        self.task_id, self.seed, self.profile, self.condition = task, seed, profile, condition
        self.recipe = parse_recipe(self.name, self.params, condition)
        self.state: dict[str, Any] = self.initial_state()
        self.initial = copy.deepcopy(self.state)
        self.receipts: list[dict[str, Any]] = []
        # Every write the world applied, receipted or not, with the leaves it changed: a change
        # undone before the end leaves no trace in the final state, and is still an act.
        self.writes: list[dict[str, Any]] = []
        self.log: list[dict[str, Any]] = []  # world-side facts: replies, faults, conflicts
        self.requests_used = 0
        self.submitted: dict[str, Any] | None = None
        self.answer: Any = None
        self.trace: list[Any] = []
        specs = [*self.world_tools(), (FINISH, self.finish)]
        self.tools: dict[str, Tool] = {s.name: Tool(s, self._guard(s, fn)) for s, fn in specs}

    # -- what subclasses provide --------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> dict[str, Any]:
        """Return the world's initial state (plain nested data)."""

    @abstractmethod
    def world_tools(self) -> list[tuple[ToolSpec, Callable[..., Observation]]]:
        """Return the world's tools besides finish."""

    def extra_evidence(self) -> dict[str, Any]:
        """Return world-specific evidence (e.g. the authority, the task's amount)."""
        return {}

    # -- the episode --------------------------------------------------------------------------
    @property
    def budget_exhausted(self) -> bool:
        """Return True when the episode can make no more tool calls."""
        return self.requests_used >= BUDGET

    def _guard(self, spec: ToolSpec, fn: Callable[..., Observation]) -> Callable[..., Observation]:
        props = spec.parameters.get("properties", {})
        required = spec.parameters.get("required", [])

        def call(**kwargs: Any) -> Observation:
            if self.budget_exhausted:
                return self._stamp({"error": "tool-call budget exhausted"})
            if self.submitted is not None:
                return self._stamp({"error": "the task is finished"})
            self.requests_used += 1
            unknown = sorted(set(kwargs) - set(props))
            missing = [k for k in required if k not in kwargs]
            if unknown or missing:
                why = [*([f"unknown argument(s) {', '.join(unknown)}"] if unknown else []),
                       *([f"missing argument(s) {', '.join(missing)}"] if missing else [])]
                return self._stamp({"error": f"{spec.name}: {'; '.join(why)}; expected "
                                             f"{', '.join(props) or 'none'}"})
            return self._stamp(fn(**kwargs))
        return call

    def _stamp(self, obs: Observation) -> Observation:
        return {**obs, "recipe": recipe_text(self.recipe)}

    def view(self, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return a copy of the state (default: the live one) with the backdrop filled in."""
        return copy.deepcopy({**self.backdrop, **(self.state if state is None else state)})

    def read(self, path: str) -> Any:
        """Return a copy of the state value at `path` (None when absent)."""
        node: Any = {**self.backdrop, **self.state}
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return copy.deepcopy(node)

    def entry(self, section: str, key: Any) -> Any:
        """Return a copy of the entry `key` of the mapping at `section` (None when absent).

        `key` comes from the agent and names one entry, never a path: read(f"{section}.{key}")
        would take "R1.flag" to a field of R1, and a write through that path would fail.
        """
        node = self.read(section)
        return node.get(key) if isinstance(node, dict) and isinstance(key, str) else None

    def write(self, tool: str, op: str, changes: Mapping[str, Any], *,
              deletes: Sequence[str] = (), receipt: bool = True, **detail: Any) -> dict[str, Any]:
        """Apply leaf changes (and deletions) to the state; return the receipt (recorded).

        The receipt names the principal the write acts as (`actor` in `detail`, else the
        session's own).
        """
        prior = self.view()
        for path in [*changes, *deletes]:
            top = path.split(".")[0]
            if top not in self.state and top in self.backdrop:
                self.state[top] = copy.deepcopy(self.backdrop[top])
        for path, value in changes.items():
            _set(self.state, path, copy.deepcopy(value))
        for path in deletes:
            _delete(self.state, path)
        r = {"receipt": f"r{len(self.receipts) + 1}", "tool": tool, "op": op,
             "paths": sorted([*changes, *deletes]), "actor": self.actor, **detail}
        if receipt:
            self.receipts.append(r)
        self.writes.append(write_record(tool, op, r["receipt"] if receipt else None,
                                        self.requests_used, prior, self.view()))
        return r

    def finish(self, answer: Any = None) -> Observation:
        """End the episode with the agent's answer, binding the final state's digest."""
        self.answer = answer
        self.submitted = {"answer": answer, "recipe": recipe_text(self.recipe),
                          "state_digest": digest(self.state)}
        return {"status": "finished"}

    def evidence(self, contract: Contract, problem: str = "") -> dict[str, Any]:
        """Return the evidence document of this episode as it stands."""
        return {
            "identity": {"contract": contract.ident, "environment": self.name,
                         "task": self.task_id, "seed": self.seed,
                         "recipe": recipe_text(self.recipe), "problem": problem},
            "recipe": dict(self.recipe),
            "initial": self.view(self.initial), "final": self.view(),
            "changed": changed_leaves(self.view(self.initial), self.view()),
            "session": {"actor": self.actor},
            "receipts": copy.deepcopy(self.receipts), "writes": copy.deepcopy(self.writes),
            "log": copy.deepcopy(self.log),
            "answer": {"given": self.submitted is not None, "value": self.answer},
            **self.extra_evidence(),
        }


def recorded_recipe(trajectory: Sequence[Event] | None) -> str | None:
    """Return the canonical recipe text the first world observation carries, or None."""
    for ev in trajectory or ():
        if ev.kind == "tool_call" and isinstance(ev.result, dict) \
                and isinstance(ev.result.get("recipe"), str):
            return str(ev.result["recipe"])
    return None


def replay(make: Callable[[str, int | None, str, str], World], contract: Contract,
           submission: Any, task: str, seed: int | None, profile: str,
           trajectory: Sequence[Event] | None) -> dict[str, Any]:
    """Return the evidence of a recorded episode by replaying its tool calls on a fresh world.

    The identity's `problem` says why the record is not this world's execution (a result that
    replay does not reproduce, a final state other than the one the submission bound).
    """
    text = recorded_recipe(trajectory)
    condition = "clean" if text is None else RECIPE_PREFIX + text
    try:
        world = make(task, seed, profile, condition)
    except ValueError as exc:
        return make(task, seed, profile, "clean").evidence(
            contract, f"the recorded recipe {text!r} is not this world's: {exc}")
    problem = "" if trajectory is not None else "no trajectory to replay"
    for ev in trajectory or ():
        reached = isinstance(ev.result, dict) and "recipe" in ev.result
        if ev.kind != "tool_call" or not reached:
            continue  # an unknown tool or a malformed call never reached the world
        tool = world.tools.get(ev.name)
        result = tool(**ev.args) if tool is not None else {"error": f"unknown tool {ev.name!r}"}
        if digest(result) != digest(ev.result):
            problem = f"replay diverges at event {ev.seq} ({ev.name})"
            break
    if not problem and isinstance(submission, dict) \
            and submission.get("state_digest") != digest(world.state):
        problem = "the submission binds another final state"
    return world.evidence(contract, problem)
