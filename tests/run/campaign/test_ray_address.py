"""`connect` normalises the address before choosing a local instance (no Ray start needed)."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.run.campaign import ray_cluster
from agentmetrology.run.campaign.ray_cluster import RayOptions, connect


class FakeRay:
    def __init__(self) -> None:
        self.kwargs: dict[str, Any] = {}

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


@pytest.mark.parametrize("address", [None, "local", " local ", "local\n"])
def test_a_local_address_gets_the_loopback_only_instance(
        address: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRay()
    monkeypatch.setattr(ray_cluster, "import_ray", lambda: fake)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert connect(RayOptions(address=address, num_cpus=2)) is True
    assert fake.kwargs["address"] == "local"
    assert fake.kwargs["include_dashboard"] is False
    assert fake.kwargs["_node_ip_address"] == "127.0.0.1"
    assert fake.kwargs["num_cpus"] == 2
