"""A small evidence store, audit dir and archive audit built by hand for the viewer tests."""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path
from typing import Any

from agentmetrology.records import (
    Assessment,
    BillableAttempt,
    Episode,
    EpisodeKey,
    Event,
    Usage,
)
from agentmetrology.view.source import Source
from support import stores

CAMPAIGN = "viewtest"
# Written to the store in the clear (the store only scrubs what it was told); the viewer is
# given it as a credential-named environment variable and must never show it.
SECRET = "VIEWSECRETvalue12345"
RULE_SEEDS = 60  # more than one index page (50 per page)


def key(target: str, seed: int, level: str = "L2") -> EpisodeKey:
    """Return the key of one administration of the test campaign."""
    return stores.episode_key(seed, CAMPAIGN, target, level=level)


def _llm_episode(k: EpisodeKey) -> tuple[Episode, list[Assessment]]:
    events = [
        Event(0, "agent", "tool_call", "get_task_info", {}, {"description": "dedup"}, 0.1),
        Event(1, "agent", "tool_call", "fetch_page", {"page": 1},
              {"status": 429, "error": "rate limited"}, 0.2),
        Event(2, "harness", "decision", "retry", {"page": 1}, "RETRY", 0.25),
        Event(3, "agent", "tool_call", "fetch_page", {"page": 1},
              {"rows": [{"record_id": "r1"}], "has_more": False}, 0.3),
        Event(4, "environment", "note", "log", {}, f"debug dump {SECRET}", 0.35),
        Event(5, "harness", "tool_call", "submit_results", {"data_jsonl": "{\"record_id\":"
                                                           "\"r1\"}"}, {"ok": True}, 0.4),
        Event(6, "grader", "tool_call", "grade_submission", {"rows": 1}, {"f1": 1.0}, 0.5),
    ]
    attempts = [BillableAttempt("b0", "fake", "model-x", "req-0", 120, 30, 0, 0.002, 0.4, "ok"),
                BillableAttempt("b1", "fake", "model-x", "req-1", None, None, None, None, 60.0,
                                "timeout")]
    sub = {"data_jsonl": "{\"record_id\":\"r1\"}", "metadata_json": "{}", "run_log": "done"}
    ep = stores.episode(k, events=events, sub=sub, usage=Usage(3, 2, attempts))
    return ep, [stores.assessment("ground_truth_f1", "PASS", 1.0, detail={"f1": 1.0}),
                stores.assessment("shape_judge", "PARTIAL", 80.0,
                                  reasons=("run log lacks retry lines",))]


def _simple(k: EpisodeKey, kind: str, status: str, score: float | None,
            reasons: tuple[str, ...] = (), detail: str = "") -> tuple[Episode, list[Assessment]]:
    ep = stores.episode(k, kind, events=[Event(0, "agent", "tool_call", "get_task_info", {}, {},
                                              0.0)],
                        sub=stores.submission() if kind == "submitted" else None, detail=detail,
                        usage=Usage(1, 0, []))
    return ep, [stores.assessment("ground_truth_f1", status, score, reasons=reasons)]


def build_store(root: Path) -> Path:
    """Write the test store: an LLM target with every kind of outcome, and a rule target."""
    llm = [key("llm-a", s) for s in range(5)]
    rule = [key("rule", s, "L0") for s in range(RULE_SEEDS)]
    keys = llm + rule
    binds = stores.bindings(keys)
    with stores.open_store(root) as st:
        st.register_campaign(CAMPAIGN, "p" * 64, {"name": CAMPAIGN}, binds)
        run = st.begin_run(CAMPAIGN, "inline")
        adm = {a.key: a for a in st.pending(CAMPAIGN)}

        def record(k: EpisodeKey, pair: tuple[Episode, list[Assessment]]) -> None:
            st.record_episode(st.start_attempt(adm[k], run, "inline"), *pair)

        record(llm[0], _llm_episode(llm[0]))
        record(llm[1], _simple(llm[1], "infra_error", "UNKNOWN", None,
                               ("not measured: infra_error",),
                               "provider timed out after 4 retries"))
        record(llm[2], _simple(llm[2], "step_limit", "FAIL", 0.0, ("no submission",),
                               "30 tool calls"))
        # llm[3] stays pending; llm[4] errored outside the agent after one billed request.
        errored = st.start_attempt(adm[llm[4]], run, "inline")
        st.record_billable(errored, BillableAttempt("c0", "fake", "model-x", "req-9", 10, None,
                                                    None, None, 1.0, "error"))
        st.fail_attempt(errored, "worker crashed")
        for k in rule:
            record(k, _simple(k, "submitted", "PASS", 1.0))
        st.end_run(run, "done")
    return root


