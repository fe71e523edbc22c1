"""The environment registry: an environment registered in-process is found, runs, and is gone
once unregistered (`tests/envs/conformance/` finds the plug-in by its entry point instead)."""

from __future__ import annotations

import pytest

from agentmetrology.envs.registry import env_names, get_env, register, unregister
from agentmetrology.run.episode import run_one
from support.inspect_logs import PLUGIN_DIR


def test_in_process_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    import toy_sum

    register(toy_sum.SPEC)
    try:
        assert "toy_sum" in env_names() and get_env("toy_sum") is toy_sum.SPEC
        r = run_one(get_env("toy_sum"), "sum3", 0, "scripted:adder", "L2")
        assert r.assessment("exact").status == "PASS"
    finally:
        unregister("toy_sum")
    with pytest.raises(ValueError, match="unknown environment 'toy_sum'"):
        get_env("toy_sum")
