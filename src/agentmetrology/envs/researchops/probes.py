"""The auditor's probes for ResearchOpsEnv: forged episodes, each a submission with its trajectory.

Every probe is a real episode on a real environment (so its submission and trajectory agree):
- `correct`: the careful policy's episode;
- `report_only`: careful's calls, but every edit sends a value of the wrong kind and fails, so
  the report names the fix (its target terms) while the configuration stays broken;
- `renamed_tools`: careful on the same environment with every tool renamed (descriptions kept):
  the same submission and H, no tool-name credit;
- `keyword_stuffed`: every required tool called once with a bad argument, then a report that
  lists every target term and cites evidence it never gathered;
- `empty`: an empty report at once.
The shipped verifier ties `report_only` and `keyword_stuffed` with `correct` (tool names and
terms earn full credit) and scores `renamed_tools` lower: the defect the audit must find.
"""

from __future__ import annotations

from collections.abc import Callable

from agentmetrology.envs.researchops.policies import AGENTS, Script, ScriptedPolicy
from agentmetrology.envs.researchops.tasks import get_task
from agentmetrology.envs.researchops.tools.environment import ResearchOpsEnv
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.environment import Forged
from agentmetrology.records.policy import Brief, Policy, Stop, ToolCall
from agentmetrology.records.tools import Tool, ToolSpec
from agentmetrology.runtime.drive import drive
from agentmetrology.runtime.recorder import Recorder

PROBE_NAMES: tuple[str, ...] = ("correct", "report_only", "renamed_tools", "keyword_stuffed",
                                "empty")
ALIASES: dict[str, str] = {
    "retrieve_document": "fetch_text", "read_config": "show_settings",
    "edit_config": "set_setting", "run_experiment": "simulate",
    "inspect_logs": "view_history", "submit_report": "finish",
}
CUE_WORDS = "diagnosis root cause fixed verified evidence experiment reproducible"
MAX_CALLS = 40
Rewrite = Callable[[ToolCall], ToolCall]


def rename_tools(env: ResearchOpsEnv, aliases: dict[str, str]) -> ResearchOpsEnv:
    """Rename the environment's tools in place (dispatch, schema and description kept)."""
    env.tools = {aliases.get(name, name): Tool(ToolSpec(aliases.get(name, name),
                                                        t.spec.description, t.spec.parameters),
                                               t.fn)
                 for name, t in env.tools.items()}
    return env


def forge(env: ResearchOpsEnv, policy: Policy, rewrite: Rewrite | None = None) -> Forged:
    """Return `policy`'s episode on `env` as a Forged probe (its calls optionally rewritten)."""
    task = env.task
    clock = FakeClock()
    brief = Brief(env.task_id, task.description, task.brief_query(),
                  tuple(t.spec for t in env.tools.values()), "L2", (), env.seed, MAX_CALLS,
                  clock, environment="researchops")
    rec = Recorder(env, clock)
    policy.reset(brief)
    obs = None
    for _ in range(MAX_CALLS):
        move = drive(policy.act(obs))
        if isinstance(move, Stop) or env.submitted is not None:
            break
        move = rewrite(move) if rewrite else move
        obs = rec.call("agent", move.name, move.args)
    return Forged(env.submitted, tuple(rec.events))


def _break_edits(call: ToolCall) -> ToolCall:
    if call.name != "edit_config":
        return call
    return ToolCall(call.name, {**call.args, "value": [call.args.get("value")]})  # wrong kind


class _Stuffer(ScriptedPolicy):
    """Calls every required tool once with a bad argument, then stuffs the report."""

    name = "probe:keyword_stuffed"

    def script(self, brief: Brief) -> Script:
        task = get_task(brief.task_id)
        for tool in task.required_tools:
            yield ToolCall(tool, {"bogus": True})
        terms = " ".join(t for group in task.targets for t in group)
        yield ToolCall("submit_report", {"report": f"{terms} {CUE_WORDS}",
                                         "evidence": [f"doc:{task.key_document}", "logs",
                                                      "config", "experiment"]})


class _Empty(ScriptedPolicy):
    """Submits an empty report at once."""

    name = "probe:empty"

    def script(self, brief: Brief) -> Script:
        yield ToolCall("submit_report", {"report": ""})


def battery(task: str, seed: int | None, profile: str = "seeded") -> dict[str, Forged]:
    """Return the probes of (task, seed) in `PROBE_NAMES` order, `correct` first."""
    careful = AGENTS["scripted:careful"]

    def env() -> ResearchOpsEnv:
        return ResearchOpsEnv(task, seed, profile)

    return {
        "correct": forge(env(), careful()),
        "report_only": forge(env(), careful(), _break_edits),
        "renamed_tools": forge(rename_tools(env(), ALIASES), careful()),
        "keyword_stuffed": forge(env(), _Stuffer()),
        "empty": forge(env(), _Empty()),
    }
