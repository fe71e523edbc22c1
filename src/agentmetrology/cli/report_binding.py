"""The evidence a diagnose or experiment report was built from, beside the report.

Their analysis files stay byte-identical across stores when the store qualifies (they carry no
digest then), so the binding `agm evidence qualify` checks is written next to them:
`evidence.json` with the store's evidence digest, chain length and result (docs/evidence.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import BINDING_FILE

BOUND_FIELDS = ("evidence_digest", "chain_length", "result")


def write_binding(out: Path, evidence: dict[str, Any]) -> None:
    """Write the evidence digest and chain length `evidence` names into `out`/evidence.json."""
    binding = {k: evidence.get(k) for k in BOUND_FIELDS}
    (out / BINDING_FILE).write_text(json.dumps(binding, indent=2, sort_keys=True) + "\n",
                                    encoding="utf-8")
