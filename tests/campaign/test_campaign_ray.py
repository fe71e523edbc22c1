"""The Ray backend on a local Ray instance: same store, same bytes as inline."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from campaign.campaign_fixtures import episode_digests, model_free

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="ray is not installed (optional extra: "
                                       "pip install 'agentmetrology[ray]')")


def test_ray_backend_matches_inline(tmp_path: Path) -> None:
    config = parse_campaign(model_free(tasks='["T3_duplicates"]'))
    with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
        run_campaign(config, st)
    with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
        result = run_campaign(config, st, backend="ray",
                              ray_init={"num_cpus": 2, "include_dashboard": False,
                                        "configure_logging": False})
    assert result.status.complete and result.recorded == 12
    assert episode_digests(tmp_path / "ray") == episode_digests(tmp_path / "inline")
