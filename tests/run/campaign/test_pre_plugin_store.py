"""A store recorded before environments became plug-ins resumes unchanged under the scorer
versions it was sealed with; after a scorer's version changed, the resume is refused in one
line that names the scorer and both versions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentmetrology.run.campaign import load_campaign, plan, plan_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from agentmetrology.store.ledger_records import CampaignMismatchError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SEALED_PLAN = "7fc049e75a67446f34aca2e7d5a850a66d5317dbff5af2ab710d2dab22d48e48"


def _store(tmp_path: Path) -> Path:
    store_dir = tmp_path / "store"
    shutil.copytree(FIXTURES / "pre_plugin_store", store_dir)
    return store_dir


def test_a_store_written_before_plugins_resumes_unchanged(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture store was recorded by commit 4523709 with ground truth 1.0.0; under that
    version its plan digest is the sealed one and resuming it records nothing twice."""
    real = plan.scorer_versions
    monkeypatch.setattr(plan, "scorer_versions", lambda env, cond="clean": {
        **real(env, cond), "ground_truth_f1": "1.0.0"})
    config = load_campaign(FIXTURES / "pre_plugin_campaign.toml")
    assert config.environment == "comtrade"
    with EvidenceStore.open(_store(tmp_path)) as store:
        before = store.status("pre-plugin")
        result = run_campaign(config, store)  # a changed plan digest would raise here
        after = store.status("pre-plugin")
    assert plan_campaign(config).digest == SEALED_PLAN
    assert result.launched == 0 and result.recorded == 0
    assert before.to_json() == after.to_json() and after.complete
    assert after.total.done == after.total.planned == 12


def test_a_changed_scorer_version_is_refused_naming_it(tmp_path: Path) -> None:
    config = load_campaign(FIXTURES / "pre_plugin_campaign.toml")
    assert plan_campaign(config).digest != SEALED_PLAN  # ground truth is 1.1.0 now
    with EvidenceStore.open(_store(tmp_path)) as store, \
            pytest.raises(CampaignMismatchError) as refused:
        run_campaign(config, store)
    assert str(refused.value) == (
        "campaign 'pre-plugin' is already in this store with a different plan (sealed "
        f"7fc049e75a67, now {plan_campaign(config).digest[:12]}): scorer ground_truth_f1 was "
        "1.0.0, is now 1.1.0 (its recorded scores stay as they were scored; `agm archive "
        "regrade` re-scores them with the current scorers); use a new campaign name or "
        "another store")
