"""The tau2 outcome probe: gold, corrupted and empty trajectories through the domain's own checks.

Forged output text cannot probe a scorer that judges the episode (tau2's scorers read the
database and the conversation, not the final answer). This probe perturbs the semantics of the
episode instead, with zero model calls, through the task's own solver and shipped scorer:

- **gold**: a scripted agent makes the task's gold actions (requestor `assistant`, in order) as
  tool calls on the sample's own tools, then says every required output in one message; the
  simulated user greets once and then stops;
- **corrupted**: the same, with one argument of a write action changed (a string gets `-agm`
  appended, a number 1 added, a boolean negated): the first such change that alters the gold
  end state on the domain's own tools. A task whose end state no single change alters, but
  which requires outputs, is corrupted by withholding them from the closing message;
- **empty**: the do-nothing episode (an agent that answers nothing, a user that stops at once),
  made by the audit's do-nothing run.

An outcome-based scorer scores gold 1 and corrupted 0 (the paper's replay of tau-bench's reward
function: 1.0, 0.0, 0.0). Tasks with no corrupted variant (nothing written that matters and no
output required: a do-nothing agent passes them) are counted apart; tasks whose gold actions
need the user's own tools (telecom's device) are not probed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from agentmetrology.archive.tau2_world import Kit
from agentmetrology.inspect_ext.audit.load import LoadedTask
from agentmetrology.inspect_ext.audit.run import (
    SEP,
    USER_STOPS,
    RunResult,
    _eval,
    _fill_errors,
    _scoring_solver,
)
from agentmetrology.inspect_ext.audit.tau2_tools import DOMAINS, end_state, toolkit

PROBES = ("gold", "corrupted")
SCRIPT_KEY = "agm_outcome_script"  # the sample store key the scripted agent reads its calls from
USER_TURNS_KEY = "agm_outcome_user_turns"
GREETING = "Hello, I need help with my request."
SUFFIX = "-agm"
# Tools that read, compute or hand off: never the write a corruption targets (both domains).
READS = ("get_", "search_", "list_", "find_", "calculate", "think", "transfer_to_human")
PASS_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Script:
    """What the scripted agent does in one sample: tool calls, then one closing message."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    closing: str
    corrupted: str | None = None  # which argument was changed ("tool.arg: a -> b"), if any


def _is_write(name: str) -> bool:
    return not name.startswith(READS)


