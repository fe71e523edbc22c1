"""Our episode's tool calls as Inspect tool events, each labelled with the actor that made it.

Our runner executes the tools (so the scaffold level decides what reaches them), which means
Inspect's own tool loop never sees a call. After the episode, every tool call of our record is
added to the sample's transcript as a `ToolEvent` whose metadata carries the actor (agent or
harness) and our sequence number, attached from the record, never inferred. An archive audit
of the log then compares the model's own calls (its model events) with these actions, so at L0
the harness's submission shows as an action no model call explains.
"""

from __future__ import annotations

import json

from inspect_ai.event import ToolEvent
from inspect_ai.log import transcript

from agentmetrology.records.canonical import to_plain
from agentmetrology.records.episode import Episode

ID_PREFIX = "agm-"  # tool event ids: agm-SEQ, our record's sequence number


def record_tool_events(episode: Episode) -> int:
    """Add one ToolEvent per tool call of `episode` to the current transcript; return the count."""
    added = 0
    for ev in episode.events:
        if ev.kind != "tool_call":
            continue
        args = to_plain(ev.args, tag_non_finite=True) if isinstance(ev.args, dict) else {}
        result = json.dumps(to_plain(ev.result, tag_non_finite=True), ensure_ascii=False,
                            sort_keys=True)
        # Inspect has no public call for an event its tool loop did not run; `_event` is how
        # its own components append one.
        transcript()._event(ToolEvent(
            id=f"{ID_PREFIX}{ev.seq}", function=ev.name, arguments=args, result=result,
            metadata={"actor": ev.actor, "seq": ev.seq, "source": "agentmetrology"}))
        added += 1
    return added
