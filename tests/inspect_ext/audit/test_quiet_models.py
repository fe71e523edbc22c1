"""Inspect's models are built without a word on stdout (where `--json` output goes)."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.inspect_ext.audit import run as inspect_run
from agentmetrology.inspect_ext.audit.run import Judge


def test_the_first_model_of_a_process_prints_no_hooks_banner(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Before, the first model Inspect built in a process printed "inspect_ai v... hooks
    # enabled: 1 ..." on stdout: `agm archive audit TAU2_FILE --json` with a cold do-nothing
    # memo wrote it above the JSON, which then did not parse.
    import rich
    from inspect_ai.hooks import _startup

    # Inspect prints through rich's global console; one made by an earlier test may hold that
    # test's stream: a fresh one writes to whatever sys.stdout is at the time, as in agm.
    monkeypatch.setattr(rich, "_console", None)
    # A hook is always "installed" here (whether this process loaded ours already or not), so
    # the banner is always due; the control shows it would be printed.
    monkeypatch.setattr(_startup, "init_legacy_hooks", lambda: ["a hook banner"])
    monkeypatch.setattr(_startup, "_registry_hooks_loaded", False)
    _startup.init_hooks()
    assert "a hook banner" in capsys.readouterr().out
    builders: list[Any] = [inspect_run._mock_model,
                           lambda: inspect_run._judge_model(Judge(model="m", base_url=
                                                                  "http://127.0.0.1:9/v1",
                                                                  api_key="k"))]
    for build in builders:
        monkeypatch.setattr(_startup, "_registry_hooks_loaded", False)
        build()
        assert capsys.readouterr().out == ""
