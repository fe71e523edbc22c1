"""The root command table: every `agm` command by name, its module imported only when it runs.

Importing every command module at start-up was a large share of a warm `agm campaign status`
(their imports compile many dataclasses and pull in numpy, starlette, asyncio ...). The
root group therefore knows each command by name and module and builds it on first use: running
one command imports that command's module alone; `agm --help` (and anything that walks the
group's `commands`) still sees every command, loaded then, in the order of `COMMANDS`.

`COMMANDS` is the command registry (runtime/registry.py): a third-party package adds a root
command with an entry point in the group `agentmetrology.commands` whose value is a typer app or
command function ("package.module:attr"), imported only when that command runs. A command whose
entry names `subcommands` (`agm audit`) also answers to `agm NAME SUB ...` for every command of
that second app: `agm audit TARGET` is one command, `agm audit inspect TASK` another.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer
import typer.main

from agentmetrology.cli.help_text import PlainHelpGroup
from agentmetrology.runtime.registry import Registry, UnknownNameError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


@dataclass(frozen=True)
class Lazy:
    """One root command: its name, the module and attribute that define it, its help line."""

    name: str
    module: str
    attr: str
    help: str | None = None  # a group's help line (a command's is its docstring)
    subcommands: str | None = None  # "module:attr" of a typer app also reached as `NAME SUB`


def _from_entry_point(ep: EntryPoint) -> Lazy:
    """Return a plug-in command's table entry; its module is imported when the command runs."""
    return Lazy(ep.name, ep.module, ep.attr)


COMMANDS: Registry[Lazy] = Registry("command", group="agentmetrology.commands",
                                    from_entry_point=_from_entry_point)
# The order of `agm --help`: commands first, then groups, as typer lists them.
for _entry in (
    Lazy("envs", "agentmetrology.cli.env_cmd", "envs_cmd"),
    Lazy("tasks", "agentmetrology.cli.env_cmd", "tasks_cmd"),
    Lazy("truth", "agentmetrology.cli.env_cmd", "truth_cmd"),
    Lazy("run", "agentmetrology.cli.env_cmd", "run_cmd"),
    Lazy("score", "agentmetrology.cli.env_cmd", "score_cmd"),
    Lazy("audit", "agentmetrology.cli.audit_cmd", "audit_cmd",
         subcommands="agentmetrology.cli.audit_inspect_cmd:inspect_app"),
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
):
    COMMANDS.add(_entry.name, _entry)


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


def _subgroup(entry: Lazy) -> Any:
    """Return the click group of `entry.subcommands`, as typer builds it (its own help style)."""
    module, _, attr = (entry.subcommands or "").partition(":")
    return typer.main.get_group(getattr(importlib.import_module(module), attr))


class LazyCommands(MutableMapping[str, Any]):
    """The root group's `commands`: names known at once, each command built on first access."""

    def __init__(self, loaded: dict[str, Any], entries: Registry[Lazy] = COMMANDS) -> None:
        self._registry = entries
        self._loaded = dict(loaded)
        builtins = entries.names(plugins=False)
        self._order = [*builtins, *(n for n in loaded if n not in builtins)]
        self._removed: set[str] = set()

    def _entry(self, name: str) -> Lazy:
        """Return the table entry of `name` (a plug-in's from its entry point) or KeyError."""
        if name in self._removed:
            raise KeyError(name)
        try:
            entry = self._registry.get(name)
        except UnknownNameError:
            raise KeyError(name) from None
        if name not in self._order:
            self._order.append(name)
        return entry

    def discover(self) -> None:
        """List the plug-in commands too (read from their entry points; for help)."""
        for name in self._registry.names():
            if name not in self._order and name not in self._removed:
                self._order.append(name)

    def subgroup(self, name: str, args: list[str]) -> Any:
        """Return the second app that answers `NAME SUB ...` when `args[0]` is one of its
        commands, else None."""
        if not args or name not in self._order or name in self._removed:
            return None
        entry = self._entry(name)
        if entry.subcommands is None:
            return None
        group = _subgroup(entry)
        return group if args[0] in group.commands else None

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            self._loaded[name] = build(self._entry(name))
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._order:
            self._order.append(name)
        self._removed.discard(name)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._order:
            raise KeyError(name)
        self._order.remove(name)
        self._loaded.pop(name, None)
        self._removed.add(name)

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
        self._table = LazyCommands(commands or {})
        self.commands = self._table

    def list_commands(self, ctx: Any) -> list[str]:
        """Return every command name, plug-ins included (help lists them)."""
        self._table.discover()
        return super().list_commands(ctx)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """Return (name, command, args); `agm audit inspect ...` resolves to the second app."""
        name, command, rest = super().resolve_command(ctx, args)
        sub = self._table.subgroup(name, rest) if name else None
        return (name, command, rest) if sub is None else (name, sub, rest)
