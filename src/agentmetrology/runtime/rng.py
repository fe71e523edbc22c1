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
import threading
from collections.abc import Callable

import numpy as np


def _label_digest(seed: int | str, *labels: object) -> bytes:
    # One label (the stress wrapper's step, every step) is formatted without the generator;
    # `!s` is str(), as join's, whatever a value's __format__ would say.
    text = (f"{seed!s}:{labels[0]!s}" if len(labels) == 1
            else ":".join(str(x) for x in (seed, *labels)))
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
    rev = digest[::-1]
    n = len(rev) // 4
    while n > 1 and rev[4 * n - 4:4 * n] == _ZERO_WORD:  # bytes compare, not numpy scalars
        n -= 1
    words = np.frombuffer(rev, dtype=_LE_WORD, count=n)
    return words if _LE_IS_NATIVE else words.astype(np.uint32)


_ZERO_WORD = bytes(4)
_LE_WORD = np.dtype("<u4")
_LE_IS_NATIVE = np.dtype(np.uint32) == _LE_WORD  # little-endian machines: no conversion


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


_TWO_26 = np.float64(67108864.0)
_TWO_53 = np.float64(9007199254740992.0)
_LOCAL = threading.local()  # one MT19937 per thread, reseeded per call (constructing costs more)


def string_uniforms(text: str, n: int) -> np.ndarray:
    """Return the first n `random()` draws of `string_random(text)` as float64, bit for bit.

    CPython seeds its Twister from an int below 2**32 with init_by_array([seed]), as numpy's
    MT19937 legacy (RandomState) seeding does for a one-word array, so both produce the same
    32-bit words. Python's `random()` makes a double from two words (a >> 5, b >> 6) as
    (a * 2**26 + b) / 2**53; numpy's own doubles are built differently, so the construction is
    done here on the raw words (exact: the numerator is below 2**53). tests/records/
    test_rng.py checks the draws against Python's.
    """
    bits = getattr(_LOCAL, "mt", None)
    if bits is None:
        bits = _LOCAL.mt = np.random.MT19937()
    bits._legacy_seeding([string_seed(text)])
    words = bits.random_raw(2 * n).reshape(n, 2)
    hi = (words[:, 0] >> np.uint64(5)).astype(np.float64)
    lo = (words[:, 1] >> np.uint64(6)).astype(np.float64)
    return (hi * _TWO_26 + lo) / _TWO_53
