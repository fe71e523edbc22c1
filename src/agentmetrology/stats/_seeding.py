"""The single place where the statistics layer turns an integer seed into a generator."""

from __future__ import annotations

import numpy as np


def check_seed(seed: int) -> int:
    """Return `seed` if it is a non-negative integer, else raise ValueError naming `seed`."""
    # bool is an int subclass; True as a seed is almost surely a mistake.
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def generator(seed: int) -> np.random.Generator:
    """Return a fresh PCG64 Generator for `seed` (the same seed gives the same stream anywhere)."""
    return np.random.Generator(np.random.PCG64(check_seed(seed)))