def _changed(value: Any) -> Any:
    """Return a scalar argument changed so it names something else (None: not changeable)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + SUFFIX
    return None


def _corruptions(calls: tuple[tuple[str, dict[str, Any]], ...]
                 ) -> list[tuple[tuple[tuple[str, dict[str, Any]], ...], str]]:
    """Return every single-argument corruption of the write actions, in gold order."""
    out = []
    for i, (name, args) in enumerate(calls):
        if not _is_write(name):
            continue
        for key, value in args.items():
            new = _changed(value)
            if new is not None:
                bad = list(copy.deepcopy(calls))
                bad[i] = (name, {**args, key: new})
                out.append((tuple(bad), f"{name}.{key}: {value!r} -> {new!r}"))
    return out


def scripts(metadata: dict[str, Any], kit: Kit | None) -> dict[str, Script | str]:
    """Return the gold and corrupted scripts of one tau2 sample (a string: why not formable).

    The corruption is the first single-argument change of a write action that changes the
    gold end state (checked on the domain's own tools, `kit`): a change the tools refuse, or a
    write a later gold action overwrites, would leave the end state as gold's and probe nothing.
    """
    from inspect_evals.tau2.common.metadata import Tau2MetaData

    task = Tau2MetaData.model_validate(metadata).task
    crit = task.evaluation_criteria
    actions = list(crit.actions or []) if crit is not None else []
    if any(a.requestor != "assistant" for a in actions):
        why = "the gold actions include the user's own tools (not replayable by the agent)"
        return {"gold": why, "corrupted": why}
    calls = tuple((a.name, dict(a.arguments or {})) for a in actions)
    info = [str(i) for i in (crit.communicate_info or [])] if crit is not None else []
    closing = " ".join(info)
    out: dict[str, Script | str] = {"gold": Script(calls, closing or "Done.")}
    candidates = _corruptions(calls)
    if candidates and kit is not None:
        gold = end_state(kit, list(calls))
        for bad, what in candidates:
            if end_state(kit, list(bad)) != gold:
                out["corrupted"] = Script(bad, closing or "Done.", what)
                return out
    if info:
        out["corrupted"] = Script(calls, "Done.", "the required outputs withheld")
    elif candidates:
        out["corrupted"] = ("no single write-argument change alters the gold end state (the "
                            "gold writes are refused or overwritten) and no output is required")
    else:
        out["corrupted"] = "no write action and no required output among the gold criteria"
    return out


def _tool_name(action: str, tools: list[Any]) -> str:
    """Return the offered tool's name for a gold action (exact, or prefixed `x_action`)."""
    for t in tools:
        if t.name == action or t.name.endswith(f"_{action}"):
            return str(t.name)
    return action  # offered under no name: the call fails as the agent's call would


def _agent_model() -> Any:
    """Return a mock model that replays the sample's script (from its store), then closes."""
    from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model
    from inspect_ai.util import store

    def reply(messages: list[Any], tools: list[Any], *_: Any) -> Any:
        script: Script | None = store().get(SCRIPT_KEY)
        done = sum(1 for m in messages if isinstance(m, ChatMessageTool))
        if script is not None and done < len(script.calls):
            name, args = script.calls[done]
            out = ModelOutput.for_tool_call("mockllm/model", _tool_name(name, tools), args)
        else:
            out = ModelOutput.from_content("mockllm/model", script.closing if script else "")
        out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return out

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def _user_model() -> Any:
    """Return a mock simulated user: one greeting, then it stops."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.util import store

    def reply(*_: Any) -> Any:
        turns = int(store().get(USER_TURNS_KEY, 0))
        store().set(USER_TURNS_KEY, turns + 1)
        out = ModelOutput.from_content("mockllm/model", GREETING if turns == 0 else USER_STOPS)
        out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return out

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def _scripted(inner: Any, plan: dict[str, Script]) -> Any:
    """Return a solver that puts the sample's script in its store, then runs the task's solver."""
    from inspect_ai.solver import solver
    from inspect_ai.util import store

    @solver(name="agm_outcome_script")
    def put_script() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            store().set(SCRIPT_KEY, plan[str(state.sample_id)])
            return await inner(state, generate)

        return solve

    return put_script()


def run_outcome_probe(loaded: LoadedTask, timeout: float) -> tuple[RunResult, dict[str, Any]]:
    """Run the gold and corrupted trajectories of every sample; return cells and what was run.

    The cells are keyed (sample, probe, scorer index) like every other run's; the second value
    maps each sample to its probes' descriptions or the reason a probe was not formed.
    """
    from inspect_ai import task_with
    from inspect_ai.dataset import MemoryDataset

    domain = tau2_probe_domain(loaded.spec)
    kit = toolkit(domain) if domain is not None else None
    derived, plan, formed = [], {}, {}
    for s in loaded.samples:
        sid = str(s.id)
        made = scripts(dict(s.metadata or {}), kit)
        formed[sid] = {p: (m if isinstance(m, str) else m.corrupted or "gold actions replayed")
                       for p, m in made.items()}
        for probe in PROBES:
            script = made[probe]
            if isinstance(script, Script):
                key = f"{sid}{SEP}{probe}"
                derived.append(s.model_copy(update={"id": key}, deep=True))
                plan[key] = script
    result = RunResult({}, {})
    if not derived:
        return result, formed
    scorers = list(loaded.task.scorer or [])
    solver = _scoring_solver(scorers, _scripted(loaded.task.solver, plan), None, timeout,
                             False, result)
    task = task_with(copy.copy(loaded.task), dataset=MemoryDataset(derived), solver=solver,
                     scorer=None)
    error = _eval(task, _agent_model(), {"user": _user_model()})
    _fill_errors(result, error, [tuple(k.split(SEP)) for k in plan],  # type: ignore[misc]
                 len(scorers), "the scripted trajectory failed before scoring")
    return result, formed


def outcome_verdict(cells: dict[tuple[str, str, int], Any], empty: dict[tuple[str, str, int], Any],
                    formed: dict[str, dict[str, str]], index: int = 0,
                    minimum: int = 3) -> dict[str, Any]:
    """Return criterion sensitivity from gold vs corrupted vs empty for scorer `index`.

    Compared: samples whose gold and corrupted trajectories were both scored. Pass: every such
    gold scores 1 and its corrupted copy 0; fail: a corrupted copy scores at least its gold.
    A gold that does not pass is a replay that did not reproduce the task, counted apart.
    Below `minimum` compared samples the verdict is insufficient evidence.
    """
    per: dict[str, dict[str, float | None]] = {}
    for sid in formed:
        got = {p: cells.get((sid, p, index)) for p in PROBES}
        got["empty"] = empty.get((sid, "empty_trajectory", index))
        per[sid] = {p: (c.value if c is not None and c.status == "ok" else None)
                    for p, c in got.items()}
    both = [s for s, v in per.items() if v["gold"] is not None and v["corrupted"] is not None]
    gold_fails = [s for s in both if per[s]["gold"] < 1.0 - PASS_EPS]  # type: ignore[operator]
    offending = [s for s in both if per[s]["corrupted"] >= per[s]["gold"]  # type: ignore[operator]
                 and s not in gold_fails]
    compared = [s for s in both if s not in gold_fails]
    if offending:
        status = "fail"
    elif len(compared) < minimum:
        status = "insufficient evidence"
    else:
        status = "pass"
    empty_passed = [s for s, v in per.items() if v["empty"] is not None
                    and v["empty"] >= 1.0 - PASS_EPS]
    return {"status": status, "n": len(compared), "counted": "tasks with gold and corrupted "
            "trajectories scored", "minimum": minimum, "offending": offending,
            "gold_not_passing": gold_fails,
            "not_formed": {s: f for s, f in formed.items() if s not in both},
            "empty_passed": empty_passed, "scores": per}


def tau2_probe_domain(spec: str) -> str | None:
    """Return the tau2 domain whose gold actions this probe replays (airline, retail), or None."""
    name = spec.partition(" ")[0]
    domain = name.removeprefix("inspect_evals/tau2_")
    return domain if name != domain and domain in DOMAINS else None


def apply_outcome_probe(doc: dict[str, Any], loaded: LoadedTask, empty: RunResult,
                        timeout: float) -> dict[str, Any] | None:
    """Set the shipped scorer's criterion sensitivity of a tau2 audit from the outcome probe.

    Forged outputs cannot probe a scorer that judges the episode ("not probed"); the gold,
    corrupted and empty replays can. Returns the probe's verdict (also kept in the row's
    evidence), or None for a task this probe does not cover.
    """
    from agentmetrology.audit.card import licensed_claim, ownership_status
    from agentmetrology.records.verdict import Verdict

    if tau2_probe_domain(loaded.spec) is None or not loaded.samples:
        return None
    cells, formed = run_outcome_probe(loaded, timeout)
    got = outcome_verdict(cells.cells, empty.cells, formed)
    verdict = Verdict.judged(got["status"] if got["status"] != "insufficient evidence"
                             else "pass", got["n"], "tasks compared (gold vs corrupted)",
                             got["minimum"], why="gold replay 1 and corrupted 0 on every "
                                                 "task compared")
    if got["offending"]:
        verdict = Verdict("fail", got["n"], "tasks compared (gold vs corrupted)",
                          got["minimum"], why="a corrupted trajectory scored at least its gold")
    config = doc["card"]["configurations"][0]
    crit = config["rows"]["criterion_sensitivity"]
    status = verdict.verdict if verdict.sufficient else "not probed"
    crit["status"] = status
    crit["evidence"] = {"probe": "outcome replay: gold, corrupted and empty trajectories "
                                 "through the task's solver and shipped scorer",
                        "verdict": verdict.to_dict(),
                        "reason": None if verdict.sufficient else verdict.text(),
                        **{k: got[k] for k in ("offending", "gold_not_passing", "not_formed",
                                               "empty_passed", "scores")}}
    rows = config["rows"]
    config["licensed_claim"] = licensed_claim(config["scorer_kind"], status,
                                              ownership_status(rows), rows["replay"]["status"])
    doc["card"]["licensed_claim"] = config["licensed_claim"]
    return got
