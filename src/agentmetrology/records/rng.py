"""The only sources of randomness in the package.

`rng(seed, *labels)` is the general helper. `string_random(text)` is the ComtradeBench generator
card's construction (Python's Mersenne Twister seeded by the first 8 hex digits of sha256 of a
string); it exists so that anyone can regenerate ground truth from (task, seed), and so that the
`legacy` profile stays bit-compatible with the original release.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np


def seed_material(seed: int | str, *labels: object) -> int:
    """Return the 256-bit integer sha256(':'.join(seed, *labels)) used to seed generators."""
    text = ":".join(str(x) for x in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")


def rng(seed: int | str, *labels: object) -> np.random.Generator:
    """Return a numpy Generator seeded from sha256 of the joined seed and labels."""
    return np.random.Generator(np.random.PCG64(seed_material(seed, *labels)))


def string_seed(text: str) -> int:
    """Return the integer of the first 8 hex digits of sha256(text) (the generator card seed)."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def string_random(text: str) -> random.Random:
    """Return Python's Random seeded with `string_seed(text)` (generator card construction)."""
    return random.Random(string_seed(text))
