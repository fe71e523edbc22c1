"""Serving environments to external agents (MCP), at the `run` layer: episodes are recorded."""

from agentmetrology.serve.mcp_server import (
    SERVABLE_LEVELS,
    LevelNotServable,
    McpEpisode,
    build_server,
    check_level,
    record_episode,
    serve_http,
    serve_stdio,
)

__all__ = [
    "SERVABLE_LEVELS",
    "LevelNotServable",
    "McpEpisode",
    "build_server",
    "check_level",
    "record_episode",
    "serve_http",
    "serve_stdio",
]
