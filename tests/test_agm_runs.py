"""tests/support/agm_runs.py keeps the promises its callers rely on: a bounded wait, and a batch
whose every command finds environments afresh."""

from __future__ import annotations

import inspect

from agentmetrology.envs import registry
from support import agm_runs


def test_in_process_commands_wait_as_long_as_the_subprocesses_they_replaced() -> None:
    assert inspect.signature(agm_runs.run_main).parameters["timeout"].default == \
        agm_runs.DEFAULT_TIMEOUT == 300.0


def test_a_batch_forgets_the_environments_the_last_command_loaded() -> None:
    registry.get_env("comtrade")
    assert "comtrade" in registry.ENV_REGISTRY._loaded
    agm_runs._forget_loaded_environments()
    assert registry.ENV_REGISTRY._loaded == {}
    assert registry.get_env("comtrade").name == "comtrade"  # found again by its target
