"""`campaign validate|run|status` through typer's CliRunner."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.run.campaign import toml_files
from run.campaign.campaign_fixtures import model_free, with_llm, write
from support.agm_runs import agm

runner = CliRunner()


def test_validate_ok_and_every_problem(tmp_path: Path) -> None:
    good = write(tmp_path, model_free())
    ok = runner.invoke(campaign_app, ["validate", str(good)])
    assert ok.exit_code == 0, ok.output
    assert "24 administrations" in ok.stdout
    bad = write(tmp_path, model_free().replace('kind = "rule"', 'kind = "llmm"')
                .replace('seeds = "0-1"', 'seeds = "x"'), "bad.toml")
    res = runner.invoke(campaign_app, ["validate", str(bad)])
    assert res.exit_code == 2
    assert "bad.toml:5: campaign.seeds: bad seed list 'x'" in res.stderr
    assert "targets[0].kind: unknown kind 'llmm' (expected rule, scripted, llm)" in res.stderr
    assert "2 problems; nothing was run" in res.stderr


def test_validate_warns_about_the_environment(tmp_path: Path) -> None:
    file = write(tmp_path, with_llm(model_free(), key_env="AGM_SURELY_UNSET_VAR"))
    res = runner.invoke(campaign_app, ["validate", str(file)], env={"AGM_SURELY_UNSET_VAR": ""})
    assert res.exit_code == 0
    assert "warning: targets[3].api_key_env: environment variable AGM_SURELY_UNSET_VAR" \
        in res.stderr
    run = runner.invoke(campaign_app, ["run", str(file), "--store", str(tmp_path / "s")],
                        env={"AGM_SURELY_UNSET_VAR": ""})
    assert run.exit_code == 2 and "nothing was run" in run.stderr
    assert not (tmp_path / "s").exists()


def test_run_then_status_json(tmp_path: Path) -> None:
    file = write(tmp_path, model_free(seeds="0"))
    store = tmp_path / "s"
    res = runner.invoke(campaign_app, ["run", str(file), "--store", str(store)])
    assert res.exit_code == 0, res.output
    assert "12 recorded this run" in res.stdout and "(complete)" in res.stdout
    assert "12/12" in res.stderr  # the progress bar's last frame: done of planned
    st = runner.invoke(campaign_app, ["status", "--store", str(store), "--json"])
    assert st.exit_code == 0
    doc = json.loads(st.stdout)["campaigns"][0]
    assert doc["complete"] and doc["total"]["planned"] == doc["total"]["done"] == 12
    assert doc["total"]["failed_infrastructure"] == 0 and doc["total"]["cost"] == 0.0
    assert set(doc["targets"]) == {"rule", "careful", "keeps_totals"}
    assert doc["scores"]["careful"]["ground_truth_f1"]["mean_score"] == 1.0
    table = runner.invoke(campaign_app, ["status", "--store", str(store)])
    assert "mf (complete): planned 12, done 12, failed 0 agent / 0 infrastructure" \
        in table.stdout


def test_user_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    # Through main(): a UserError raised anywhere is printed by its one handler.
    res = agm("campaign", "status", "--store", str(tmp_path / "none"))
    assert res.returncode == 2 and "no evidence store" in res.stderr
    file = write(tmp_path, model_free(seeds="0"))
    res = agm("campaign", "run", str(file), "--store", str(tmp_path / "s"), "--backend", "spark")
    assert res.returncode == 2 and "unknown backend 'spark'" in res.stderr
    runner.invoke(campaign_app, ["run", str(file), "--store", str(tmp_path / "s")])
    res = agm("campaign", "status", "--store", str(tmp_path / "s"), "--campaign", "other")
    assert res.returncode == 2 and "no campaign 'other'" in res.stderr
    changed = write(tmp_path, model_free(seeds="0-1"), "changed.toml")
    res = agm("campaign", "run", str(changed), "--store", str(tmp_path / "s"))
    assert res.returncode == 2 and "different plan" in res.stderr


def test_incomplete_campaign_exits_1(tmp_path: Path) -> None:
    text = with_llm(model_free(seeds="0"), key_env="AGM_TEST_KEY", limits="max_tokens = 1")
    file = write(tmp_path, text)
    store = tmp_path / "s"
    # Pre-spend the token budget with a recorded episode, so nothing LLM is launched.
    from agentmetrology.run.campaign import parse_campaign, plan_campaign
    from agentmetrology.store import EvidenceStore
    from support.stores import make_episode

    config = parse_campaign(text)
    plan = plan_campaign(config)
    with EvidenceStore.open(store, scrub_env=False) as st:
        st.register_campaign(config.name, plan.digest, config.to_json(), plan.bindings,
                             config.source)
        adm = next(a for a in st.pending(config.name) if a.key.target == "fake-llm")
        attempt = st.start_attempt(adm, None, "inline")
        from agentmetrology.envs.comtrade.scoring.ground_truth import GROUND_TRUTH_VERSION

        ep, scored = make_episode(adm.key, costs=(0.01,), version=GROUND_TRUTH_VERSION)
        st.record_episode(attempt, ep, scored)
    res = runner.invoke(campaign_app, ["run", str(file), "--store", str(store)],
                        env={"AGM_TEST_KEY": "k" * 20})
    assert res.exit_code == 1, res.output
    assert "stopped launching: budget: max_tokens 1 reached" in res.stderr
    assert "not launched (3): budget: max_tokens 1 reached" in res.stdout


def _in_thread(fn: Any) -> Any:
    """Run `fn` in a thread; a call still blocked after a minute fails instead of hanging."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the command blocked on its input"
    return out[0]


def test_validate_refuses_a_named_pipe_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "campaign.toml"
    os.mkfifo(fifo)
    res = _in_thread(lambda: runner.invoke(campaign_app, ["validate", str(fifo)]))
    assert res.exit_code == 2
    assert "is a named pipe, not a regular file" in " ".join(res.stderr.split())


def test_validate_refuses_a_file_over_the_limit_before_reading_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toml_files, "MAX_TOML_BYTES", 1000)
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"#" + b"x" * 5000)  # one line, no break: read whole by read_text before
    res = runner.invoke(campaign_app, ["validate", str(huge)])
    assert res.exit_code == 2
    assert "5,001 bytes is above the limit of 1,000 bytes" in " ".join(res.stderr.split())
