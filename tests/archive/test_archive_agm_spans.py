"""A stored episode's requests (`usage.attempts`) as model-call spans: a value no honest writer
writes (a tagged NaN or infinite cost, a count as text) is unknown, never a number, and a load
problem names it; before, a tagged cost reached the cost check as a dict and `agm archive
audit` ended in a TypeError traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import store.tamper_fixtures as tf
from agentmetrology.archive.importers.agm_spans import episode_spans
from agentmetrology.archive.model import ArchiveEpisode
from agentmetrology.cli.archive_cmd import archive_app
from archive.test_archive_agm_blob_reads import EXTRA

EP = ArchiveEpisode(episode_id="c/t/s", task="t", model="m", scaffold="L0", run="c")
GOOD = {"attempt_id": "a1", "model": "m", "request_id": "r1", "input_tokens": 10,
        "output_tokens": 5, "cached_tokens": 2, "cost": 0.25}


def _one(**changes: Any) -> tuple[Any, list[str]]:
    spans, problems = episode_spans(EP, {"attempts": [{**GOOD, **changes}]})
    assert len(spans) == 1
    s = spans[0]
    return (s.cost, s.input_tokens, s.output_tokens, s.cached_tokens, s.usage_known), problems


def test_an_honest_request_reads_as_written() -> None:
    assert _one() == ((0.25, 10, 5, 2, True), [])
    assert _one(cost=None) == ((None, 10, 5, 2, True), [])  # unknown cost: no problem
    assert _one(input_tokens=None) == ((0.25, 0, 5, 2, False), [])  # not reported
    assert _one(cost=3) == ((3.0, 10, 5, 2, True), [])


@pytest.mark.parametrize("cost", [{"$float": "nan"}, {"$float": "inf"}, "0.25", True, -1.0,
                                  float("inf"), [0.25]])
def test_a_cost_that_is_not_a_cost_is_unknown_and_named(cost: Any) -> None:
    got, problems = _one(cost=cost)
    assert got == (None, 10, 5, 2, True)
    assert problems == [f"request a1: cost must be a number from 0 to 1e+09 or null, not "
                        f"{cost!r}: its cost is unknown"]


@pytest.mark.parametrize("name", ["input_tokens", "output_tokens", "cached_tokens"])
@pytest.mark.parametrize("value", ["12", -1, 2.5, {"$float": "nan"}, True])
def test_a_count_that_is_not_a_count_leaves_the_usage_unknown(name: str, value: Any) -> None:
    got, problems = _one(**{name: value})
    counts = {"input_tokens": 10, "output_tokens": 5, "cached_tokens": 2, name: 0}
    assert got == (0.25, counts["input_tokens"], counts["output_tokens"],
                   counts["cached_tokens"], False)
    assert problems == [f"request a1: {name} must be a non-negative integer or null, not "
                        f"{value!r}: its usage is unknown"]


def test_attempts_of_the_wrong_shape_are_named_not_read() -> None:
    assert episode_spans(EP, None) == ([], [])
    assert episode_spans(EP, {}) == ([], [])
    assert episode_spans(EP, [1]) == ([], ["usage is a list: no request read from it"])
    assert episode_spans(EP, {"attempts": {"a": 1}}) == (
        [], ["usage.attempts is an object: no request read from it"])
    spans, problems = episode_spans(EP, {"attempts": ["x", GOOD]})
    assert [s.span_id for s in spans] == ["c/t/s#a1"]
    assert problems == ["request 0 is a string, not an object: not read"]


@pytest.mark.parametrize("label", ["a NaN cost", "an infinite cost"])
def test_the_audit_of_a_store_with_a_tagged_cost_completes(tmp_path: Path, label: str) -> None:
    import json

    store = tf.record_store(tmp_path)
    edit, reseal = next((e[1], e[2]) for e in EXTRA if e[0] == label)
    tf.apply(store, edit, reseal)
    out = tmp_path / "out"
    res = CliRunner().invoke(archive_app, ["audit", str(store), "--out", str(out)])
    assert res.exception is None and res.exit_code == 0, res.output
    doc = json.loads((out / "archive.json").read_text())
    assert doc["evidence"]["qualified"] is False  # the store check names the blob
    [problem] = doc["load"]["problems"]
    assert problem.endswith("episode blob: request 0: cost must be a number from 0 to 1e+09 "
                            "or null, not {'$float': '" + ("nan" if "NaN" in label else "inf")
                            + "'}: its cost is unknown")
    assert doc["cost"]["billable_events"] == 1 and doc["cost"]["multiplicity"] is None


def _top(value: Any) -> Any:
    """The first episode's blob replaced by `value` as its whole contents (row repointed)."""
    import hashlib
    import json

    from agentmetrology.store.blobs import pack
    from archive.test_archive_agm_blob_reads import _first

    def edit(c: Any, store: Path) -> None:
        old = _first(c)
        data = json.dumps(value).encode()
        new = hashlib.sha256(data).hexdigest()
        tf._blob(store, new).parent.mkdir(exist_ok=True)
        tf._blob(store, new).write_bytes(pack(data))
        c.execute("UPDATE episodes SET episode_digest=? WHERE episode_digest=?", (new, old))
    return edit


