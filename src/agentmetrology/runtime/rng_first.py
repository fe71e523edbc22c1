"""The first `random()` of `rng(seed, *labels)` without building the generator.

The adversarial wrapper seeds a fresh generator per step (runtime/rng.py) and its policies draw
one `random()` from it. Most of that construction is numpy's fixed per-object cost: PCG64's
seeding asks SeedSequence.generate_state (an errstate context and eight hash rounds) and then
builds the bit generator and the Generator around it. Here SeedSequence still mixes the entropy
into its pool (the part that needs the most arithmetic), and the rest — generate_state's eight
hash rounds, PCG64's seeding step and its first XSL-RR output, the double from its top 53 bits
— is done on Python ints, bit for bit (tests/records/test_rng.py checks it against `rng`).
`LazyRng` hands that draw out where a Generator is expected and builds the real one only when
something more is asked of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agentmetrology.runtime.rng import _LE_IS_NATIVE, _ZERO_WORD, _label_digest, entropy_words, rng

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG_DEFAULT_MULTIPLIER_128


def _hash_constants(n: int) -> tuple[tuple[int, int], ...]:
    """Return generate_state's (xor, multiplier) pair per output word (they depend on nothing)."""
    out, h = [], 0x8B51F9DD  # INIT_B
    for _ in range(n):
        nxt = (h * 0x58F38DED) & _M32  # MULT_B
        out.append((h, nxt))
        h = nxt
    return tuple(out)


_STATE_HASH = _hash_constants(8)  # four uint64 words: PCG64's seed and increment


# generate_state's (xor, multiplier) per word, unpacked for the unrolled rounds below
(_X0, _U0), (_X1, _U1), (_X2, _U2), (_X3, _U3), (_X4, _U4), (_X5, _U5), (_X6, _U6), \
    (_X7, _U7) = _STATE_HASH
_DOUBLE = 1.0 / 9007199254740992.0
# PCG64's seeding step and the draw's own step as one: s1 = (inc + s0) * M + inc, then
# s2 = s1 * M + inc = (inc + s0) * M**2 + inc * (M + 1), all modulo 2**128.
_PCG_MULT_2 = (_PCG_MULT * _PCG_MULT) & _M128
_PCG_MULT_1 = _PCG_MULT + 1
_U32 = np.dtype(np.uint32)


def first_random(seed: int | str, *labels: object) -> float:
    """Return `rng(seed, *labels).random()`, computed without constructing the generator."""
    digest = _label_digest(seed, *labels)
    # entropy_words(digest), inline for the usual digest: its top word is not zero (all but
    # 2**-32 of them), so the words are the reversed bytes read as little-endian uint32
    words = (np.frombuffer(digest[::-1], _U32) if _LE_IS_NATIVE and digest[:4] != _ZERO_WORD
             else entropy_words(digest))
    p0, p1, p2, p3 = np.random.SeedSequence(words).pool.tolist()
    w0 = ((p0 ^ _X0) * _U0) & _M32
    w1 = ((p1 ^ _X1) * _U1) & _M32
    w2 = ((p2 ^ _X2) * _U2) & _M32
    w3 = ((p3 ^ _X3) * _U3) & _M32
    w4 = ((p0 ^ _X4) * _U4) & _M32
    w5 = ((p1 ^ _X5) * _U5) & _M32
    w6 = ((p2 ^ _X6) * _U6) & _M32
    w7 = ((p3 ^ _X7) * _U7) & _M32
    w0 ^= w0 >> 16
    w1 ^= w1 >> 16
    w2 ^= w2 >> 16
    w3 ^= w3 >> 16
    w4 ^= w4 >> 16
    w5 ^= w5 >> 16
    w6 ^= w6 >> 16
    w7 ^= w7 >> 16
    # uint64 word j is w[2j] | w[2j+1] << 32; PCG64 seeds with (words 0, 1) and inc (2, 3)
    state = (w1 << 96) | (w0 << 64) | (w3 << 32) | w2
    inc = ((w5 << 97) | (w4 << 65) | (w7 << 33) | (w6 << 1) | 1) & _M128
    # pcg_setseq_128_srandom_r and the draw's own step, as one step
    state = ((inc + state) * _PCG_MULT_2 + inc * _PCG_MULT_1) & _M128
    x = ((state >> 64) ^ state) & _M64  # XSL-RR output
    rot = state >> 122
    return ((((x >> rot) | (x << (-rot & 63))) & _M64) >> 11) * _DOUBLE


class LazyRng:
    """Stands in for `rng(seed, *labels)`: its first bare `random()` is `first_random`, and any
    other use builds the real generator (advanced past a draw already handed out)."""

    __slots__ = ("_drawn", "_generator", "_labels", "_seed")

    def __init__(self, seed: int | str, *labels: object) -> None:
        self._seed, self._labels = seed, labels
        self._generator: np.random.Generator | None = None
        self._drawn = False

    def random(self, *args: Any, **kwargs: Any) -> Any:
        """Return the next `random(...)` of the generator."""
        if not (args or kwargs or self._drawn or self._generator is not None):
            self._drawn = True
            return first_random(self._seed, *self._labels)
        return self.generator().random(*args, **kwargs)

    def generator(self) -> np.random.Generator:
        """Return the real generator, in the state this stand-in's draws have left it."""
        if self._generator is None:
            self._generator = rng(self._seed, *self._labels)
            if self._drawn:
                self._generator.random()
        return self._generator

    def __getattr__(self, name: str) -> Any:
        return getattr(self.generator(), name)
