"""The cheaper generator constructions draw exactly what the reference constructions draw."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from agentmetrology.runtime.rng import (
    entropy_words,
    rng,
    seed_material,
    string_bits,
    string_random,
    string_seed,
    string_uniforms,
)


def _reference_rng(seed: int | str, *labels: object) -> np.random.Generator:
    """The construction DESIGN.md states: PCG64 seeded with the sha256 integer of the labels."""
    text = ":".join(str(x) for x in (seed, *labels))
    material = int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)
    return np.random.Generator(np.random.PCG64(material))


LABELS = [(s, *rest) for s in (0, 1, 7, 123456, "legacy", "T9_adaptive_adversary:adaptive:3")
          for rest in ((), ("policy", "scripted:careful"), (0,), (5,), ("audit", "x", 2))]


@pytest.mark.parametrize("labels", LABELS)
def test_rng_state_and_draws_match_the_integer_seeded_construction(labels: tuple) -> None:
    fast, ref = rng(*labels), _reference_rng(*labels)
    assert fast.bit_generator.state == ref.bit_generator.state
    assert fast.random() == ref.random()
    assert fast.integers(0, 10**9, size=5).tolist() == ref.integers(0, 10**9, size=5).tolist()
    assert fast.standard_normal(3).tolist() == ref.standard_normal(3).tolist()


def test_rng_matches_over_many_label_tuples() -> None:
    for i in range(2000):
        labels = (f"T{i % 11}:stress:{i}", i % 37)
        assert rng(*labels).random() == _reference_rng(*labels).random()


@pytest.mark.parametrize("zero_bytes", [0, 1, 3, 4, 5, 8, 12, 28, 31, 32])
def test_entropy_words_equal_seedsequence_of_the_integer(zero_bytes: int) -> None:
    # sha256 digests with leading zero words are too rare to find by search, so the word
    # conversion is checked on constructed digests: top bytes zero, the rest arbitrary.
    tail = hashlib.sha256(str(zero_bytes).encode()).digest()[zero_bytes:]
    for digest in (bytes(zero_bytes) + tail, bytes(zero_bytes) + bytes(32 - zero_bytes)):
        as_int = int.from_bytes(digest, "big")
        ours = np.random.SeedSequence(entropy_words(digest))
        theirs = np.random.SeedSequence(as_int)
        assert ours.generate_state(8).tolist() == theirs.generate_state(8).tolist()
        assert np.random.PCG64(ours).state == np.random.PCG64(theirs).state


def test_entropy_words_are_the_integer_words_least_significant_first() -> None:
    digest = bytes(range(1, 33))
    n = int.from_bytes(digest, "big")
    assert entropy_words(digest).tolist() == [(n >> (32 * k)) & 0xFFFFFFFF for k in range(8)]
    assert entropy_words(bytes(32)).tolist() == [0]
    assert entropy_words(bytes(28) + b"\x00\x00\x01\x02").tolist() == [0x0102]


def test_seed_material_is_the_sha256_integer() -> None:
    assert seed_material(3, "a", 1) == int(hashlib.sha256(b"3:a:1").hexdigest(), 16)



class _Formats(int):
    """A label whose format() differs from its str(): the join uses str()."""

    def __format__(self, spec: str) -> str:
        return "formatted"


@pytest.mark.parametrize("label", [4, "4", True, 2.5, None, _Formats(9), ("a", 1)])
def test_one_label_is_joined_as_str(label: object) -> None:
    want = int(hashlib.sha256(("s:" + str(label)).encode()).hexdigest(), 16)
    assert seed_material("s", label) == want
    assert rng("s", label).random() == _reference_rng("s", label).random()

def test_string_seed_is_the_first_8_hex_digits() -> None:
    for i in range(500):
        text = f"T3_duplicates:dup:{i}:{i % 7}"
        assert string_seed(text) == int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def test_string_bits_draw_what_random_random_draws() -> None:
    for i in range(300):
        text = f"T6_page_drift:drift:{i}:{i % 5}"
        ours, ref = string_bits(text), random.Random(string_seed(text))
        for k in (1, 5, 6, 31, 32, 33, 64, 100, 7):
            assert ours(k) == ref.getrandbits(k)
        assert string_random(text).getrandbits(40) == random.Random(string_seed(text)) \
            .getrandbits(40)


def test_string_uniforms_are_random_random_bit_for_bit() -> None:
    # seeds at the edges of the 32-bit range too: CPython seeds with init_by_array([seed])
    texts = [f"T2_multi_page:USA:CHN:M:8703:2021:{i}" for i in range(40)]
    for text in texts:
        ref = random.Random(string_seed(text))
        assert string_uniforms(text, 999).tolist() == [ref.random() for _ in range(999)]
    assert string_uniforms("x", 0).tolist() == []


def test_rng_is_deterministic_and_label_sensitive() -> None:
    assert rng(1, "a").random() == rng(1, "a").random()
    assert rng(1, "a").random() != rng(1, "b").random()
    assert rng(1, "a").random() != rng(2, "a").random()


def test_string_seed_is_first_8_hex_of_sha256() -> None:
    # T1's legacy seed string; the spec's fingerprint.
    assert string_seed("T1_single_page:840:156:M:85:2021") == 2916913234


def test_no_other_randomness_in_package() -> None:
    # All randomness comes from runtime/rng.py (and stats' own seeded helper).
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "src" / "agentmetrology"
    allowed = {root / "runtime" / "rng.py", root / "stats" / "_seeding.py"}
    offenders = []
    for path in root.rglob("*.py"):
        if path in allowed:
            continue
        text = path.read_text()
        for needle in ("import random", "from random", "default_rng(", "np.random.seed",
                       "random.Random(", "PCG64(", "time.time()"):
            if needle in text:
                offenders.append(f"{path.relative_to(root)}: {needle}")
    assert offenders == []
