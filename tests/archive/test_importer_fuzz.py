"""Fuzz every archive importer with hostile inputs: the CLI must answer 0 or 2, never crash.

Inputs come from a seeded generator (hypothesis is not a dependency): valid documents of each
format with every field, at every level, replaced by a hostile value (wrong JSON type, NaN,
1e400, a 400-digit integer, nesting 100,000 deep), plus zip bombs, pathological JSON and huge
declared counts. All cases run through `agm archive audit` in one worker process under a 1 GiB
address-space cap and a per-case alarm; each must exit 0 or 2 without an uncaught exception.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import write_zip

SEED = 20261201
MEMORY = 1 << 30
SECONDS_PER_CASE = 20
DEEP = "[" * 100_000 + "]" * 100_000
RAW = {"__NAN__": "NaN", "__INF__": "1e400", "__NINF__": "-Infinity",
       "__BIG__": "1" + "0" * 400, "__DEEP__": DEEP, "__MID__": "[" * 300 + "]" * 300}
HOSTILE: list[Any] = [None, True, -1, 0, 1.5, "x", "", [], {}, [1, "a"], {"k": []},
                      *RAW.keys()]

TAU_ROW = {"task_id": 0, "trial": 0, "reward": 1.0,
           "info": {"reward_info": {"reward": 1.0, "info": {"r_actions": True}},
                    "source": "s"},
           "traj": [{"role": "user", "content": "hi"},
                    {"role": "assistant", "content": None,
                     "tool_calls": [{"id": "c1", "function": {"name": "f",
                                                              "arguments": '{"a": 1}'}}]},
                    {"role": "tool", "name": "f", "content": "ok"}]}
JSONL_EP = {"task": "t", "model": "m", "scaffold": "s", "run": "r", "trial": 0,
            "events": [{"seq": 0, "kind": "tool_call", "name": "f", "args": {"a": 1},
                        "actor": "agent"}],
            "executed_calls": [{"name": "f", "args": {"a": 1}}],
            "grade": {"score": 1.0, "passed": True}, "stored_score": 1.0,
            "termination": "completed",
            "replay": {"mode": "verbatim", "requires": ["f"], "available": ["f"]}}
SPAN = {"span_id": "s1", "parent_id": None, "kind": "model", "model": "m",
        "response_id": "r1", "attempt_id": "a1", "usage": {"input": 10, "output": 5,
                                                           "cached": 0},
        "cost": 0.01, "run": "r", "episode_id": "e"}
HEADER = {"status": "success",
          "eval": {"task": "demo", "model": "m", "run_id": "R1", "solver": None,
                   "dataset": {"samples": 2, "sample_ids": ["a", "b"]},
                   "config": {"epochs": 1}, "scorers": [{"name": "acc"}]},
          "plan": {"steps": [{"solver": "generate"}]},
          "results": {"headline": {"scorer": "acc"}}}
SAMPLE = {"id": "a", "epoch": 1, "scores": {"acc": {"value": "C"}},
          "limit": {"type": "message"},
          "events": [{"event": "tool", "function": "f", "arguments": {"a": 1}, "id": "c1",
                      "result": "ok"},
                     {"event": "model", "model": "m", "uuid": "u1",
                      "output": {"choices": [{"message": {"tool_calls": [
                          {"function": "f", "arguments": {"a": 1}, "id": "c1"}]}}],
                          "usage": {"input_tokens": 10, "output_tokens": 5,
                                    "input_tokens_cache_read": 0, "total_cost": 0.1}},
                      "call": {"response": {"id": "resp1"}}}]}


def dumps(value: Any) -> str:
    """Return JSON text with the sentinel strings replaced by their raw hostile tokens."""
    text = json.dumps(value)
    for key, raw in RAW.items():
        text = text.replace(f'"{key}"', raw)
    return text


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Yield the path of every value inside a JSON document (the root included)."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in items:
        yield from paths(child, (*prefix, key))


def replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    """Return a deep copy of doc with the value at path replaced."""
    if not path:
        return new
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return out


def mutations(rng: random.Random, doc: Any, per_path: int) -> Iterator[tuple[str, Any]]:
    """Yield (label, document) with every path replaced by `per_path` hostile values."""
    for path in paths(doc):
        for new in rng.sample(HOSTILE, per_path):
            yield f"{'.'.join(map(str, path)) or 'root'}={new!s:.12}", replaced(doc, path, new)


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data, 6)[2:-4]


def _deflate_repeated(block: bytes, times: int, head: bytes = b"", tail: bytes = b"",
                      with_crc: bool = True) -> tuple[bytes, int, int]:
    """Return (raw deflate, size, CRC) of head + block * times + tail, built in milliseconds.

    After a full flush the compressor forgets its history, so every copy of the block
    compresses to the same bytes: one compressed copy is repeated. A bomb's header declares a
    size that is a lie anyway and CRC 0: it skips the CRC (2 GiB of crc32, most of building
    the cases) and gets 0.
    """
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    one = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    assert one == again
    last = c.compress(tail) + c.flush()
    crc = 0
    if with_crc:
        crc = zlib.crc32(head)
        for _ in range(times):
            crc = zlib.crc32(block, crc)
        crc = zlib.crc32(tail, crc)
    return first + one * times + last, len(head) + len(block) * times + len(tail), crc


def _raw_zip(path: Path, name: str, raw: bytes, size: int, method: int, crc: int = 0) -> None:
    """Write a one-member zip whose member holds `raw` and declares `size` bytes."""
    write_zip(path, {name: b""}, method=method, compress=lambda _: raw)
    data = bytearray(path.read_bytes())
    # patch the declared size (and CRC) in the local and central headers
    for sig, crc_at, size_at in ((b"PK\x03\x04", 14, 22), (b"PK\x01\x02", 16, 24)):
        at = data.index(sig)
        data[at + crc_at:at + crc_at + 4] = crc.to_bytes(4, "little")
        data[at + size_at:at + size_at + 4] = size.to_bytes(4, "little")
    path.write_bytes(bytes(data))


class Cases:
    """Collects (name, CLI args) and writes their input files into a directory."""

    def __init__(self, root: Path) -> None:
        self.root, self.items, self.n = root, [], 0
        self.out = root / "out"
        self.base = root / "base.jsonl"
        self.base.write_text(dumps(JSONL_EP) + "\n")

    def file(self, suffix: str, data: bytes | str) -> Path:
        self.n += 1
        path = self.root / f"c{self.n:04d}{suffix}"
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def add(self, name: str, path: Path, *extra: str) -> None:
        self.items.append({"name": name, "args": ["audit", str(path), "--out", str(self.out),
                                                  *extra]})

    def eval_log(self, header: Any, samples: dict[str, Any]) -> Path:
        self.n += 1
        path = self.root / f"c{self.n:04d}.eval"
        members = {"header.json": dumps(header).encode()}
        members.update({f"samples/{k}_epoch_1.json": dumps(v).encode()
                        for k, v in samples.items()})
        write_zip(path, members, method=8, compress=_deflate)
        return path


def build_cases(root: Path) -> list[dict[str, Any]]:
    """Return every fuzz case (deterministic for SEED), writing its input files under root."""
    rng = random.Random(SEED)
    cases = Cases(root)
    for label, row in mutations(rng, TAU_ROW, 1):
        cases.add(f"taubench {label}", cases.file(".json", dumps([TAU_ROW, row])))
    for label, ep in mutations(rng, JSONL_EP, 1):
        cases.add(f"jsonl {label}", cases.file(".jsonl", dumps(JSONL_EP) + "\n" + dumps(ep)))
    for label, span in mutations(rng, SPAN, 1):
        spans = cases.file(".spans.jsonl", dumps(span) + "\n")
        cases.add(f"spans {label}", cases.base, "--spans", str(spans))
    for label, header in mutations(rng, HEADER, 1):
        cases.add(f"inspect header {label}", cases.eval_log(header, {"a": SAMPLE}))
    for label, sample in mutations(rng, SAMPLE, 1):
        cases.add(f"inspect sample {label}", cases.eval_log(HEADER, {"a": sample, "b": SAMPLE}))
    _whole_documents(cases)
    _bombs_and_counts(cases)
    _stores(cases)
    return cases.items


def _whole_documents(cases: Cases) -> None:
    """Whole files of the wrong kind: every hostile value as the entire document."""
    for i, value in enumerate(HOSTILE):
        text = dumps(value)
        cases.add(f"file {i} json", cases.file(".json", text))
        cases.add(f"file {i} jsonl", cases.file(".jsonl", text + "\n"), "--format", "jsonl")
        cases.add(f"file {i} taubench", cases.file(".json", text), "--format", "taubench")
        cases.add(f"file {i} header", cases.eval_log(value, {}))
        cases.add(f"file {i} summaries", _summaries(cases, value))
    cases.add("binary", cases.file(".bin", bytes(range(256)) * 4))
    cases.add("latin-1 jsonl", cases.file(".jsonl", b'{"task": "\xe9"}\n'))
    cases.add("empty", cases.file(".jsonl", b""))


def _summaries(cases: Cases, value: Any) -> Path:
    cases.n += 1
    path = cases.root / f"c{cases.n:04d}.eval"
    write_zip(path, {"header.json": dumps(HEADER).encode(),
                     "summaries.json": dumps(value).encode()})
    return path


def _bombs_and_counts(cases: Cases) -> None:
    """Zip bombs, pathological JSON and plans far larger than the file."""
    header = dumps(HEADER).encode()
    bomb, _, _ = _deflate_repeated(bytes(1 << 20), 2048, with_crc=False)  # 2 GiB of 0s
    for size in (51, 60 << 20):
        path = cases.root / f"bomb-{size}.eval"
        _raw_zip(path, "header.json", bomb, size, method=8)
        cases.add(f"deflate bomb declaring {size} bytes", path)
    path = cases.root / "bomb-sample.eval"
    write_zip(path, {"header.json": header, "samples/a_epoch_1.json": b""}, method=8,
              compress=lambda d: _deflate(d) if d else bomb)
    cases.add("deflate bomb sample member", path)
    zstandard = pytest.importorskip("zstandard")
    zc = zstandard.ZstdCompressor(level=1).compressobj()
    zbomb = b"".join(zc.compress(bytes(1 << 20)) for _ in range(1024)) + zc.flush()
    for size in (51, 63 << 20):
        path = cases.root / f"zbomb-{size}.eval"
        write_zip(path, {"header.json": header, "samples/a_epoch_1.json": b""}, method=93,
                  compress=lambda d: zstandard.ZstdCompressor().compress(d) if d else zbomb)
        data = bytearray(path.read_bytes())  # declare `size` bytes for the sample member
        for sig, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
            at = data.rindex(sig)
            data[at + size_at:at + size_at + 4] = size.to_bytes(4, "little")
        path.write_bytes(bytes(data))
        cases.add(f"zstd bomb declaring {size} bytes", path)
    raw, size, crc = _deflate_repeated(b"a" * (1 << 20), 500, b'{"pad": "', b'"}')
    path = cases.root / "honest-500mb.eval"
    _raw_zip(path, "header.json", raw, size, method=8, crc=crc)
    cases.add("500 MB of valid JSON", path)
    raw, size, crc = _deflate_repeated(b"[]," * 349_525, 60, b"[", b"[]]")
    path = cases.root / "lists.eval"
    write_zip(path, {"header.json": header, "samples/a_epoch_1.json": b""}, method=8,
              compress=lambda d: _deflate(d) if d else raw)
    data = bytearray(path.read_bytes())  # 60 MiB that would parse to ~1.3 GiB of lists
    for sig, crc_at, size_at in ((b"PK\x03\x04", 14, 22), (b"PK\x01\x02", 16, 24)):
        at = data.rindex(sig)
        data[at + crc_at:at + crc_at + 4] = crc.to_bytes(4, "little")
        data[at + size_at:at + size_at + 4] = size.to_bytes(4, "little")
    path.write_bytes(bytes(data))
    cases.add("pathological JSON under the cap", path)
    for epochs in ("__BIG__", 10**6, 10**7, 10**12):
        h = json.loads(json.dumps(HEADER))
        h["eval"]["config"]["epochs"] = epochs
        cases.add(f"epochs {epochs!s:.12}", cases.eval_log(h, {"a": SAMPLE}))
    h = json.loads(json.dumps(HEADER))
    h["eval"]["dataset"]["sample_ids"] = list(range(300_000))
    cases.add("300k sample ids", cases.eval_log(h, {"a": SAMPLE}))
    rows = [{**TAU_ROW, "task_id": i, "trial": i} for i in range(600)]
    cases.add("taubench sparse grid", cases.file(".json", json.dumps(rows)))
    lines = "".join(json.dumps({"task": "t", "model": "m", "trial": i, "grade": i % 2}) + "\n"
                    for i in range(30_000))
    cases.add("jsonl 30,000 trials", cases.file(".jsonl", lines))


def _stores(cases: Cases) -> None:
    """Directories that look like agm stores but hold a damaged or empty ledger."""
    for name, data in (("garbage", bytes(range(256)) * 64), ("empty", b"")):
        store = cases.root / f"store-{name}"
        store.mkdir()
        (store / "ledger.sqlite").write_bytes(data)
        cases.add(f"agm store {name} ledger", store)
    store = cases.root / "store-foreign"
    store.mkdir()
    with sqlite3.connect(store / "ledger.sqlite") as conn:
        conn.execute("CREATE TABLE other (x)")
    cases.add("agm store foreign sqlite", store)
    logs = cases.root / "logs"
    logs.mkdir()
    (logs / "a.eval").write_bytes(cases.eval_log(HEADER, {"a": SAMPLE}).read_bytes())
    (logs / "b.eval").write_bytes(b"PK\x05\x06" + bytes(18))
    cases.add("log directory with one bad log", logs)


def run_cases(tmp_path: Path, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Run every case in the capped worker, assert none crashed, timed out or failed to say
    why it refused in one line, and return the results by case name."""
    manifest, results = tmp_path / "manifest.json", tmp_path / "results.json"
    manifest.write_text(json.dumps(items))
    worker = Path(__file__).with_name("fuzz_worker.py")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(worker), str(manifest), str(results),
                           str(MEMORY), str(SECONDS_PER_CASE)], env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    done = json.loads(results.read_text()) if results.exists() else []
    assert proc.returncode == 0, (proc.stderr[-2000:], done[-1:] if done else None)
    assert len(done) == len(items)
    # 1: the audit was written but graded no episode (a hostile record is kept ungraded)
    bad = [r for r in done if r["traceback"] or r["timeout"] or r["exit_code"] not in (0, 1, 2)
           or "Traceback" in r["stderr"]]
    assert not bad, json.dumps(bad[:5], indent=1)[:6000]
    refused = [r for r in done if r["exit_code"] == 2]
    assert all(len(r["stderr"].strip().splitlines()) == 1 for r in refused), \
        [r for r in refused if len(r["stderr"].strip().splitlines()) != 1][:3]
    unmeasured = [r for r in done if r["exit_code"] == 1]
    assert all(r["stderr"].startswith("error: no episode of ")
               and len(r["stderr"].strip().splitlines()) == 1 for r in unmeasured), \
        unmeasured[:3]
    assert max(r["peak_kib"] for r in done) * 1024 < MEMORY
    return {r["name"]: r for r in done}


def test_every_importer_survives_hostile_input(tmp_path: Path) -> None:
    items = build_cases(tmp_path)
    assert len(items) > 150
    by = run_cases(tmp_path, items)
    for name in ("deflate bomb declaring 51 bytes", "deflate bomb declaring 62914560 bytes",
                 "500 MB of valid JSON", "pathological JSON under the cap", "epochs 1000000",
                 "epochs 10000000", "300k sample ids", "agm store garbage ledger"):
        assert by[name]["exit_code"] == 2, by[name]
    assert by["jsonl 30,000 trials"]["exit_code"] == 0
    assert by["log directory with one bad log"]["exit_code"] == 0
