"""The README rows of benchmarks/transcript_bytes.py (read by benchmarks/table.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def transcript_bytes(doc: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Rows of benchmarks/transcript_bytes.py: bytes a transcript adds per LLM episode."""
    mach = f"{doc.get('machine', '?')}, py {doc.get('python', '?')}"
    for c in doc["cases"]:
        m = c["median"]
        yield {"benchmark": "transcript_bytes",
               "measure": f"transcript bytes per LLM episode, {c['task']} at {c['level']} "
                          f"({m['requests']:.0f} requests; median of {c['episodes']}: document "
                          f"{m['document']:,.0f} + new message blobs {m['new_blobs']:,.0f}; "
                          f"the episode blob itself {m['episode']:,.0f}; first episode "
                          f"{c['first_episode_transcript']:,})",
               "ours": f"{m['transcript']:,.0f}",
               "peer": f"every request stored whole {m['whole_requests']:,.0f}",
               "ratio": f"{m['whole_requests'] / m['transcript']:.1f}x less",
               "goal": "", "machine": mach,
               "command": "`python benchmarks/transcript_bytes.py`"}
