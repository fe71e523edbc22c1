"""A ComtradeBench episode environment: the service behind the three tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.envs.comtrade.adversary import wrap_fetch
from agentmetrology.envs.comtrade.service import ComtradeService, Submission
from agentmetrology.envs.comtrade.tasks import PROFILES, Profile, get_task
from agentmetrology.records.tools import Observation, Tool, ToolSpec
from agentmetrology.stress.wrapper import AdversarialWrapper, TraceEntry

GET_TASK_INFO = ToolSpec(
    "get_task_info",
    "Return the task: id, description, query, constraints, requests used and remaining.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)
FETCH_PAGE = ToolSpec(
    "fetch_page",
    "Fetch one page of records for the task's query. Pages are 1-indexed. Every call counts "
    "against the request budget, failed ones included. Errors come back as "
    "{status, error, retry}.",
    {
        "type": "object",
        "properties": {
            "page": {"type": "integer", "minimum": 1, "description": "1-indexed page number"},
            "page_size": {"type": "integer", "description": "ignored: the task's page size "
                          "applies", "default": 500},
        },
        "required": ["page"],
        "additionalProperties": False,
    },
)
SUBMIT_RESULTS = ToolSpec(
    "submit_results",
    "Submit the cleaned records once: data_jsonl (one JSON object per line), metadata_json "
    "(a JSON object) and an optional run_log. Ends the episode.",
    {
        "type": "object",
        "properties": {
            "data_jsonl": {"type": "string"},
            "metadata_json": {"type": "string"},
            "run_log": {"type": "string", "default": ""},
        },
        "required": ["data_jsonl", "metadata_json"],
        "additionalProperties": False,
    },
)


TOOL_SPECS: tuple[ToolSpec, ...] = (GET_TASK_INFO, FETCH_PAGE, SUBMIT_RESULTS)


def _guard(fn: Callable[..., Observation], spec: ToolSpec) -> Callable[..., Observation]:
    """Turn unexpected or missing arguments into an error observation instead of an exception."""
    props, required, allowed = _ARGS.get(id(spec)) or _arg_sets(spec)

    def call(**kwargs: Any) -> Observation:
        # issuperset walks the keys in C and the required names (none to two) are looked up
        # one by one: cheaper than comparing a keys view with two sets (every call of an
        # episode goes through here); the messages are built only for a bad call.
        if allowed.issuperset(kwargs):
            for name in required:
                if name not in kwargs:
                    break
            else:
                return fn(**kwargs)
        if not allowed.issuperset(kwargs):
            unknown = sorted(set(kwargs) - allowed)
            return {"error": f"{spec.name}: unknown argument(s) {', '.join(unknown)}; "
                             f"expected {', '.join(props) or 'none'}"}
        missing = [k for k in required if k not in kwargs]
        return {"error": f"{spec.name}: missing required argument(s) {', '.join(missing)}"}

    return call


def _arg_sets(spec: ToolSpec) -> tuple[Any, Any, frozenset[str]]:
    """Return a tool spec's properties, required list and the set of its argument names."""
    props = spec.parameters.get("properties", {})
    required = spec.parameters.get("required", [])
    return props, required, frozenset(props)


# The three tools' argument sets, made once (every episode guards its three tools); keyed by
# identity: module constants live as long as the process, so no other object shares their id.
_ARGS = {id(s): _arg_sets(s) for s in TOOL_SPECS}


class ComtradeEnv:
    """One episode of one task at one seed, profile and condition, exposed as three tools."""

    def __init__(self, task_id: str, seed: int | None = 0, profile: Profile = "seeded",
                 condition: str = "clean", *, honest_422: bool = False) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
        self.task = get_task(task_id)
        self.task_id = self.task.task_id
        if profile == "seeded" and (isinstance(seed, bool) or not isinstance(seed, int)
                                    or seed < 0):
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = seed
        self.profile: Profile = profile
        self.condition = condition
        self.service = ComtradeService(self.task, seed, profile, honest_422=honest_422)
        self.adversary: AdversarialWrapper | None = None
        if condition != "clean":
            if profile == "legacy":
                raise ValueError("stress conditions need the seeded profile")
            self.adversary = wrap_fetch(self.service, condition, seed)
        elif self.task.adaptive and profile == "seeded":
            self.adversary = wrap_fetch(self.service, "adaptive", seed)
        # The trace is read after every tool call: one list per episode, not one per read.
        self._trace: list[TraceEntry] = self.adversary.trace if self.adversary else []
        fetch: Callable[..., Observation] = self.adversary or self.service.fetch
        self.tools: dict[str, Tool] = {
            GET_TASK_INFO.name: Tool(GET_TASK_INFO, _guard(self.service.task_info, GET_TASK_INFO)),
            FETCH_PAGE.name: Tool(FETCH_PAGE, _guard(fetch, FETCH_PAGE)),
            SUBMIT_RESULTS.name: Tool(SUBMIT_RESULTS, _guard(self.service.submit, SUBMIT_RESULTS)),
        }

    @property
    def submission(self) -> Submission | None:
        """Return the episode's submission, if one was accepted."""
        return self.service.submission

    @property
    def submitted(self) -> dict[str, Any] | None:
        """Return the accepted submission as plain data (the generic runner's view)."""
        return self.service.submission.as_dict() if self.service.submission else None

    @property
    def requests_used(self) -> int:
        """Return how many fetches were counted against the budget."""
        return self.service.requests_used

    @property
    def budget_exhausted(self) -> bool:
        """Return True when no request is left."""
        return self.service.requests_used >= self.service.budget

    @property
    def trace(self) -> list[TraceEntry]:
        """Return the adversarial trace (empty when no adversary is attached)."""
        return self._trace
