"""Serving environments to external agents (MCP), at the `run` layer: episodes are recorded."""

from agentmetrology.serve.mcp_server import (
    LevelNotServable,
    McpEpisode,
    build_server,
    check_level,
    record_episode,
    servable_levels,
    serve_http,
    serve_stdio,
)
from agentmetrology.serve.mcp_store import (
    AlreadyRecordedError,
    McpAdministration,
    SessionBusyError,
    StoreSession,
)

__all__ = [
    "AlreadyRecordedError",
    "LevelNotServable",
    "McpAdministration",
    "McpEpisode",
    "SessionBusyError",
    "StoreSession",
    "build_server",
    "check_level",
    "record_episode",
    "servable_levels",
    "serve_http",
    "serve_stdio",
]
