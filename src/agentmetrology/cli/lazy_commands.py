"""The root command table: every `agm` command by name, its module imported only when it runs.

Importing every command module at start-up was a large share of a warm `agm campaign status`
(their imports compile many dataclasses and pull in numpy, starlette, asyncio ...). The
root group therefore knows each command by name and module and builds it on first use: running
one command imports that command's module alone; `agm --help` (and anything that walks the
group's `commands`) still sees every command, loaded then, in the order of `COMMANDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
import typer.main

from agentmetrology.cli.help_text import PlainHelpGroup


@dataclass(frozen=True)
class Lazy:
    """One root command: its name, the module and attribute that define it, its help line."""

    name: str
    module: str
    attr: str
    help: str | None = None  # a group's help line (a command's is its docstring)


# The order of `agm --help`: commands first, then groups, as typer lists them.
COMMANDS = (
    Lazy("envs", "agentmetrology.cli.env_cmd", "envs_cmd"),
    Lazy("tasks", "agentmetrology.cli.env_cmd", "tasks_cmd"),
    Lazy("truth", "agentmetrology.cli.env_cmd", "truth_cmd"),
    Lazy("run", "agentmetrology.cli.env_cmd", "run_cmd"),
    Lazy("score", "agentmetrology.cli.env_cmd", "score_cmd"),
    Lazy("audit", "agentmetrology.cli.audit_cmd", "audit_cmd"),
    Lazy("diagnose", "agentmetrology.cli.diagnose_cmd", "diagnose_cmd"),
    Lazy("assess", "agentmetrology.cli.assess_cmd", "assess_cmd"),
    Lazy("view", "agentmetrology.cli.view_cmd", "view_cmd"),
    Lazy("export", "agentmetrology.cli.export_cmd", "export_cmd"),
    Lazy("demo", "agentmetrology.cli.demo_cmd", "demo_cmd"),
    Lazy("stats", "agentmetrology.cli.stats_cmd", "stats_app",
         "Reliability statistics for a results table."),
    Lazy("campaign", "agentmetrology.cli.campaign_cmd", "campaign_app",
         "Run and track campaigns in an evidence store."),
    Lazy("serve", "agentmetrology.cli.serve_cmd", "serve_app",
         "Serve an environment to outside clients: its tools over MCP, or OpenEnv."),
    Lazy("archive", "agentmetrology.cli.archive_cmd", "archive_app",
         "Audit archived runs without new rollouts."),
    Lazy("experiment", "agentmetrology.cli.experiment_cmd", "experiment_app",
         "Pre-registered experiments."),
    Lazy("evidence", "agentmetrology.cli.evidence_cmd", "evidence_app",
         "Verify stores and qualify reports."),
    Lazy("cases", "agentmetrology.cli.cases_cmd", "cases_app",
         "Failure-derived cases: propose to withdraw."),
)


def build(entry: Lazy) -> Any:
    """Return the click command of `entry`, built as the root typer app would build it."""
    obj = getattr(importlib.import_module(entry.module), entry.attr)
    # The same settings as the root app (cli.main), so the command behaves as if registered
    # there: plain help (no rich markup), tracebacks not prettified.
    holder = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False,
                         add_completion=False)
    if isinstance(obj, typer.Typer):
        holder.add_typer(obj, name=entry.name, help=entry.help)
    else:
        holder.command(entry.name)(obj)
    return typer.main.get_group(holder).commands[entry.name]


class LazyCommands(MutableMapping[str, Any]):
    """The root group's `commands`: names known at once, each command built on first access."""

    def __init__(self, loaded: dict[str, Any], entries: tuple[Lazy, ...] = COMMANDS) -> None:
        self._entries = {e.name: e for e in entries}
        self._loaded = dict(loaded)
        self._order = [*self._entries, *(n for n in loaded if n not in self._entries)]

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            entry = self._entries.get(name)
            if entry is None:
                raise KeyError(name)
            self._loaded[name] = build(entry)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._order:
            self._order.append(name)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._order:
            raise KeyError(name)
        self._order.remove(name)
        self._loaded.pop(name, None)
        self._entries.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._order


class LazyRootGroup(PlainHelpGroup):
    """The `agm` group: PlainHelpGroup over the lazily built command table."""

    def __init__(self, *args: Any, commands: dict[str, Any] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.commands = LazyCommands(commands or {})
