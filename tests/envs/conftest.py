"""Fixtures shared by the environment suites: the toy plug-in installed by its entry point."""

from __future__ import annotations

import os

import pytest

from support.inspect_logs import PLUGIN_DIR, TOY_SUM_ENTRY_POINT, dist_info


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Return an environment in which the toy plug-in is installed by an entry point."""
    site = tmp_path_factory.mktemp("site")
    dist_info(site, "toy_sum_env", TOY_SUM_ENTRY_POINT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(site), str(PLUGIN_DIR), *filter(None, [env.get("PYTHONPATH")])])
    return env
