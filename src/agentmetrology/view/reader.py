"""What the viewer adds to the store's reader: termination wording and JSON shown as text.

Every read goes through `store.reader.StoreReader` (read-only, never writing the store).
"""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.records.episode import MEASUREMENT_FAILURES


def is_measurement_failure(termination: str | None) -> bool:
    """Return True when a termination says nothing about the agent."""
    return termination in MEASUREMENT_FAILURES


def pretty_json(value: Any) -> str:
    """Return indented JSON text of a value (non-finite floats as their names)."""
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, default=str)
