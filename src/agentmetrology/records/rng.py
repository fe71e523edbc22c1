"""The only sources of randomness in the package.

`rng(seed, *labels)` is the general helper. `string_random(text)` is the ComtradeBench generator
card's construction (Python's Mersenne Twister seeded by the first 8 hex digits of sha256 of a
string); it exists so that anyone can regenerate ground truth from (task, seed), and so that the
`legacy` profile stays bit-compatible with the original release. `string_bits(text)` is the
`getrandbits` of that same generator, for the hot paths that draw nothing else.
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Callable

import numpy as np


def _label_digest(seed: int | str, *labels: object) -> bytes:
    text = ":".join(str(x) for x in (seed, *labels))
    return hashlib.sha256(text.encode("utf-8")).digest()


def seed_material(seed: int | str, *labels: object) -> int:
    """Return the 256-bit integer sha256(':'.join(seed, *labels)) used to seed generators."""
    return int.from_bytes(_label_digest(seed, *labels), "big")


def entropy_words(digest: bytes) -> np.ndarray:
    """Return the uint32 words numpy's SeedSequence makes of int.from_bytes(digest, 'big').

    SeedSequence turns an int into its 32-bit words, least significant first, without the
    zero words above the highest set bit ([0] for zero). Handing it those words as a uint32
    array gives the identical pool, without its slow int-to-words loop (tests/records/
    test_rng.py checks both constructions agree, leading zero words included).
    """
    words = np.frombuffer(digest[::-1], dtype="<u4").astype(np.uint32)
    n = len(words)
    while n > 1 and words[n - 1] == 0:
        n -= 1
    return words[:n]


def rng(seed: int | str, *labels: object) -> np.random.Generator:
    """Return a numpy Generator seeded from sha256 of the joined seed and labels."""
    seq = np.random.SeedSequence(entropy_words(_label_digest(seed, *labels)))
    return np.random.Generator(np.random.PCG64(seq))


def string_seed(text: str) -> int:
    """Return the integer of the first 8 hex digits of sha256(text) (the generator card seed)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def string_random(text: str) -> random.Random:
    """Return Python's Random seeded with `string_seed(text)` (generator card construction)."""
    return random.Random(string_seed(text))


def string_bits(text: str) -> Callable[[int], int]:
    """Return the `getrandbits` of `string_random(text)`: the same stream, built cheaper.

    `random.Random(n)` seeds its C base class with n and nothing else (for an int n), so the
    base class seeded with n draws the same bits; it skips the Python-level seed wrapper,
    which matters on paths that seed a generator per request (duplicates, page drift).
    """
    return _random.Random(string_seed(text)).getrandbits
