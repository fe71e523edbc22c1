"""Parsing of CLI argument values that typer cannot check by itself (name lists, NaN, seeds)."""

from __future__ import annotations

import math

import typer

from agentmetrology.run.seeds import MAX_SEED


def split_nonempty_names(text: str) -> list[str]:
    """Return the non-empty comma-separated names of `text`, skipping empty ones."""
    return [p.strip() for p in text.split(",") if p.strip()]


def some_names(value: str | None) -> str | None:
    """Refuse a name list that names nothing, e.g. `--campaign ,` (a typer callback): an empty
    selection exported no row and exited 0, as if the store were empty."""
    if value is not None and not split_nonempty_names(value):
        raise typer.BadParameter(f"{value!r} names nothing; give NAME[,NAME], or leave the "
                                 "option out for all.")
    return value


def plain_zero(value: float | None) -> float | None:
    """Return a float option with -0.0 made 0.0 (a typer callback): `--tau -0` is zero, and
    kept negative it was printed as `-0.0` in the JSON and `Rel@-0` in the table."""
    return 0.0 if value == 0 else value


def finite(value: float | None) -> float | None:
    """Refuse a float option given as nan or inf, and make -0.0 0.0 (a typer callback):
    click's `min`/`max` let NaN through, since every comparison with it is false
    (`--tie-tolerance nan` reached a canonical encoder and ended in a traceback)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number.")
    return plain_zero(value)


def seed_value(value: int | None) -> int | None:
    """Refuse a seed, repeat or analysis seed outside 0 .. 2**63-1 (a typer callback): the
    ledger stores them as SQLite integers, and `cases propose --seed 2**64` ended in an
    OverflowError traceback; a callback keeps the option's help as it was."""
    if value is not None and not 0 <= value <= MAX_SEED:
        raise typer.BadParameter(f"{value} is outside 0 .. 2**63-1.")
    return value
