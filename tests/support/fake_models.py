"""Fake models for the fake OpenAI server: policies that read the tool results they are sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentmetrology.envs.comtrade.generator import is_totals_row
from support.fake_openai import Reply, tool_calls, usage


def _history(body: dict[str, Any]) -> list[tuple[tuple[str, dict[str, Any]], dict[str, Any]]]:
    """Return ((tool, args), result) pairs, pairing each result with its call by tool_call_id."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    out = []
    for m in body["messages"]:
        for tc in m.get("tool_calls") or []:
            calls[tc["id"]] = (tc["function"]["name"], json.loads(tc["function"]["arguments"]))
        if m["role"] == "tool":
            out.append((calls[m["tool_call_id"]], json.loads(m["content"])))  # KeyError: bad id
    return out


def careful_model(body: dict[str, Any]) -> Reply:
    """A fake model that reads the tool results it is sent and acts like a careful agent."""
    history = _history(body)
    use = usage(1000, 50, cached=400)
    call_id = f"call_{len(history)}"
    if not history:
        return tool_calls(("get_task_info", {}, call_id), use=use)
    (name, args), obs = history[-1]
    if name == "fetch_page" and "rows" not in obs:
        return tool_calls(("fetch_page", args, call_id), use=use)  # retry the failed page
    if name == "get_task_info" or obs.get("has_more"):
        page = 1 if name == "get_task_info" else args["page"] + 1
        return tool_calls(("fetch_page", {"page": page}, call_id), use=use)
    rows: dict[str, dict[str, Any]] = {}
    for (tool, _), result in history:
        for row in result.get("rows", []) if tool == "fetch_page" else []:
            if not is_totals_row(row):
                rows.setdefault(row["record_id"], row)
    submit = {"data_jsonl": "\n".join(json.dumps(r) for r in rows.values()),
              "metadata_json": json.dumps({"row_count": len(rows)}),
              "run_log": "complete=true"}
    return tool_calls(("submit_results", submit, call_id), use=use)


def reporting(use: dict[str, Any]) -> Callable[[dict[str, Any]], Reply]:
    """Return the careful fake model with every response's usage block replaced by `use` (an
    endpoint that reports token counts of its own)."""

    def model(body: dict[str, Any]) -> Reply:
        reply = careful_model(body)
        reply["body"]["usage"] = use
        return reply

    return model
