"""Importers never raise on arbitrary JSON: they load it or refuse with one UserError message.

Complements the seeded fuzz (test_importer_fuzz.py, which drives the CLI with hand-picked
hostile values): here hypothesis builds the documents, from valid episodes, spans and tau-bench
rows with any field replaced or dropped, and from arbitrary JSON. Whatever loads is then audited,
so no later stage crashes on what an importer let through.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.importers.taubench import load_taubench
from agentmetrology.archive.model import Archive
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.errors import UserError
from support.props import json_like, props

from .test_importer_fuzz import JSONL_EP, SPAN, TAU_ROW

ANY = json_like(leaves=12)


@st.composite
def mutated(draw: st.DrawFn, doc: Any) -> Any:
    """Return a copy of `doc` with up to three values, at any depth, replaced or removed."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(0, 3))):
        node = doc
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            child = node[key]
            if isinstance(child, dict | list) and child and draw(st.booleans()):
                node = child
                continue
            if isinstance(node, dict) and draw(st.booleans()):
                del node[key]
            else:
                node[key] = draw(ANY)
            break
    return doc


def _dump(value: Any) -> str:
    # Python's json writes NaN/Infinity literals, which real logs contain too.
    return json.dumps(value, ensure_ascii=False)


def _check(load: Any, path: Path) -> None:
    try:
        archive = load(path)
    except UserError as exc:
        assert str(exc).strip()  # a refusal says why
        return
    assert isinstance(archive, Archive)
    canonical_json(audit_archive(archive))  # the audit of whatever loaded is encodable


# Lines that are not JSON at all, written verbatim.
RAW_LINES = st.sampled_from(["{", "NaN", '{"span_id": ', "\ufeff{}"])
JSONL_LINE = st.one_of(st.one_of(mutated(JSONL_EP), mutated(SPAN), ANY).map(_dump), RAW_LINES)


@props(80)
@given(st.lists(JSONL_LINE, min_size=1, max_size=6))
def test_jsonl_importer_loads_or_refuses(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "episodes.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _check(lambda p: load_jsonl(p), path)
        _check(lambda p: load_archive(p, "jsonl"), path)
        _check(load_archive, path)


@props(100)
@given(st.one_of(st.lists(st.one_of(mutated(TAU_ROW), ANY), min_size=1, max_size=4),
                 mutated([TAU_ROW, TAU_ROW]), ANY))
def test_taubench_importer_loads_or_refuses(doc: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model-airline.json"
        path.write_text(_dump(doc), encoding="utf-8")
        _check(load_taubench, path)
        _check(lambda p: load_archive(p, "taubench"), path)
        _check(load_archive, path)


def test_mutation_strategy_reaches_valid_documents() -> None:
    # The strategies start from documents that load: a refusal of everything would be vacuous.
    with tempfile.TemporaryDirectory() as tmp:
        tau = Path(tmp) / "m-airline.json"
        tau.write_text(_dump([TAU_ROW]), encoding="utf-8")
        assert len(load_taubench(tau).episodes) == 1
        jl = Path(tmp) / "e.jsonl"
        jl.write_text(_dump(JSONL_EP) + "\n" + _dump(SPAN) + "\n", encoding="utf-8")
        archive = load_jsonl(jl)
        assert (len(archive.episodes), len(archive.spans)) == (1, 1)
