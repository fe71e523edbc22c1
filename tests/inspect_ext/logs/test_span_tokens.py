"""An Inspect model event's input tokens include the cache's reads and writes (as ours do)."""

from __future__ import annotations

from agentmetrology.archive.model import ArchiveEpisode
from agentmetrology.inspect_ext.logs.spans import model_span as _span


def _event(usage: dict[str, object]) -> dict[str, object]:
    return {"event": "model", "uuid": "u1", "model": "openai/m",
            "output": {"usage": usage}, "call": {"response": {"id": "r1"}}}


def test_cache_reads_and_writes_are_part_of_the_input() -> None:
    ep = ArchiveEpisode("e1", "t1", "openai/m")
    # Inspect's OpenAI provider reports prompt_tokens 1100 as input 600, read 400, written 100.
    span = _span(_event({"input_tokens": 600, "output_tokens": 20,
                         "input_tokens_cache_read": 400, "input_tokens_cache_write": 100,
                         "total_cost": 0.5}), ep, 0)
    assert (span.input_tokens, span.cached_tokens, span.output_tokens) == (1100, 400, 20)
    plain = _span(_event({"input_tokens": 600, "output_tokens": 20}), ep, 1)
    assert (plain.input_tokens, plain.cached_tokens) == (600, 0)


def test_a_cost_outside_the_range_is_malformed_and_nan_is_unknown() -> None:
    import pytest

    from agentmetrology.archive.importers.limits import Malformed

    ep = ArchiveEpisode("e1", "t1", "openai/m")
    for bad in (-1e308, -0.01, 1e308):
        with pytest.raises(Malformed, match="cost must be a number from 0 to"):
            _span(_event({"input_tokens": 1, "total_cost": bad}), ep, 0)
    assert _span(_event({"input_tokens": 1, "total_cost": float("nan")}), ep, 0).cost is None
    assert _span(_event({"input_tokens": 1, "total_cost": None}), ep, 0).cost is None


def test_an_event_without_token_counts_has_unknown_usage() -> None:
    ep = ArchiveEpisode("e1", "t1", "openai/m")
    assert _span(_event({"input_tokens": 6, "output_tokens": 2}), ep, 0).usage_known
    assert _span(_event({"input_tokens": 0, "output_tokens": 0}), ep, 0).usage_known
    for usage in ({}, {"input_tokens": 6}, {"output_tokens": 2}):
        assert not _span(_event(usage), ep, 0).usage_known
