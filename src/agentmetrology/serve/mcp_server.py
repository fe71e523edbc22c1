"""Serve one episode of any registered environment to an external MCP client (stdio or HTTP).

The tools are the in-process tools, with the same names, descriptions and JSON schemas,
executed through the Recorder with actor "agent": the client (an IDE agent, a desktop
assistant, another harness) owns every decision, which is why only a level without a harness
(L2) can be served. When the client submits, the episode is scored with every scorer of the
environment (for ComtradeBench: ground-truth F1 and the shape judge) and recorded in the
evidence store (see `mcp_store`), and optionally exported as canonical JSON; a client that
goes away after using the tools without submitting is recorded too, so no administration
silently disappears. One server process serves one episode; after it
is recorded every tool answers with an error saying so.

The HTTP transport binds to 127.0.0.1 only: the environment is a measurement instrument, not a
public service. Every request passes `edges.http_guard` first (Host one of the loopback names,
Origin exactly this server's own, a body of at most MAX_BODY_BYTES), and the SDK's own
DNS-rebinding protection stays on behind it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmetrology.edges import http_guard
from agentmetrology.edges.listen import bind
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import canonical_json, digest
from agentmetrology.records.clock import Clock, RealClock
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode, Termination, Usage
from agentmetrology.records.errors import UserError
from agentmetrology.records.tools import Observation
from agentmetrology.run.episode import make_env
from agentmetrology.runtime.recorder import Recorder
from agentmetrology.scoring.episode import score_episode
from agentmetrology.serve.mcp_store import McpAdministration, StoreSession
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.redact import Redactor, env_secrets

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

LEVEL_REASON = (
    "an external MCP client owns every decision and no harness sits between it and the tools, "
    "which is scaffold level L2 by definition; levels where the harness owns decisions need "
    "an in-process agent: use `agm run {env} --level {level}`"
)
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8765
RECORDED_ERROR = "this episode is already recorded ({where}); start a new server for a new episode"


class LevelNotServable(UserError):
    """Raised for a scaffold level an external MCP client cannot be measured at."""


def servable_levels(spec: EnvSpec) -> tuple[str, ...]:
    """Return the levels of `spec` an external client can be measured at (no harness)."""
    return tuple(lv for lv in spec.levels if lv not in spec.harness)


def check_level(spec: EnvSpec, level: str) -> None:
    """Raise LevelNotServable unless `level` can be served to an external client."""
    if level not in servable_levels(spec):
        raise LevelNotServable(f"level {level} cannot be served over MCP: "
                               + LEVEL_REASON.format(env=spec.name, level=level))


def record_episode(episode: Episode, assessments: Sequence[Assessment],
                   out_dir: str | Path, redact: Callable[[bytes], bytes] | None = None) -> Path:
    """Write the episode and its assessments as canonical JSON under `out_dir`; return the path.

    Secrets are redacted as the evidence store redacts them (`redact`, by default credential
    patterns and credential-named environment variables), so `episode_digest` is the digest of
    the episode blob the store holds. The file is named by task, seed and that digest, written
    to a temporary file and renamed: a reader never sees half a record and a rerun never
    overwrites another episode.
    """
    # Encoded and cleaned as the store does, so a redacted submission's new digest is the one
    # the episode and its assessments name here too.
    ev = EpisodeEvidence.from_records(episode, assessments).cleaned(
        redact or Redactor(env_secrets()).bytes)
    ep_digest = hashlib.sha256(ev.body).hexdigest()
    record = {"episode": json.loads(ev.body), "episode_digest": ep_digest,
              "assessments": [json.loads(a.body) for a in ev.assessments]}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{episode.task}-seed{episode.seed}-{ep_digest[:16]}.json"
    fd, tmp = tempfile.mkstemp(prefix=".episode-", suffix=".tmp", dir=out)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(canonical_json(record))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class McpEpisode:
    """One served episode: executes tool calls as the agent, then scores and records it."""

    def __init__(self, spec: EnvSpec, task_id: str, seed: int, *,
                 store: str | Path | None = None, out_dir: str | Path | None = None,
                 profile: str | None = None, condition: str = "clean", level: str = "L2",
                 target: str = "mcp-client", repeat: int = 0, transport: str = "stdio",
                 clock: Clock | None = None) -> None:
        check_level(spec, level)
        if store is None and out_dir is None:
            raise ValueError("an MCP episode needs somewhere to be recorded: a store or out_dir")
        self.spec = spec
        prof = profile or spec.profiles[0]
        self.env = make_env(spec, task_id, seed, prof, condition)
        self.adm = McpAdministration(task_id, seed, prof, self.env.condition, level, target,
                                     repeat, spec.name)
        self.level = level
        self.target = target
        self.transport = transport
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.rec = Recorder(self.env, clock or RealClock())
        self.client_info: dict[str, Any] | None = None
        # Every other client (name, version) that called a tool: over HTTP any client on this
        # machine can reach the server, and MCP's 2026 protocol has no session to tell them
        # apart by, so their calls are this episode's; the record names who made them.
        self.other_clients: list[dict[str, Any]] = []
        self.path: Path | None = None  # the JSON export, when out_dir is given
        self.recorded: str | None = None  # where the episode went, once recorded
        # Opened last: the bindings are sealed only for an episode that can actually be served.
        self.session = None if store is None else StoreSession.open(store, self.adm)

    def call(self, name: Any, args: Any) -> Observation:
        """Execute one tool call for the client (a name or arguments of the wrong type are
        recorded and refused by the recorder); record and score the episode on submission."""
        if self.recorded is not None:
            return {"error": RECORDED_ERROR.format(where=self.recorded)}
        if self.session is not None:
            self.session.begin()  # the client's first call starts the attempt
        obs = self.rec.call("agent", name, args)
        if self.env.submitted is not None:
            self.finish()
        return obs

    def seen_client(self, info: dict[str, Any] | None) -> None:
        """Note the client (name, version) making a call: the first is the episode's client."""
        if self.recorded is not None or info is None:
            return
        if self.client_info is None:
            self.client_info = info
        elif info != self.client_info and info not in self.other_clients:
            self.other_clients.append(info)

    def termination(self) -> Termination:
        """Return how the episode stands: submitted, budget spent, or the client went away."""
        if self.env.submitted is not None:
            return Termination("submitted", f"submitted by an MCP client over {self.transport}")
        if self.env.budget_exhausted:
            return Termination("budget_exhausted", "request budget spent without a submission")
        return Termination("agent_error", "the MCP client disconnected without submitting")

    def episode(self) -> Episode:
        """Return the episode record as it stands."""
        env, key = self.env, self.adm.key
        sub = env.submitted
        served: dict[str, Any] = {"protocol": "mcp", "transport": self.transport,
                                  "client": self.client_info}
        if self.other_clients:  # only then: a one-client record stays as it always was
            served["other_clients"] = list(self.other_clients)
        return Episode(
            key=key, target=self.target, task=env.task_id, seed=key.seed, condition=env.condition,
            level=self.level, events=list(self.rec.events), submission=sub,
            termination=self.termination(),
            usage=Usage(tool_calls=self.rec.tool_calls, requests=env.requests_used),
            digests={"submission": digest(sub)} if sub is not None else {},
            meta={"environment": self.spec.name, "profile": env.profile, "agent": self.target,
                  "ownership": self.spec.ownership_of(self.level),
                  "served_over": served,
                  # The client's own model calls are invisible to the server: no attempts,
                  # so cost is unknown here, not zero.
                  "usage_note": "model usage and cost belong to the MCP client; not observed"},
        )

    def finish(self) -> str:
        """Score and record the episode (once); return where it was recorded."""
        if self.recorded is not None:
            return self.recorded
        ep = self.episode()
        assessments = list(score_episode(self.spec, ep))
        where = []
        if self.session is not None:
            self.session.record(ep, assessments)
            root = self.session.store.root
            where.append(f"evidence store {root}, campaign {self.adm.campaign} (inspect with "
                         f"`agm campaign status --store {root} --campaign {self.adm.campaign}`)")
        if self.out_dir is not None:
            redact = None if self.session is None else self.session.redact
            self.path = record_episode(ep, assessments, self.out_dir, redact)
            where.append(str(self.path))
        self.recorded = "; ".join(where)
        scores = ", ".join(f"{a.scorer} {a.score}" for a in assessments)
        print(f"agm: episode recorded in {self.recorded} ({ep.termination.kind}; {scores})",
              file=sys.stderr)
        return self.recorded

    def close(self) -> str | None:
        """Record an unsubmitted episode when the client leaves after using the tools; end."""
        try:
            if self.recorded is None and self.rec.tool_calls > 0:
                self.finish()
        finally:
            if self.session is not None:
                self.session.close()
        return self.recorded

    def instructions(self) -> str:
        """Return the server instructions an MCP client may show its model."""
        task = self.spec.tasks[self.env.task_id]
        if self.spec.prompts is None:  # an environment without prompts is described only
            return self.spec.description
        # No step limit is enforced over MCP, so none is stated (max_steps 0).
        return f"{self.spec.description}\n\n{self.spec.prompts.task_message(task, self.level, 0)}"


