"""Evidence masking: an evaluator-facing copy with required fields withheld.

The original evidence is never touched: masking deep-copies it and removes each withheld path
from the copy. A raw checker reading the copy turns a missing path into FAIL; the
completeness-aware gate (`records.contract.check`) turns it into UNKNOWN "withheld".
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from agentmetrology.records.contract import IDENTITY, has_path, overlaps
from agentmetrology.records.errors import UserError


class MaskError(UserError):
    """A mask path the evidence does not have, or one that would hide the identity."""


def check_mask(schema: Mapping[str, Any], paths: Sequence[str], where: str) -> None:
    """Raise MaskError (one line) unless every path spares the identity and starts at a
    top-level field of `schema` (deeper parts may depend on the execution)."""
    for p in paths:
        if overlaps(p, IDENTITY):
            raise MaskError(f"--mask {p!r}: the identity binds the evidence and cannot be "
                            "withheld")
        if not has_path(schema, p.split(".")[0]):
            raise MaskError(f"--mask {p!r}: the evidence of {where} has no such path; top "
                            f"level: {', '.join(sorted(schema))}")


def check_coverage(withheld_in: Mapping[str, int], where: str) -> None:
    """Raise MaskError (one line) for a mask path no execution's evidence had."""
    for p, n in withheld_in.items():
        if n == 0:
            raise MaskError(f"--mask {p!r}: no execution's evidence of {where} has this path")


def _remove(doc: Any, path: str) -> bool:
    parts = path.split(".")
    node = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    last = parts[-1]
    if isinstance(node, dict) and last in node:
        del node[last]
        return True
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        del node[int(last)]
        return True
    return False


def mask_evidence(doc: Mapping[str, Any], paths: Sequence[str]) -> tuple[dict[str, Any],
                                                                         tuple[str, ...]]:
    """Return a masked deep copy of `doc` and the paths actually withheld from it."""
    masked = copy.deepcopy(dict(doc))
    withheld = tuple(p for p in paths if _remove(masked, p))
    return masked, withheld