def _edited(change: Any) -> Any:
    from archive.test_archive_agm_blob_reads import _rewrite

    return _rewrite(change)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    store = tf.record_store(tmp_path_factory.mktemp("odd-blobs"))
    return store, tf.snapshot(store)


@pytest.mark.parametrize("edit, problem", [
    (_edited(lambda p: p.update(meta=[1])), "its meta is a list, not an object: not read"),
    (_edited(lambda p: p.update(digests="x")), "its digests is a string, not an object: not read"),
    (_edited(lambda p: p.update(events="x")), "its events are a string, not a list"),
    (_edited(lambda p: p.update(events=["x"])), "its event 0 is a string, not an object"),
    (_edited(lambda p: p.update(events=[{"actor": [1]}])),
     "its event 0 has an actor that is a list, not a string"),
    (_edited(lambda p: p.update(events=[{"actor": 5}])),
     "its event 0 has an actor that is a number, not a string"),
    (_edited(lambda p: p.update(events=[{"actor": "agent"}, {"actor": True}])),
     "its event 1 has an actor that is a boolean, not a string"),
    (_edited(lambda p: p.update(events=[{"seq": "abc"}])),
     "its event 0 has a seq that is not a whole number: 'abc'"),
    (_edited(lambda p: p.update(usage=[1])), "usage is a list: no request read from it"),
    (_top([1, 2]), "it is a list, not an episode (an object)"),
    (_top(None), "it is null, not an episode (an object)"),
], ids=["meta", "digests", "events", "event", "actor", "actor-int", "actor-bool", "seq",
        "usage", "list", "null"])
def test_a_blob_of_the_wrong_shape_is_a_load_problem_not_a_traceback(
        recorded: tuple[Path, dict[str, bytes]], tmp_path: Path, edit: Any,
        problem: str) -> None:
    # Before: AttributeError tracebacks (meta, digests, events, event) and a TypeError in the
    # provenance check (an actor 5 or true beside "agent") out of `agm archive audit`; the
    # others were read as an episode blob load problem already.
    import json

    store, files = recorded
    tf.apply(store, edit, True)
    try:
        out = tmp_path / "out"
        res = CliRunner().invoke(archive_app, ["audit", str(store), "--out", str(out)])
        assert res.exception is None and res.exit_code == 0, res.output
        doc = json.loads((out / "archive.json").read_text())
        assert doc["load"]["problems"] == [
            f"store: tamper/rule/T3_duplicates/seed=0/clean/L0/repeat=0: episode blob: {problem}"]
        # The store check holds a blob's key, digests, usage, termination and meta to its
        # row; its events are bound by its digest alone (a forger who reseals the chain
        # rewrites them unseen, well-formed or not: the defence is a pinned head).
        assert doc["evidence"]["qualified"] is (problem.startswith("its event"))
    finally:
        tf.restore(store, files)
