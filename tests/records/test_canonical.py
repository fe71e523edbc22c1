import math

import pytest

from agentmetrology.records import (
    Assessment,
    Event,
    canonical_json,
    digest,
    rng,
    string_seed,
)
from agentmetrology.records.canonical import CanonicalError


def test_canonical_json_sorts_keys_and_is_compact() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "é"]}) == '{"a":[1.5,"é"],"b":1}'.encode()


def test_canonical_json_rejects_nan_and_non_string_keys() -> None:
    with pytest.raises(CanonicalError, match="non-finite"):
        canonical_json({"x": math.nan})
    with pytest.raises(CanonicalError, match="key"):
        canonical_json({1: 2})


def test_dataclasses_encode_by_field() -> None:
    ev = Event(0, "agent", "tool_call", "fetch_page", {"page": 1}, {"rows": []}, 0.0)
    assert digest(ev) == digest({"seq": 0, "actor": "agent", "kind": "tool_call",
                                 "name": "fetch_page", "args": {"page": 1},
                                 "result": {"rows": []}, "t": 0.0})
    a = Assessment("s", "1", "PASS", 1.0)
    assert b'"status":"PASS"' in canonical_json(a)


def test_rng_is_deterministic_and_label_sensitive() -> None:
    assert rng(1, "a").random() == rng(1, "a").random()
    assert rng(1, "a").random() != rng(1, "b").random()
    assert rng(1, "a").random() != rng(2, "a").random()


def test_string_seed_is_first_8_hex_of_sha256() -> None:
    # T1's legacy seed string; the spec's fingerprint.
    assert string_seed("T1_single_page:840:156:M:85:2021") == 2916913234


def test_no_other_randomness_in_package() -> None:
    # All randomness comes from records/rng.py (and stats' own seeded helper).
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "src" / "agentmetrology"
    allowed = {root / "records" / "rng.py", root / "stats" / "_seeding.py"}
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
