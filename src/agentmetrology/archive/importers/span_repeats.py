"""Spans that two sources of one archive both record (an Inspect log copied into a directory
twice, a re-download beside the first, one log under two names): one span, folded as their
episodes are (`detect._fold_repeats`).

Two records are one span when their episodes are one episode (`model.repeat_key`: run, model,
scaffold, task, trial, Inspect task) and their span ids are equal (an Inspect model event's
uuid). A repeat that records the same span is skipped and counted; one that records it
otherwise (other token counts, cost, model...) leaves that span's usage and cost unknown and is
listed, as a repeated episode with another result is left ungraded: keeping the first made the
cost depend on the order of the files. Spans of distinct ids stay distinct billable events, and a
span one source repeats within itself is left to the cost check (`duplicate_span_ids`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields, replace

from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    LoadProblem,
    RepeatKey,
    TraceSpan,
    repeat_key,
)

SpanKey = tuple[RepeatKey | None, str]


def _usage_text(span: TraceSpan) -> str:
    tokens = (f"input {span.input_tokens}, output {span.output_tokens}, cached "
              f"{span.cached_tokens}" if span.usage_known else "no token counts")
    # repr: the shortest text that reads back as the same float (two costs printed alike
    # would hide the difference the problem is about)
    return f"{tokens}, cost {'unknown' if span.cost is None else repr(span.cost)}"


class SpanRepeats:
    """Adds each source's spans to one archive, folding those an earlier source recorded."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self._at: dict[SpanKey, int] = {}  # span -> its position in archive.spans
        self._conflicts: dict[int, str] = {}  # position -> why its records differ

    def add(self, source: str, episodes: Sequence[ArchiveEpisode],
            spans: Iterable[TraceSpan]) -> int:
        """Add one source's spans (its episodes name their episodes); return how many repeated
        an earlier source's and were folded into them."""
        keys = {ep.episode_id: repeat_key(ep) for ep in episodes}
        kept = self.archive.spans
        own: set[int] = set()
        folded = 0
        for span in spans:
            key = (keys.get(span.episode_id or ""), span.span_id)
            at = self._at.get(key)
            if at is None or at in own:  # a new span, or this source's own repeat: kept
                self._at.setdefault(key, len(kept))
                own.add(len(kept))
                kept.append(span)
                continue
            folded += 1
            why = self._merge(at, span)
            if why is not None:
                self.archive.problems.append(LoadProblem(source, None, (
                    f"span {span.span_id} of episode {span.episode_id} repeated, kept with "
                    f"unknown usage and cost: {why}")))
        if folded:
            self.archive.problems.append(LoadProblem(source, None, (
                f"{folded} span(s) repeated (the same span of the same episode as an earlier "
                "log's); skipped")))
        return folded

    def _merge(self, at: int, again: TraceSpan) -> str | None:
        """Fold `again` into the span kept at `at`: None when both say the same, else why they
        differ, with the kept span's usage and cost made unknown."""
        if at in self._conflicts:
            return self._conflicts[at]  # two records already differ: a third changes nothing
        kept = self.archive.spans[at]
        if kept == again:
            return None
        differ = [f.name for f in fields(TraceSpan)
                  if getattr(kept, f.name) != getattr(again, f.name)]
        why = (f"recorded twice with different {', '.join(differ)} ({_usage_text(kept)}; "
               f"{_usage_text(again)}): which one counts is not identified")
        self.archive.spans[at] = replace(kept, input_tokens=0, output_tokens=0, cached_tokens=0,
                                         cost=None, usage_known=False)
        self._conflicts[at] = why
        return why
