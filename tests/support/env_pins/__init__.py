"""What is particular to each environment on every path, keyed by its name.

The conformance suite (`tests/envs/conformance/`) runs these beside its generic checks; every
environment `agm envs` lists must have an entry here (an empty `EnvPins()` pins nothing), so a
new environment is listed, and an entry for an environment no longer registered fails.
"""

from __future__ import annotations

from support.conformance import EnvPins
from support.env_pins import researchops, toolworlds, toy_sum

PINS: dict[str, EnvPins] = {
    "comtrade": EnvPins(),  # comtrade's pins live in tests/envs/comtrade and tests/audit
    "researchops": researchops.PINS,
    **toolworlds.PINS,
    "toy_sum": toy_sum.PINS,
}