def _client_info(ctx: Any) -> dict[str, Any] | None:
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    if info is None:
        return None
    return {"name": str(getattr(info, "name", "")), "version": str(getattr(info, "version", ""))}


# A tools/call the protocol layer would refuse before our handler (arguments that are not an
# object, a name that is not text or none at all): its raw name and arguments, for the handler.
_RAW_CALL: ContextVar[tuple[Any, Any] | None] = ContextVar("agm_mcp_raw_call", default=None)
MALFORMED_NAME = "agm-malformed-call"  # the name the rewritten request carries past validation


def _malformed(params: Mapping[str, Any]) -> bool:
    """Return True for tools/call params the SDK's validation would refuse as a whole."""
    args = params.get("arguments")
    return type(params.get("name")) is not str or not (args is None or isinstance(args, dict))


async def keep_malformed_calls(ctx: Any, call_next: Any) -> Any:
    """Server middleware: pass a malformed tools/call on as a valid one carrying nothing, its
    raw name and arguments beside it, so the episode records what was sent and the client gets
    the error observation (the SDK would answer -32602 and nothing would be recorded)."""
    params = ctx.params
    if ctx.method != "tools/call" or not isinstance(params, Mapping) or not _malformed(params):
        return await call_next(ctx)
    args = params.get("arguments")  # absent: no arguments, as the SDK reads it
    token = _RAW_CALL.set((params.get("name"), {} if args is None else args))
    try:
        return await call_next(replace(ctx, params={**params, "name": MALFORMED_NAME,
                                                    "arguments": {}}))
    finally:
        _RAW_CALL.reset(token)


