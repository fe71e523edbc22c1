"""The judge audit accounts for every planned original: judged, skipped (and why) or beyond
--judge-episodes.

An original with no episode, one that ended in a measurement failure and one its environment
cannot make again (a hand-edited store) were passed over without a count: the audit said how
many episodes it judged, never how many it had meant to. `judge_audit.originals` now says
planned, judged, skipped (by reason) and beyond the limit, in diagnose.json, report.md and the
terminal summary.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.records import EpisodeKey, Event
from support import stores
from support.fake_openai import FakeOpenAI, text

WHY = "not rescorable: its task is not a task of environment 'comtrade'"


def _store(root: Path) -> Path:
    """Plan four originals: one judgeable, one on a task comtrade lacks, one ending in an
    infra error and one never recorded."""
    keys = [EpisodeKey("c", "t", task, seed, "clean", "L2", 0)
            for task, seed in (("T1_single_page", 0), ("T0_not_a_task", 0),
                               ("T1_single_page", 1), ("T1_single_page", 2))]
    with stores.open_store(root) as st:
        st.register_campaign("c", "p" * 64, {"name": "c"}, stores.bindings(keys))
        run = st.begin_run("c", "inline")
        admitted = {a.key: a for a in st.pending("c")}
        for k, kind in zip(keys[:3], ("submitted", "submitted", "infra_error"), strict=True):
            events = [Event(0, "agent", "tool_call", "list_sources", {}, {"r": 1}, 0.1)]
            ep = stores.episode(k, kind, events=events,
                                sub=stores.submission() if kind == "submitted" else None)
            scored = [stores.assessment("ground_truth_f1", "FAIL", 0.0,
                                        detail={"f1_exact": 0.0})] if kind == "submitted" else []
            st.record_episode(st.start_attempt(admitted[k], run, "inline"), ep, scored)
        st.end_run(run, "done")
    return root


def _diagnose(store: Path, out: Path, *extra: str) -> tuple[dict[str, object], str]:
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 100)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(out),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1", *extra])
    assert res.exit_code == 0 and res.exception is None, res.output
    return json.loads((out / "diagnose.json").read_text())["judge_audit"], res.stdout


def test_skipped_originals_are_counted_with_their_reasons(tmp_path: Path) -> None:
    ja, stdout = _diagnose(_store(tmp_path / "s"), tmp_path / "o")
    reasons = {"a measurement failure (infra_error)": 1, "no episode recorded": 1, WHY: 1}
    assert ja["originals"] == {"planned": 4, "judged": 1, "skipped": 3,
                               "skipped_reasons": reasons, "beyond_limit": 0}
    assert ja["episodes"] == 1
    said = (f"1 of 4 planned original episodes judged, 3 skipped (a measurement failure "
            f"(infra_error) (1); no episode recorded (1); {WHY} (1)), 0 beyond --judge-episodes "
            "(not looked at)")
    assert f"judge originals: {said}" in " ".join(stdout.split())  # as wrapped or not
    assert f"Originals: {said}." in (tmp_path / "o" / "report.md").read_text()


def test_originals_past_the_limit_are_counted_not_looked_at(tmp_path: Path) -> None:
    ja, stdout = _diagnose(_store(tmp_path / "s"), tmp_path / "o", "--judge-episodes", "1")
    assert ja["originals"] == {"planned": 4, "judged": 1, "skipped": 0, "skipped_reasons": {},
                               "beyond_limit": 3}
    assert ("judge originals: 1 of 4 planned original episodes judged, 0 skipped, 3 beyond "
            "--judge-episodes (not looked at)") in " ".join(stdout.split())
