"""A store recorded before environments became plug-ins resumes unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentmetrology.run.campaign import load_campaign, plan_campaign, run_campaign
from agentmetrology.store import EvidenceStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_a_store_written_before_plugins_resumes_unchanged(tmp_path: Path) -> None:
    """The fixture store was recorded by commit 4523709; resuming it records nothing twice."""
    store_dir = tmp_path / "store"
    shutil.copytree(FIXTURES / "pre_plugin_store", store_dir)
    config = load_campaign(FIXTURES / "pre_plugin_campaign.toml")
    assert config.environment == "comtrade"
    store = EvidenceStore.open(store_dir)
    try:
        before = store.status("pre-plugin")
        result = run_campaign(config, store)  # a changed plan digest would raise here
        after = store.status("pre-plugin")
        assert plan_campaign(config).digest == \
            "7fc049e75a67446f34aca2e7d5a850a66d5317dbff5af2ab710d2dab22d48e48"
    finally:
        store.close()
    assert result.launched == 0 and result.recorded == 0
    assert before.to_json() == after.to_json() and after.complete
    assert after.total.done == after.total.planned == 12
