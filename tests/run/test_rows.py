"""Model-free and LLM runs come back the same way: rows of one shape, in request order."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from agentmetrology.run.adhoc import run_request
from agentmetrology.run.request import make_request
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

# What an LLM row adds: its spending, and the campaign that holds its episodes.
LLM_ONLY = {"cost", "input_tokens", "output_tokens", "model_attempts", "campaign"}


def _llm_rows(tmp_path: Path, **kw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        out = run_request(make_request("comtrade", agent="llm:fake", base_url=srv.base_url,
                                       max_retries=0, store=tmp_path / "s", **kw), seen.append)
    assert out.stopped is None and out.store == tmp_path / "s"
    assert out.campaign is not None and out.campaign.startswith("run-fake-")
    return out.rows, seen


def test_model_free_and_llm_rows_have_one_shape(tmp_path: Path) -> None:
    kw = {"task": "T3_duplicates,T4_rate_limit_429", "seeds": "0-1", "repeats": 2}
    seen: list[dict[str, Any]] = []
    free = run_request(make_request("comtrade", agent="scripted:careful", **kw), seen.append)
    llm, llm_seen = _llm_rows(tmp_path, **kw)
    assert free.rows == seen and llm == llm_seen  # every row reaches on_row, in order
    assert free.store is None and free.campaign is None and free.stopped is None
    order = [(r["task"], r["seed"], r["repeat"]) for r in free.rows]
    assert order == [(r["task"], r["seed"], r["repeat"]) for r in llm] == [
        (t, s, k) for t in ("T3_duplicates", "T4_rate_limit_429") for s in (0, 1)
        for k in (0, 1)]
    for f, m in zip(free.rows, llm, strict=True):
        assert [k for k in m if k not in LLM_ONLY] == list(f)  # same keys, same order
        assert set(m) - set(f) == LLM_ONLY
        for scorer in ("ground_truth", "judge"):
            assert set(m[scorer]) == set(f[scorer])
        assert (m["environment"], m["profile"], m["level"], m["condition"]) == (
            f["environment"], f["profile"], f["level"], f["condition"])
        assert m["agent"] == "llm:fake" and f["agent"] == "scripted:careful"
        assert m["ground_truth"]["f1"] == f["ground_truth"]["f1"] == 1.0


def test_a_resumed_llm_run_returns_the_same_rows_without_a_request(tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(careful_model, 50)) as srv:
        request = make_request("comtrade", task="T1_single_page", agent="llm:fake",
                               base_url=srv.base_url, max_retries=0, store=tmp_path / "s")
        first = run_request(request).rows
        sent = len(srv.requests)
        again = run_request(request).rows  # everything is recorded: nothing runs again
        assert len(srv.requests) == sent > 0
    assert again == first and len(first) == 1 and "repeat" not in first[0]
