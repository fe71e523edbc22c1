"""One local Ray instance per test module, LLM campaign texts, timing-free episode views."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from agentmetrology.run.campaign.ray_cluster import RayOptions, connect
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import contents
from run.campaign.campaign_fixtures import query

KEY_ENV = "AGM_RAY_TEST_KEY"
KEY = "sk-raytest-0123456789abcdefSECRETvalue"

LLM_CAMPAIGN = """
[campaign]
name = "{name}"
tasks = ["T3_duplicates", "T4_rate_limit_429"]
seeds = "{seeds}"
levels = ["L0", "L2"]
concurrency = {concurrency}

[limits]
max_steps = 30

[[targets]]
name = "m"
kind = "llm"
model = "fake-model"
base_url = "{base_url}"
api_key_env = "AGM_RAY_TEST_KEY"
max_retries = 0
price = {{ input_per_m = 1.0, output_per_m = 2.0, cached_per_m = 0.5 }}
"""


def llm_campaign(base_url: str, *, name: str = "llm-ray", seeds: str = "0-5",
                 concurrency: int = 4) -> str:
    """Return an LLM campaign: one target, 2 tasks x len(seeds) x 2 levels administrations."""
    return LLM_CAMPAIGN.format(name=name, seeds=seeds, concurrency=concurrency,
                               base_url=base_url)


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Start one local Ray instance for the module; yield (its address, its temp dir).

    The key variable is set before Ray starts: workers inherit the driver's environment.
    """
    temp = Path("/tmp") / f"agm-ray-{os.getpid()}"  # short: Ray's socket paths are limited
    previous = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = KEY
    # The local instance `agm campaign run --backend ray` starts, on 2 CPUs in a short dir.
    assert connect(RayOptions(address="local", num_cpus=2, init={"_temp_dir": str(temp)}))
    try:
        yield ray.get_runtime_context().gcs_address, temp
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)  # Ray's logs and sockets of this instance
        if previous is None:
            os.environ.pop(KEY_ENV, None)
        else:
            os.environ[KEY_ENV] = previous


_TIMING = re.compile(r'"execution_time_seconds": [0-9.e+-]+')


def timing_free(doc: Any) -> Any:
    """Return an episode document without what a real clock and a server's counter put in it:
    event times, request latencies, server request ids, execution times (and the digests of
    parts holding them)."""
    if isinstance(doc, dict):
        return {k: timing_free(v) for k, v in doc.items()
                if k not in ("t", "latency_s", "request_id", "digests")}
    if isinstance(doc, list):
        return [timing_free(v) for v in doc]
    if isinstance(doc, str) and "execution_time_seconds" in doc:
        return _TIMING.sub('"execution_time_seconds": 0', doc)
    return doc


def episodes(store_dir: Path) -> dict[tuple[Any, ...], Any]:
    """Return {key: (timing-free episode, termination, requests, tokens, cost)}."""
    rows = query(store_dir, "SELECT a.task, a.seed, a.level, a.repeat, e.episode_digest, "
                            "e.termination, e.requests, e.input_tokens, e.output_tokens, e.cost "
                            "FROM episodes e JOIN administrations a ON a.id = e.administration")
    out = {}
    with EvidenceStore.open_readonly(store_dir, scrub_env=False) as st:
        for r in rows:
            doc = json.loads(st.get_bytes(r[4]))
            out[r[:4]] = (timing_free(doc), *r[5:])
    return out


def scores(store_dir: Path) -> dict[tuple[Any, ...], Any]:
    """Return {(task, seed, level, scorer): (status, score)} of every assessment."""
    rows = query(store_dir, "SELECT a.task, a.seed, a.level, s.scorer, s.status, s.score FROM "
                            "assessments s JOIN administrations a ON a.id = s.administration")
    return {r[:4]: r[4:] for r in rows}


def ledger_invariants(store_dir: Path) -> dict[str, int]:
    """Return the counts that must hold after a complete run: episodes, distinct keys, ..."""
    q = lambda sql: query(store_dir, sql)[0][0]  # noqa: E731
    return {
        "episodes": q("SELECT COUNT(*) FROM episodes"),
        "keys_with_episode": q("SELECT COUNT(DISTINCT administration) FROM episodes"),
        "administrations": q("SELECT COUNT(*) FROM administrations"),
        "started": q("SELECT COUNT(*) FROM attempts WHERE status = 'started'"),
        # every billed request once: (attempt, billing id) never repeats
        "billable": q("SELECT COUNT(*) FROM billable_attempts"),
        "billable_distinct": q("SELECT COUNT(*) FROM (SELECT DISTINCT attempt, billing_id "
                               "FROM billable_attempts)"),
        # each recorded episode's model attempts are all in the ledger, streamed as answered
        "episode_requests": q("SELECT TOTAL(model_attempts) FROM episodes"),
        "recorded_requests": q("SELECT COUNT(*) FROM billable_attempts b JOIN episodes e "
                               "ON e.attempt = b.attempt"),
    }


def files_with(root: Path, needle: bytes) -> list[Path]:
    """Return the regular files under root whose bytes contain `needle` (sockets skipped)."""
    out = []
    for p in root.rglob("*"):
        try:
            if p.is_file() and not p.is_symlink() and needle in contents(p.read_bytes()):
                out.append(p)
        except OSError:
            continue  # a file Ray removed meanwhile
    return out
