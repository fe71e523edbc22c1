"""The peer of benchmarks/llm_throughput.py: the same workload through Inspect AI.

The same task, tools and model replies through Inspect AI's openai provider with
max_connections = max_samples = N, on the server llm_throughput.py started. It runs in a child
process of its own (`llm_throughput.py --child inspect`), so that Inspect AI's imports (tens of
thousands of objects) do not make our process's garbage collection slower than in `agm`.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from agentmetrology.envs.comtrade import ComtradeEnv
from harness import _ENV, _inspect_tools
from llm_server import Meter, ServerHandle
from llm_throughput import TASK


def _inspect_task(samples: int) -> Any:
    """Return the Inspect task: one sample per seed, the two L0 tools, the generate loop."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import solver

    @solver
    def extraction() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            _ENV.set(ComtradeEnv(TASK, state.metadata["seed"]))
            # benchmarks/harness.py's Inspect tools over the same context variable; at L0 the
            # model fetches pages and stops: get_task_info and fetch_page, no submit_results.
            state.tools = _inspect_tools()[:2]
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
