"""`agm export STORE --format inspect`: Inspect AI .eval logs that `inspect log dump` opens and
that `agm archive audit` reads back to the store's own pass counts, unmeasured kept unmeasured."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from run.campaign.campaign_fixtures import LLM_TARGET, model_free
from support.stores import record_into
from view.llm_store_fixtures import KEY, build_llm_store

AGM = Path(sys.executable).with_name("agm")  # the installed entry point, as a user runs it
INSPECT = Path(sys.executable).with_name("inspect")


def _agm(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGM), *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"}, timeout=300)


def _dump(path: Path) -> dict[str, Any]:
    """Return a log as Inspect itself reads it (`inspect log dump`)."""
    done = subprocess.run([str(INSPECT), "log", "dump", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # A score Inspect could not measure is written as a bare NaN token.
    return dict(json.loads(done.stdout, parse_constant=lambda c: math.nan))


def _exported(store: Path, out: Path) -> str:
    """Export `store` as Inspect logs into `out`; return the summary on stderr."""
    done = _agm("export", store, "--format", "inspect", "--out", out)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def llm_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root, _ = build_llm_store(tmp_path_factory.mktemp("inspect-export") / "s")
    return root


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Model-free targets at L0 and L2, and an LLM target whose endpoint is dead (every
    episode a measurement failure)."""
    root = tmp_path_factory.mktemp("inspect-export") / "mixed"
    dead = LLM_TARGET.format(name="dead-llm", base_url="http://127.0.0.1:9/v1",
                             key_env="AGM_TEST_KEY") + "max_retries = 0\n"
    text = model_free(tasks='["T3_duplicates"]', seeds="0-1") + dead
    os.environ["AGM_TEST_KEY"] = "sk-unused-0123456789"
    try:
        record_into(root, text)
    finally:
        os.environ.pop("AGM_TEST_KEY", None)
    return root


