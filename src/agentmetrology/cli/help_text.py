"""Help text in the usual CLI style: `--task TASK`, not typer's `--task <str>` placeholders.

Typer shows a value's Python type (`<str>`, `<int range>`, `<path>`) where command lines
traditionally show a name. Every parameter without an explicit metavar gets its own name in
capitals, a choice its choices; the root group applies this to every command it hands out, so
commands need not repeat a metavar on each option.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup


def plain_metavars(command: Any) -> Any:
    """Give every value parameter of `command` (and its subcommands) a named metavar."""
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":
            # Typer prints an argument's type after its name (`ENV <str>`); the name says it.
            param.display_type_rich = _no_type
        if param.metavar is not None:
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        desc = getattr(param, "type_descriptor", None)
        if desc is not None and desc.is_choice and desc.choices:
            param.metavar = "|".join(str(getattr(c, "value", c)) for c in desc.choices)
        else:
            param.metavar = (param.name or "value").upper()
    for sub in (getattr(command, "commands", None) or {}).values():
        plain_metavars(sub)
    return command


def _no_type(ctx: Any) -> None:
    return None


class PlainHelpGroup(TyperGroup):
    """The root group: every command it resolves shows named metavars in its help."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Return the subcommand `cmd_name` with plain metavars (None if unknown)."""
        cmd = super().get_command(ctx, cmd_name)
        return None if cmd is None else plain_metavars(cmd)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Format the root help with plain metavars."""
        plain_metavars(self)
        super().format_help(ctx, formatter)
