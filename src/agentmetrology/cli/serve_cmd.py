"""`agm serve mcp comtrade`: serve one ComtradeBench episode to an external MCP client;
`agm serve openenv ENV`: serve an environment as an OpenEnv server (docs/rl.md)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import typer

from agentmetrology.cli.args import seed_value
from agentmetrology.cli.env_cmd import env_arg
from agentmetrology.cli.errors import fail
from agentmetrology.run.adhoc import DEFAULT_STORE
from agentmetrology.serve.mcp_server import (
    DEFAULT_PORT,
    McpEpisode,
    check_level,
    serve_http,
    serve_stdio,
)
from agentmetrology.store import LedgerError

serve_app = typer.Typer(help="Serve environments to external agents.", no_args_is_help=True)


@serve_app.callback()
def _serve() -> None:
    """Serve environments to external agents (MCP, OpenEnv)."""
    # A callback keeps `mcp` a subcommand even while it is the only one.


@serve_app.command("mcp")
def serve_mcp(
    env: str = typer.Argument(..., help="Environment to serve, e.g. comtrade (agm envs)."),
    task: str = typer.Option(..., "--task", help="Task id, e.g. T3_duplicates."),
    seed: int = typer.Option(0, "--seed", min=0, callback=seed_value,
                              help="Seed of the episode."),
    level: str = typer.Option("L2", "--level", help="Scaffold level; only L2 can be served."),
    profile: str = typer.Option(None, "--profile", help="Data profile (default: the first)."),
    condition: str = typer.Option("clean", "--condition", help="clean | stress:..."),
    http: bool = typer.Option(False, "--http", help="Streamable HTTP on 127.0.0.1 instead of "
                                                    "stdio."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535,
                             help="Port for --http (bound to 127.0.0.1; 0: any free port)."),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Evidence store the episode is "
                                                              "recorded in."),
    out: Path | None = typer.Option(None, "--out", help="Also export the episode as canonical "
                                                        "JSON to this directory."),
    target: str = typer.Option("mcp-client", "--target", help="Name recorded for the client "
                                                              "under test."),
    repeat: int = typer.Option(0, "--repeat", min=0, callback=seed_value,
                                help="Repeat index: record another episode of the same "
                                     "task and seed."),
) -> None:
    """Expose an environment's tools over MCP; record and score the episode on submit."""
    spec = env_arg(env)
    spec.check_task(task)  # these raise UserErrors: the one handler prints them
    check_level(spec, level)
    spec.check_profile(profile or spec.profiles[0])
    try:
        episode = McpEpisode(spec, task, seed, store=store, out_dir=out, profile=profile,
                             condition=condition, level=level, target=target, repeat=repeat,
                             transport="http" if http else "stdio")
    except LedgerError as exc:  # e.g. a directory that is not a store (also an OSError)
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot open the evidence store at {store}: {exc}")
    # Ctrl-C is the way to stop an HTTP server; serve_* record the episode in `finally`.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_http(episode, port) if http else serve_stdio(episode))


@serve_app.command("openenv")
def serve_openenv(
    env: str = typer.Argument(..., help="Environment to serve, e.g. comtrade (agm envs)."),
    task: str = typer.Option(None, "--task", help="Default task of a reset (default: the "
                                                  "first)."),
    level: str = typer.Option(None, "--level", help="Default scaffold level of a reset "
                                                    "(default L2)."),
    seed: int = typer.Option(0, "--seed", min=0, callback=seed_value,
                              help="Default seed of a reset."),
    port: int = typer.Option(8000, "--port", min=0, max=65535,
                             help="Port on 127.0.0.1 (0: any free port)."),
) -> None:
    """Serve ENV as an OpenEnv environment on 127.0.0.1; reward = its outcome scorer."""
    spec = env_arg(env)
    from agentmetrology.adapters.openenv_env import serve

    # Unknown tasks or levels, a port in use or a missing extra are UserErrors: one line.
    with contextlib.suppress(KeyboardInterrupt):
        serve(spec.name, port=port, task=task, level=level, seed=seed,
              announce=lambda line: typer.echo(line, err=True))


if __name__ == "__main__":
    serve_app()