def build_audit_dir(root: Path) -> Path:
    """Write an audit dir as `agm audit --out` leaves it (card, audit, reports)."""
    root.mkdir(parents=True)
    card = {"audit_digest": "e" * 64, "benchmark": "comtrade", "licensed_claim":
            "self-report compliance", "shipped_configuration": "L0|shape_judge",
            "configurations": [{"level": "L0", "scorer": "shape_judge", "scorer_kind": "shape",
                                "licensed_claim": "self-report compliance", "rows": {
                                    "replay": {"status": "pass", "evidence": {"episodes": 36}},
                                    "criterion_sensitivity": {"status": "fail",
                                                              "evidence": {"pairs": 60}}}}]}
    (root / "card.json").write_text(json.dumps(card))
    (root / "audit.json").write_text(json.dumps({"card": card}))
    (root / "report.html").write_text("<!DOCTYPE html><html><head><title>Audit report</title>"
                                      "</head><body><h1>Validity card</h1><p>key sk-proj-"
                                      "ABCDEFGHIJKLMNOP1234</p></body></html>")
    (root / "report.md").write_text("# Audit report\n")
    (root / "notes.txt").write_text("not something an audit writes\n")
    return root


def build_archive(path: Path) -> Path:
    """Write an archive audit file with one unresolved episode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    overall = {"planned": 3, "graded": 2, "counts": {"pass": 1, "fail": 1, "ungraded": 1,
                                                    "invalid_replay": 0},
               "reasons": {"grader_never_ran": 1}, "score_stored": 1 / 3,
               "score_graded_only": 0.5, "bounds": {"lower": 1 / 3, "upper": 2 / 3}}
    doc = {"schema": "agentmetrology.archive-audit/1",
           "archive": {"source": "runs.json", "format": "taubench", "episodes": 3, "tasks": 2,
                       "cells": 1, "runs": 1},
           "checks": [{"check": "coverage", "applicable": True, "unresolved": 1}],
           "coverage": {"overall": overall, "cells": [{**overall, "cell": "gpt-x"}],
                        "unresolved_episodes": [
                            {"episode_id": "gpt-x/t2/0", "cell": "gpt-x", "task": "t2",
                             "trial": 0, "outcome": "ungraded", "score": None,
                             "reason": "grader_never_ran", "detail": "reward_info is null",
                             "stored_score": 0.0, "termination": None}]},
           "load": {"problem_count": 0, "problems": []}}
    path.write_text(json.dumps(doc))
    return path


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Return every file under root with its size, mtime and sha256 (and the listing)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns,
                                             hashlib.sha256(p.read_bytes()).hexdigest())
    return out


@contextmanager
def live_server(source: Source | Any) -> Iterator[str]:
    """Serve a source (or an ASGI app) with uvicorn on a free loopback port in a thread;
    yield its base URL."""
    import uvicorn

    from agentmetrology.view.app import create_app
    from agentmetrology.view.server import bind

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = create_app(source) if isinstance(source, Source) else source
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.02)
        assert server.started, "the test server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def table_cells(html: str, table_id: str) -> list[list[str]]:
    """Return the text of every body cell of the table with id `table_id`, row by row."""
    body = html.split(f'<table id="{table_id}">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td>(.*?)</td>", r, re.S)] for r in rows]
