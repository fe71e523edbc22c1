"""The optional extras the adapters need, with one actionable line when one is missing."""

from __future__ import annotations

import importlib.util

from agentmetrology.records.errors import UserError


class MissingExtraError(UserError):
    """Raised when an adapter's framework is not installed."""


def require(module: str, extra: str, what: str) -> None:
    """Raise MissingExtraError naming the extra to install unless `module` can be imported."""
    if importlib.util.find_spec(module) is None:
        raise MissingExtraError(f"{what} needs the optional extra: pip install "
                                f"'agentmetrology[{extra}]'")
