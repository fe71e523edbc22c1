"""The Ray backend on a local Ray instance: same store, same bytes as inline; model-free tasks
and LLM actors side by side in one run."""

from __future__ import annotations

import itertools
from pathlib import Path

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.ray_cluster import RayOptions
from agentmetrology.store import EvidenceStore
from campaign.campaign_fixtures import episode_digests, model_free, query, with_llm
from campaign.ray_fixtures import KEY_ENV, ledger_invariants, ray_instance
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

__all__ = ["ray_instance"]  # the module-scoped fixture, used by name


def test_ray_backend_matches_inline(ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    config = parse_campaign(model_free(tasks='["T3_duplicates"]'))
    with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
        run_campaign(config, st)
    with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
        result = run_campaign(config, st, backend="ray")
    assert result.status.complete and result.recorded == 12
    assert episode_digests(tmp_path / "ray") == episode_digests(tmp_path / "inline")


def test_model_free_tasks_and_llm_actors_in_one_ray_run(ray_instance: tuple[str, Path],
                                                        tmp_path: Path) -> None:
    text = model_free(name="mixed", tasks='["T3_duplicates"]', seeds="0-2")
    with FakeOpenAI(itertools.repeat(careful_model, 2000)) as srv:
        config = parse_campaign(with_llm(text, base_url=srv.base_url, key_env=KEY_ENV,
                                         concurrency=3))
        with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
            result = run_campaign(config, st, backend="ray", ray=RayOptions(actors=1))
        with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
            run_campaign(config, st)
    # 4 targets x 3 seeds x 2 levels; the LLM ones through one actor running 3 at once.
    assert result.status.complete and result.recorded == 24 and result.failed_attempts == 0
    assert result.status.targets["fake-llm"].submitted == 6
    ray_digests, inline_digests = episode_digests(tmp_path / "ray"), episode_digests(tmp_path /
                                                                                     "inline")
    model_free_keys = [k for k in inline_digests if k[1] != "fake-llm"]
    assert len(model_free_keys) == 18
    assert all(ray_digests[k] == inline_digests[k] for k in model_free_keys)
    counts = ledger_invariants(tmp_path / "ray")
    assert counts["billable"] == counts["billable_distinct"] == counts["recorded_requests"] \
        == counts["episode_requests"] > 6
    assert query(tmp_path / "ray", "SELECT COUNT(*) FROM billable_attempts b JOIN attempts t "
                                   "ON t.id = b.attempt WHERE t.backend != 'ray'") == [(0,)]