def test_llm_episode_exports_its_conversation_and_scores(llm_store: Path,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "logs"
    assert "exported 1 episode(s) as 1 Inspect log(s)" in _exported(llm_store, out)
    (log,) = sorted(out.glob("*.eval"))
    assert log.name == "tx_fake-llm_L2_clean.eval"
    doc = _dump(log)
    assert doc["eval"]["task"] == "agentmetrology/comtrade"
    assert doc["eval"]["task_args"] == {"level": "L2", "condition": "clean",
                                        "profile": "seeded"}
    assert doc["eval"]["model"] == "fake-llm"
    (sample,) = doc["samples"]
    assert (sample["id"], sample["epoch"]) == ("T3_duplicates:s0", 1)
    roles = [m["role"] for m in sample["messages"]]
    assert roles[:2] == ["system", "user"] and "tool" in roles
    assert sample["input"].startswith("Task T3_duplicates")
    calls = [c for m in sample["messages"] if m["role"] == "assistant"
             for c in m.get("tool_calls") or []]
    assert calls and all(isinstance(c["arguments"], dict) for c in calls)
    texts = [m["content"] for m in sample["messages"] if m["role"] == "assistant"]
    assert any("<calling>" in str(t) for t in texts)  # what the model said, kept
    tools = [m for m in sample["messages"] if m["role"] == "tool"]
    assert all(m["function"] for m in tools)  # each result names the call it answers
    assert KEY not in log.read_bytes().decode("latin-1")
    # The scores are the store's, under the names the Inspect extension gives them.
    rows = [json.loads(line) for line in _agm("export", llm_store).stdout.splitlines()]
    (row,) = rows
    got = sample["scores"]
    assert got["comtrade/ground_truth_f1"]["value"] == row["ground_truth_f1.score"]
    assert got["comtrade/shape_judge"]["value"] == row["shape_judge.score"]
    assert got["comtrade/ground_truth_f1"]["metadata"]["assessment_digest"] == \
        row["ground_truth_f1.digest"]
    meta = sample["metadata"]["agentmetrology"]
    assert meta["episode_digest"] == row["episode_digest"]


def _counts(archive_json: Path) -> Counter[tuple[str, str]]:
    """Return pass/fail/ungraded counts per model (summed over the audit's cells)."""
    doc = json.loads(archive_json.read_text())
    out: Counter[tuple[str, str]] = Counter()
    for cell in doc["coverage"]["cells"]:
        model = str(cell["cell"]).split(" / ")[0]
        for outcome, n in cell["counts"].items():
            out[(model, outcome)] += n
    return out


def test_round_trip_through_archive_audit_keeps_the_pass_counts(mixed_store: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "logs"
    summary = _exported(mixed_store, out)
    names = sorted(p.name for p in out.glob("*.eval"))
    assert names == [f"mf_{t}_{lv}_clean.eval" for t in
                     ("careful", "dead-llm", "keeps_totals", "rule") for lv in ("L0", "L2")]
    assert "dead-llm_L0_clean.eval: 2 sample(s), 2 unmeasured" in summary
    # The dead endpoint's episodes are errors, every score unscored (never a 0).
    doc = _dump(out / "mf_dead-llm_L0_clean.eval")
    for s in doc["samples"]:
        assert s["error"]["message"].startswith("infra_error")
        assert all(math.isnan(v["value"]) for v in s["scores"].values())
    (gt,) = [r for r in doc["results"]["scores"] if r["name"] == "comtrade/ground_truth_f1"]
    assert (gt["scored_samples"], gt["unscored_samples"], gt["metrics"]) == (0, 2, {})
    assert _agm("archive", "audit", mixed_store, "--out", tmp_path / "a").returncode == 0
    assert _agm("archive", "audit", out, "--out", tmp_path / "b").returncode == 0
    ours, back = _counts(tmp_path / "a" / "archive.json"), _counts(tmp_path / "b" / "archive.json")
    assert back == ours
    assert back[("dead-llm", "ungraded")] == 4 and back[("rule", "pass")] == 4


def test_refusals_are_one_line(mixed_store: Path, tmp_path: Path) -> None:
    no_out = _agm("export", mixed_store, "--format", "inspect")
    assert no_out.returncode == 2 and "give --out DIR" in no_out.stderr
    file = tmp_path / "f.eval"
    file.write_text("x")
    on_file = _agm("export", mixed_store, "--format", "inspect", "--out", file)
    assert on_file.returncode == 2 and "is a file" in on_file.stderr
    out = tmp_path / "logs"
    assert _agm("export", mixed_store, "--format", "inspect", "--out", out).returncode == 0
    before = {p: p.stat().st_mtime_ns for p in out.iterdir()}
    again = _agm("export", mixed_store, "--format", "inspect", "--out", out)
    assert again.returncode == 2 and "give --force" in again.stderr
    assert {p: p.stat().st_mtime_ns for p in out.iterdir()} == before  # nothing written
    assert _agm("export", mixed_store, "--format", "inspect", "--out", out,
                "--force").returncode == 0
    for done in (no_out, on_file, again):
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_same_store_exports_the_same_logs(mixed_store: Path, tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert _agm("export", mixed_store, "--format", "inspect", "--campaign", "mf",
                    "--out", tmp_path / name).returncode == 0
    for log in sorted((tmp_path / "a").glob("*.eval")):
        assert _dump(log) == _dump(tmp_path / "b" / log.name)


# targets whose names differ only where a file name cannot (`:`) or by case
SAME_SAFE_NAMES = "".join(
    ['[campaign]\nname = "coll"\ntasks = ["T3_duplicates"]\nseeds = "0-1"\nlevels = ["L2"]\n']
    + [f'[[targets]]\nname = "{name}"\nkind = "{kind}"\nagent = "{agent}"\n'
       for name, kind, agent in (("qwen2.5:7b", "scripted", "scripted:careful"),
                                 ("qwen2.5-7b", "scripted", "scripted:empty_submit"),
                                 ("Rule", "rule", "rule"),
                                 ("rule", "scripted", "scripted:empty_submit"))])


def test_targets_with_the_same_safe_name_get_a_log_each(tmp_path: Path) -> None:
    # `qwen2.5:7b` and `qwen2.5-7b` both made `coll_qwen2.5-7b_L2_clean.eval`: the second log
    # replaced the first (the summary said 8 episodes in 4 logs; 3 files held 6 episodes)
    store, out = tmp_path / "s", tmp_path / "logs"
    record_into(store, SAME_SAFE_NAMES)
    summary = _exported(store, out)
    assert "exported 8 episode(s) as 4 Inspect log(s)" in summary
    names = sorted(p.name for p in out.glob("*.eval"))
    # each name that two groups share gets the first 8 hex of its group's digest
    assert names == ["coll_Rule_L2_clean-04e616cf.eval", "coll_qwen2.5-7b_L2_clean-00e684c2.eval",
                     "coll_qwen2.5-7b_L2_clean-43ddfefe.eval", "coll_rule_L2_clean-049b20a0.eval"]
    by_model: dict[str, tuple[int, float]] = {}
    for name in names:
        doc = _dump(out / name)
        (gt,) = [r for r in doc["results"]["scores"] if r["name"] == "comtrade/ground_truth_f1"]
        by_model[doc["eval"]["model"]] = (len(doc["samples"]), gt["metrics"]["mean"]["value"])
        assert f"{out / name}: 2 sample(s)" in summary
    # careful passes both; empty_submit submits nothing at L2 (0.0) and the rule target passes
    assert by_model == {"qwen2.5:7b": (2, 1.0), "qwen2.5-7b": (2, 0.0), "Rule": (2, 1.0),
                        "rule": (2, 0.0)}


def test_an_export_stopped_midway_leaves_no_log_that_looks_complete(
        mixed_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A kill after some logs had been written left those logs under their names: `agm archive
    # audit DIR` read the subset with no sign of the missing ones. Every log is now moved into
    # place only after all were written; an interrupted export removes what it had written.
    from agentmetrology.inspect_ext.logs import export
    from agentmetrology.run.export import export_rows
    from agentmetrology.store import EvidenceStore

    out, seen = tmp_path / "logs", []
    real = export.write_eval_log

    def second_stops(log: Any, path: Path, **kw: Any) -> None:
        seen.append(sorted(p.name for p in out.glob("*.eval")))
        if len(seen) == 2:
            raise KeyboardInterrupt
        real(log, path, **kw)

    monkeypatch.setattr(export, "write_eval_log", second_stops)
    with (EvidenceStore.open_readonly(mixed_store, scrub_env=False) as st,
          pytest.raises(KeyboardInterrupt)):
        export.write_inspect_logs(st, export_rows(st, None), out)
    assert seen == [[], []]  # the first log was not in place when the second was written
    assert list(out.iterdir()) == []  # nor anything else after the interruption
