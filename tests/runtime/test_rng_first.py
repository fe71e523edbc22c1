"""The first draw computed on Python ints is the first draw of the generator `rng` builds."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from agentmetrology.runtime import rng_first
from agentmetrology.runtime.rng import rng
from agentmetrology.runtime.rng_first import LazyRng, first_random


def test_first_random_equals_the_generators_first_draw() -> None:
    for i in range(3000):
        labels = (f"T9_adaptive_adversary:stress:b2:escalating:{i}", i % 17)
        assert first_random(*labels) == rng(*labels).random()


@pytest.mark.parametrize("zero_bytes", [4, 8, 28])
def test_first_random_with_leading_zero_words(monkeypatch: pytest.MonkeyPatch,
                                              zero_bytes: int) -> None:
    # digests with leading zero words are too rare to find, so both sides get a constructed one
    digest = bytes(zero_bytes) + hashlib.sha256(b"x").digest()[zero_bytes:]
    monkeypatch.setattr(rng_first, "_label_digest", lambda *a: digest)
    seq = np.random.SeedSequence(int.from_bytes(digest, "big"))
    assert first_random("x") == np.random.Generator(np.random.PCG64(seq)).random()


def test_lazy_rng_draws_the_generators_sequence_whatever_is_asked() -> None:
    lazy, real = LazyRng("seed", 3), rng("seed", 3)
    assert [lazy.random(), lazy.random()] == [real.random(), real.random()]
    assert lazy.integers(0, 10**6, 4).tolist() == real.integers(0, 10**6, 4).tolist()
    lazy, real = LazyRng("seed", 4), rng("seed", 4)
    assert lazy.random(3).tolist() == real.random(3).tolist()  # no bare first draw
    lazy, real = LazyRng("seed", 5), rng("seed", 5)
    assert lazy.standard_normal() == real.standard_normal()
    assert lazy.random() == real.random()
    assert lazy.generator().bit_generator.state == real.bit_generator.state