def build_server(episode: McpEpisode) -> Server[Any]:
    """Return a low-level MCP server exposing the episode's tools with their exact schemas."""
    from mcp import types
    from mcp.server.lowlevel import Server

    specs = [tool.spec for tool in episode.env.tools.values()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=s.name, description=s.description, input_schema=s.parameters)
            for s in specs])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        episode.seen_client(_client_info(ctx))  # before the call: it may record the episode
        raw = _RAW_CALL.get()
        # A malformed call goes to the recorder as sent: it records it and refuses it.
        obs = episode.call(params.name, dict(params.arguments or {})) if raw is None else \
            episode.call(raw[0], raw[1])
        # Tool errors are observations the agent must see (is_error marks them for clients).
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(obs, ensure_ascii=False))],
            structured_content=obs, is_error="error" in obs)

    from agentmetrology import __version__

    serving = episode.spec.serving
    name = (serving.name if serving else "") or f"agentmetrology-{episode.spec.name}"
    server: Server[Any] = Server(name, version=__version__, instructions=episode.instructions(),
                                 on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(keep_malformed_calls)  # innermost: after the SDK's own tracing
    return server


async def serve_stdio(episode: McpEpisode) -> None:
    """Serve the episode over stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    server = build_server(episode)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        episode.close()


async def serve_http(episode: McpEpisode, port: int = DEFAULT_PORT) -> None:
    """Serve the episode over streamable HTTP at http://127.0.0.1:PORT/mcp until stopped
    (port 0: any free port, announced on stderr)."""
    import uvicorn

    try:
        # Bound before announcing: a port in use is a PortError (one line), not a "serving"
        # line followed by uvicorn's log and exit code.
        sock = bind(LOOPBACK, port)
    except BaseException:
        episode.close()
        raise
    port = sock.getsockname()[1]  # the one bound: --port 0 picks a free one
    server = build_server(episode)
    limit = http_guard.MAX_BODY_BYTES  # read at call time: a test may lower it
    app = http_guard.HttpGuard(server.streamable_http_app(host=LOOPBACK,
                                                          max_request_body_size=limit),
                               hosts=http_guard.LOOPBACK_NAMES, port=port, max_body=limit)
    print(f"agm: serving {episode.env.task_id} over MCP at http://{LOOPBACK}:{port}/mcp",
          file=sys.stderr)
    try:
        await uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve(sockets=[sock])
    finally:
        sock.close()
        episode.close()
