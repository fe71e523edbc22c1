"""The peer of benchmarks/llm_throughput.py: the same workload through Inspect AI.

The same task, tools and model replies through Inspect AI's openai provider with
max_connections = max_samples = N, on the server llm_throughput.py started. It runs in a child
process of its own (`llm_throughput.py --child inspect`), so that Inspect AI's imports (about
90,000 objects) do not make our process's garbage collection slower than a user's `agm` run.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextvars import ContextVar
from typing import Any

from agentmetrology.envs.comtrade import ComtradeEnv
from llm_server import Meter, ServerHandle
from llm_throughput import TASK

_ENV: ContextVar[ComtradeEnv] = ContextVar("comtrade_env")


def _inspect_task(samples: int) -> Any:
    """Return the Inspect task: one sample per seed, the three tools, the generate loop."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import solver
    from inspect_ai.tool import tool

    def call(name: str, **kwargs: Any) -> str:
        return json.dumps(_ENV.get().tools[name](**kwargs))

    @tool
    def fetch_page() -> Any:
        async def execute(page: int) -> str:
            """Fetch one page of records (1-indexed).

            Args:
                page: The page number.
            """
            return call("fetch_page", page=page)
        return execute

    @tool
    def get_task_info() -> Any:
        async def execute() -> str:
            """Return the task: id, description, query, constraints and budget."""
            return call("get_task_info")
        return execute

    @solver
    def extraction() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            _ENV.set(ComtradeEnv(TASK, state.metadata["seed"]))
            state.tools = [get_task_info(), fetch_page()]
            return await generate(state)
        return solve

    return Task(dataset=[Sample(input="Fetch the pages.", id=i, metadata={"seed": i})
                         for i in range(samples)], solver=extraction())


def inspect_run(server: ServerHandle, n: int, samples: int) -> dict[str, Any]:
    """Return Inspect AI's steps/s etc. on the same server, max_connections = max_samples = n."""
    try:
        import inspect_ai
        from inspect_ai import eval as inspect_eval
    except ImportError as exc:
        return {"available": False, "reason": f"inspect-ai not importable ({exc})"}
    os.environ["OPENAI_API_KEY"] = "bench-key-not-a-secret"

    def go(count: int, tmp: str) -> Any:
        return inspect_eval(_inspect_task(count), model="openai/zero",
                            model_base_url=server.base_url, model_args={"responses_api": False},
                            max_connections=n, max_samples=n,
                            log_dir=tmp, display="none")[0]

    with tempfile.TemporaryDirectory() as tmp:
        go(min(n, 4), tmp)  # warm up
        with Meter(server) as m:
            log = go(samples, tmp)
        lat = [e.working_time for s in log.samples or [] for e in s.events
               if getattr(e, "event", "") == "model" and e.working_time is not None]
        status = log.status
    if status != "success":
        raise RuntimeError(f"Inspect run ended {status}: {str(log.error)[-500:]}")
    return {"available": True, **m.result(lat, samples=samples, status=status),
            "version": inspect_ai.__version__}
