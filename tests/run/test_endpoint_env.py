"""OPENAI_BASE_URL set beside an LLM that names no endpoint is refused before anything happens.

The HTTP clients never read the variable (agents/llm/lean.py endpoint_url): without --base-url
the requests would go to api.openai.com. `agm run` refuses it before its store is created (no
empty store left behind) and `agm diagnose --judge-model` before any judge call, in the one
line the campaign rule writes (run.campaign.config.check_environment), never printing the
variable's value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore
from diagnose.test_unrescorable import _store
from support.agm_runs import agm

SECRET = "http://secret-host.example/v1"
REFUSAL = ("error: --base-url: OPENAI_BASE_URL is set, but an endpoint is never taken from the "
           "environment: this target has no base_url, so its requests would go to "
           "api.openai.com; set base_url (agm run: --base-url) to the endpoint you mean, or "
           "unset OPENAI_BASE_URL")


@pytest.fixture(autouse=True)
def endpoint_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    # Were the refusal to regress, no request would leave this machine.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")


def _refused(args: list[str]) -> None:
    res = agm(*args)  # through main(), whose handler prints a UserError in one line
    assert res.returncode == 2, res.stderr
    assert " ".join(res.stderr.split()) == REFUSAL
    assert SECRET not in res.stdout + res.stderr


def test_agm_run_refuses_before_it_creates_its_store(tmp_path: Path) -> None:
    _refused(["run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--store",
              str(tmp_path / "s2")])
    assert not (tmp_path / "s2").exists()


def test_a_judge_without_base_url_is_refused_before_any_call(tmp_path: Path) -> None:
    store = _store(tmp_path / "s")
    _refused(["diagnose", str(store), "--out", str(tmp_path / "o"), "--judge-model", "m",
              "--judge-calls", "1"])
    assert not (tmp_path / "o").exists()
    st = EvidenceStore.open_readonly(store)
    try:
        assert st.grader_calls() == []
    finally:
        st.close()
