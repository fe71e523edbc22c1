"""The two archive-importer fixes our logs need, on a hand-written `.eval` log: attachment
references resolved before calls are compared, and an actor taken only where it was recorded."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from agentmetrology.archive.provenance import provenance_section
from agentmetrology.inspect_ext.logs.importer import load_inspect

LONG = "x" * 500


def _log(path: Path, events: list[dict[str, Any]], attachments: dict[str, str]) -> Path:
    header = {"status": "success",
              "eval": {"model": "mockllm/model", "task": "t", "run_id": "r", "solver": "s",
                       "scorers": [{"name": "sc"}], "dataset": {"sample_ids": ["a"]},
                       "config": {"epochs": 1}},
              "plan": {"steps": []}, "results": {"headline": {"scorer": "sc"}}}
    sample = {"id": "a", "epoch": 1, "scores": {"sc": {"value": 1.0}}, "events": events,
              "attachments": attachments}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        zf.writestr("samples/a_epoch_1.json", json.dumps(sample))
    return path


def _model(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"event": "model", "model": "mockllm/model",
            "output": {"choices": [{"message": {"tool_calls": [
                {"id": "c1", "function": name, "arguments": args}]}}]}}


def _tool(name: str, args: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    return {"event": "tool", "id": "t1", "function": name, "arguments": args, "result": "ok",
            **({"metadata": meta} if meta is not None else {})}


def test_an_attachment_reference_is_the_text_it_stands_for(tmp_path: Path) -> None:
    events = [_model("submit", {"data": LONG}),
              _tool("submit", {"data": "attachment://h1"}, {"actor": "agent"})]
    archive = load_inspect(_log(tmp_path / "a.eval", events, {"h1": LONG}))
    (ep,) = archive.episodes
    assert ep.events[0].args == {"data": LONG} and ep.events[0].actor == "agent"
    prov = provenance_section(archive)
    assert (prov["matched"], prov["candidates"]) == (1, 0)


def test_an_unresolvable_reference_stays_and_an_unknown_actor_is_none(tmp_path: Path) -> None:
    events = [_model("submit", {"data": LONG}),
              _tool("submit", {"data": "attachment://missing"}, {"actor": "wizard"})]
    archive = load_inspect(_log(tmp_path / "b.eval", events, {}))
    (ep,) = archive.episodes
    assert ep.events[0].args == {"data": "attachment://missing"}
    assert ep.events[0].actor is None  # only a known actor, and only when recorded
    assert provenance_section(archive)["candidates"] == 1


def test_tool_events_without_metadata_stay_unlabelled(tmp_path: Path) -> None:
    events = [_model("f", {"k": 1}), _tool("f", {"k": 1}, None)]
    archive = load_inspect(_log(tmp_path / "c.eval", events, {}))
    assert provenance_section(archive)["actor_labels"] == {"(unlabelled)": 1}
