"""The six tools' names, descriptions and JSON schemas.

Each description starts with a phrase no other description contains (`ROLE_PHRASES`), so an
agent that cannot find a tool by name (tools renamed by a mutation) can find it by what it does.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.records.tools import ToolSpec

SCALAR_TYPES = ["string", "number", "integer", "boolean", "null"]


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


ROLE_PHRASES: dict[str, str] = {
    "retrieve_document": "Return the full text of one project document",
    "read_config": "Return the experiment's current configuration",
    "edit_config": "Set one configuration key to a new value",
    "run_experiment": "Run the experiment with the current configuration",
    "inspect_logs": "Return the training and evaluation logs",
    "submit_report": "Submit the final report",
}

TOOL_SPECS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec("retrieve_document",
             ROLE_PHRASES["retrieve_document"] + " by name (the task lists the names). Each "
             "call spends one tool call of the budget.",
             _schema({"name": {"type": "string", "description": "a document name"}},
                     ("name",))),
    ToolSpec("read_config",
             ROLE_PHRASES["read_config"] + " as key-value pairs. Each call spends one tool "
             "call of the budget.", _schema({})),
    ToolSpec("edit_config",
             ROLE_PHRASES["edit_config"] + ". The key must exist and the value must keep the "
             "key's kind (number, boolean or string; a null key takes any). Each call spends "
             "one tool call of the budget.",
             _schema({"key": {"type": "string"}, "value": {"type": SCALAR_TYPES}},
                     ("key", "value"))),
    ToolSpec("run_experiment",
             ROLE_PHRASES["run_experiment"] + " and return its metrics (a seeded simulation). "
             "Each call spends one tool call of the budget.", _schema({})),
    ToolSpec("inspect_logs",
             ROLE_PHRASES["inspect_logs"] + " of the previous runs. Each call spends one tool "
             "call of the budget.", _schema({})),
    ToolSpec("submit_report",
             ROLE_PHRASES["submit_report"] + " with the evidence it cites (e.g. "
             "\"doc:<name>\", \"logs\", \"config\", \"experiment\"); ends the episode. Accepted "
             "once, also after the budget is spent.",
             _schema({"report": {"type": "string"},
                      "evidence": {"type": "array", "items": {"type": "string"}}},
                     ("report",))),
)}
