"""Audit targets by name: benchmarks the generic auditor probes, besides every environment.

`agm audit TARGET` looks TARGET up here first (`bfcl`), then among the registered environments.
A factory takes the command's target options (`category`, `limit`) and returns the target with
what its audit document records about it. A third-party package adds one with an entry point in
the group `agentmetrology.audit_targets` whose value is such a factory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentmetrology.audit.target import AuditTarget
from agentmetrology.runtime.registry import Registry


@dataclass(frozen=True)
class NamedTarget:
    """An audit target built by name, and the facts its audit document records about it."""

    target: AuditTarget
    extra: dict[str, Any] = field(default_factory=dict)


TargetFactory = Callable[..., NamedTarget]
AUDIT_TARGETS: Registry[TargetFactory] = Registry("audit target",
                                                  group="agentmetrology.audit_targets")
# Imported when asked for: the bfcl target reads the optional extra's files.
AUDIT_TARGETS.add_lazy("bfcl", "agentmetrology.audit.targets.bfcl:bfcl_target")
