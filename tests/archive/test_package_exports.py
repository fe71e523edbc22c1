"""The archive package's public names load on first use: `agm campaign status` imports
`archive.evidence_check`, which must not pull in every importer and analysis at start."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agentmetrology.archive as archive


def test_importing_the_package_loads_no_importer_or_analysis() -> None:
    code = ("import sys, agentmetrology.archive; "
            "print(sorted(m for m in sys.modules if m.startswith('agentmetrology.archive.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.parametrize("name", archive.__all__)
def test_every_public_name_resolves_to_its_module_object(name: str) -> None:
    import importlib

    value = getattr(archive, name)
    home = importlib.import_module(f"agentmetrology.archive.{archive._HOME[name]}")
    assert value is getattr(home, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        archive.nope  # noqa: B018
