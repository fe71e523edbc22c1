"""The conformance suite's machinery: which environments, what to run on each, how to run it.

`tests/envs/conformance/` runs every environment the registry lists, and the toy_sum plug-in
installed by its entry point as a third party installs one, through every path a user has. The
generic checks hold for any environment; what is particular to one (its pinned numbers, recipes,
defects, MCP calls) is data keyed by its name in `support.env_pins`, run by the same modules.

Which processes: each suite module runs its commands in ONE fresh interpreter with the plug-in's
dist-info on its path (`support.agm_runs.run_batch`, which finds the plug-in by entry point
only), then the commands a pin asks to see again (and those that read the first one's output)
in a SECOND fresh interpreter (another hash seed, nothing cached): the same argv must print the
same bytes. A command a pin marks `process` also runs as a real `agm` process and must give the
same exit code, stdout and stderr as in the batch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.records.environment import EnvSpec
from support.agm_runs import AGM, AgmResult, run_batch
from support.inspect_logs import PLUGIN_DIR

PLUGIN = "toy_sum"
ENVIRONMENTS = (*env_names(), PLUGIN)
STATUSES = {"PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID"}


def spec_of(name: str) -> EnvSpec:
    """Return a registered environment's spec (the plug-in imported from its folder)."""
    if name != PLUGIN:
        return get_env(name)
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        import toy_sum  # the plug-in's module, as its entry point names it
    finally:
        sys.path.remove(str(PLUGIN_DIR))
    spec: EnvSpec = toy_sum.SPEC
    return spec


class Plan(NamedTuple):
    """What the generic checks run on one environment: a task, a model-free agent, a level."""

    task: str
    agent: str
    level: str


def plan_for(spec: EnvSpec) -> Plan:
    """Return the first task, the first scripted agent (the rule agent when the environment
    has no scripted one) and the first level that agent acts at."""
    agent = next((a for a in sorted(spec.agents) if a.startswith("scripted:")), "rule")
    levels = spec.agents[agent]().levels
    level = next(lv for lv in spec.levels if lv in levels)
    return Plan(sorted(spec.tasks)[0], agent, level)


class Results:
    """The results of one pin's commands, by the names the pin gave them."""

    def __init__(self, root: Path, first: Mapping[str, AgmResult],
                 second: Mapping[str, AgmResult]) -> None:
        self.root, self._first, self._second = root, first, second

    def __getitem__(self, name: str) -> AgmResult:
        return self._first[name] if name in self._first else self._second[name]

    def again(self, name: str) -> AgmResult:
        """Return command `name` as the second interpreter printed it."""
        return self._second[f"{name}#again"]


@dataclass(frozen=True)
class Pin:
    """One environment-specific expectation: named commands, then a check of their results.

    `{root}` in an argv is the pin's own folder. `files` are written there before anything
    runs; `stdout_files` (file name -> command) after the first interpreter, from the named
    command's stdout, for the `then` commands of the second interpreter to read. Commands in
    `again` run in both interpreters and must print the same bytes; commands in `process` run
    as a real `agm` process too and must give the same result as in the batch.
    """

    commands: Mapping[str, Sequence[str]]
    check: Callable[[Results], None]
    files: Mapping[str, str] = field(default_factory=dict)
    then: Mapping[str, Sequence[str]] = field(default_factory=dict)
    stdout_files: Mapping[str, str] = field(default_factory=dict)
    again: tuple[str, ...] = ()
    process: tuple[str, ...] = ()


def _argv(argv: Sequence[str], root: Path) -> list[str]:
    return [a.replace("{root}", str(root)) for a in argv]


def run_pins(pins: Mapping[str, Pin], root: Path, env: dict[str, str],
             timeout: float = 900) -> dict[str, Results]:
    """Run every pin's commands (two interpreters, see the module docstring); results by pin."""
    first: dict[tuple[str, str], list[str]] = {}
    for key, pin in pins.items():
        here = root / key
        here.mkdir(parents=True)
        for name, text in pin.files.items():
            (here / name).write_text(text)
        first.update({(key, name): _argv(argv, here) for name, argv in pin.commands.items()})
    out = dict(zip(first, run_batch(list(first.values()), env=env, cwd=root, timeout=timeout),
                   strict=True))
    second: dict[tuple[str, str], list[str]] = {}
    for key, pin in pins.items():
        here = root / key
        for name, command in pin.stdout_files.items():
            (here / name).write_text(out[key, command].stdout)
        second.update({(key, f"{name}#again"): first[key, name] for name in pin.again})
        second.update({(key, name): _argv(argv, here) for name, argv in pin.then.items()})
    out2 = dict(zip(second, run_batch(list(second.values()), env=env, cwd=root,
                                      timeout=timeout), strict=True)) if second else {}
    return {key: Results(root / key,
                         {n: r for (k, n), r in out.items() if k == key},
                         {n: r for (k, n), r in out2.items() if k == key})
            for key in pins}


def check_pin(pin: Pin, results: Results, env: dict[str, str]) -> None:
    """Check a pin's own expectations, its repeats and its real processes."""
    for name in pin.again:  # same argv, another interpreter: the same bytes
        assert results.again(name) == results[name], name
    for name in pin.process:  # the process boundary: the same exit code, stdout and stderr
        proc = agm_process(env, *_argv(pin.commands[name], results.root), cwd=results.root)
        assert (proc.returncode, proc.stdout, proc.stderr) == \
            (results[name].returncode, results[name].stdout, results[name].stderr), name
    pin.check(results)


def agm_process(env: dict[str, str], *args: str,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `agm ARGS` as a real process with the plug-in installed."""
    return subprocess.run([*AGM, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)


def rows(res: AgmResult) -> list[dict[str, Any]]:
    """Return the JSON lines a successful command printed."""
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def pin_cases(pins: Mapping[str, Mapping[str, Pin]]) -> list[tuple[str, str]]:
    """Return (environment, pin) pairs for every registered environment's pins of one path."""
    return [(env, name) for env in ENVIRONMENTS for name in pins.get(env, {})]


Observation = dict[str, Any]
CallArgs = dict[str, Any] | Callable[[list[Observation]], dict[str, Any]]


@dataclass(frozen=True)
class McpScript:
    """An MCP client's session on one environment: the calls (their arguments may be read from
    the observations before them), a check of the tool names and observations, and a check of
    `agm archive regrade` on the episode the server recorded."""

    task: str
    seed: int
    calls: Sequence[tuple[str, CallArgs]]
    check: Callable[[list[str], list[Observation]], None]
    regrade: Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class EnvPins:
    """What is particular to one environment on each path (every field optional)."""

    listed: Mapping[str, Any] = field(default_factory=dict)  # fields of its `agm envs` row
    run: Mapping[str, Pin] = field(default_factory=dict)
    campaign: Mapping[str, Pin] = field(default_factory=dict)
    audit_seeds: str = "0"
    audit: Callable[[dict[str, Any]], None] | None = None  # a check of its audit.json
    mcp: McpScript | None = None
