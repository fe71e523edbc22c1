"""Starting Ray inside a campaign run keeps the run's SIGTERM handler: `ray.init` installs its
own (`sys.exit(15)`), so a campaign on an existing store, or an experiment, with `--backend ray`
ended on SIGTERM with exit 15 and Ray's dump instead of the one `interrupted (SIGTERM)` line and
exit 143 (review of the SIGTERM handling, verified on a real run)."""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Any

import pytest

from agentmetrology.run.campaign import ray_cluster
from agentmetrology.run.campaign.ray_cluster import RayOptions, connect


def _ours(signum: int, frame: FrameType | None) -> None:
    """Stands for the run's handler (cli.run_again.stop_on_sigterm)."""


class RayLike:
    """Does to SIGTERM what ray.init does."""

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        signal.signal(signal.SIGTERM, lambda s, f: sys.exit(s))


@pytest.fixture
def sigterm() -> Any:
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def test_a_handler_the_run_installed_survives_ray_starting(
        sigterm: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_cluster, "import_ray", RayLike)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    signal.signal(signal.SIGTERM, _ours)
    assert connect(RayOptions(num_cpus=1)) is True
    assert signal.getsignal(signal.SIGTERM) is _ours


def test_with_no_handler_installed_rays_own_stays(sigterm: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_cluster, "import_ray", RayLike)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    assert connect(RayOptions(num_cpus=1)) is True
    assert callable(signal.getsignal(signal.SIGTERM))  # Ray's: nothing of ours to keep


def test_real_ray_keeps_the_runs_handler(sigterm: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    signal.signal(signal.SIGTERM, _ours)
    try:
        assert connect(RayOptions(num_cpus=1)) is True
        assert signal.getsignal(signal.SIGTERM) is _ours
    finally:
        ray.shutdown()
