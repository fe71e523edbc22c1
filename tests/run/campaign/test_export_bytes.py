"""`agm export` writes, in every format, the bytes of the whole-export path (per-key reads, one
`json.dumps` per row, one Parquet table), though it streams and encodes by columns.

The store is the benchmark's realistic one (benchmarks/memory_stores.py, small) with a second
campaign (test_export_stream's): measurement failures, ungraded episodes, unknown costs.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run import export_encode
from agentmetrology.run.export import export_rows, stream_rows
from agentmetrology.run.export_encode import lines_encoder, parquet_chunks, text_chunks
from agentmetrology.run.export_values import _decode_bound
from agentmetrology.run.export_write import export_store, render
from agentmetrology.store import EvidenceStore
from run.campaign import test_export_stream

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
store = test_export_stream.store  # the same realistic store (a fixture)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_the_command_writes_the_whole_export_bytes(store: Path, tmp_path: Path,
                                                    fmt: str) -> None:
    out = tmp_path / f"e.{fmt}"
    rows, unrecorded = export_store(store, None, fmt, out, force=False)
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        whole = export_rows(st, None)
    assert (rows, unrecorded) == (len(whole.rows), whole.unrecorded) and rows > 1000
    assert any(r["cost"] is None for r in whole.rows)
    assert any(r["ground_truth_f1.status"] == "UNKNOWN" for r in whole.rows)
    assert out.read_bytes() == render(whole, fmt)


def test_parquet_in_row_groups_holds_the_same_table(store: Path) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        stream = stream_rows(st, None)
        grouped = b"".join(parquet_chunks(pa, pq, stream.columns, stream.values, batch=97))
        whole = render(export_rows(st, None), "parquet")
    meta = pq.ParquetFile(io.BytesIO(grouped)).metadata
    assert meta.num_row_groups == math.ceil(meta.num_rows / 97) > 1
    assert pq.read_table(io.BytesIO(grouped)).equals(pq.read_table(io.BytesIO(whole)))
    assert pq.read_schema(io.BytesIO(grouped)).equals(pq.read_schema(io.BytesIO(whole)),
                                                      check_metadata=True)


def test_an_empty_parquet_export_is_the_whole_path_file(store: Path) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        stream = stream_rows(st, [])
        assert b"".join(parquet_chunks(pa, pq, stream.columns, stream.values)) == render(
            export_rows(st, []), "parquet")


ODD_ROWS: list[list[Any]] = [
    ["plain", 1, 0.1 + 0.2, None, 'quote " and \\ back', True, {"b": [1, 2.5]}, "日本 é"],
    ["tab\there", -7, 1e300, None, "line\nbreak\x1f", False, None, "\x7f"],
    ["", 10**30, -0.0, None, "100%s", None, "x", "%d"],
]
ODD_COLUMNS = ["name", "n", "x", "gone", "text", "flag", "nested", "%s.score"]


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_lines_are_json_dumps_of_each_row(batch: int) -> None:
    want = "".join(json.dumps(dict(zip(ODD_COLUMNS, r, strict=True)), allow_nan=False,
                              ensure_ascii=False) + "\n" for r in ODD_ROWS)
    got = b"".join(text_chunks(ODD_COLUMNS, iter(ODD_ROWS), "jsonl", batch=batch))
    assert got.decode("utf-8") == want


def test_a_batch_of_nulls_only_is_null_lines() -> None:
    assert lines_encoder(["a%", "b"])([[None, None], [None, None]]) == (
        '{"a%": null, "b": null}\n' * 2)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_float_raises_as_json_does(bad: float) -> None:
    with pytest.raises(ValueError, match="Out of range float"):
        lines_encoder(["x"])([[1.0], [bad]])
    with pytest.raises(ValueError, match="Out of range float"):
        json.dumps({"x": bad}, allow_nan=False)


def test_only_escaped_characters_make_a_string_not_plain() -> None:
    assert export_encode._plain("abc 日本 \x7f")
    assert not any(export_encode._plain(f"a{c}b") for c in ['"', "\\", "\n", "\x00", "\x1f"])


@pytest.mark.parametrize("text", [
    '{"environment":"comtrade","profile":"seeded","key":{"seed":1}}', '{"profile":null}',
    '{"environment":"","profile":{"nested":[1,2.5]}}', '{"x":NaN,"profile":"p"}',
    '{"environment":"e","x":1e400}', '{"environment":"\\ud800"}'])
def test_a_binding_gives_the_fields_json_reads_from_it(text: str) -> None:
    bound = json.loads(text)
    got = _decode_bound(text)
    assert (got.environment, got.profile) == (bound.get("environment"), bound.get("profile"))


def _writer_csv(columns: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    # the earlier path, with a text a spreadsheet would run as a formula marked by a '
    writer.writerows(["" if v is None else "'" + v if isinstance(v, str) and v[:1] in
                      ("=", "+", "-", "@", "\t", "\r") else v for v in r] for r in rows)
    return buf.getvalue()


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_csv_lines_are_the_writers(batch: int) -> None:
    got = b"".join(text_chunks(ODD_COLUMNS, iter(ODD_ROWS), "csv", batch=batch))
    assert got.decode("utf-8") == _writer_csv(ODD_COLUMNS, ODD_ROWS)


_CELLS = ["a", "", " x ", "é日", "1,2", 'q"q', "l\nb", "c\rr", "t\tb", "\x7f", "%s", None, 0,
          -3, 10**20, 0.1, -0.0, 1e300, math.inf, math.nan, True, "=1+1", "+1", "-1", "@A1",
          "\tx", "\r=x", "a=b", "-", "=", "=SUM(A1,B1)"]


@pytest.mark.parametrize("seed", range(20))
def test_csv_of_random_cells_is_the_writers(seed: int) -> None:
    rng = random.Random(seed)
    width = rng.choice([1, 2, 5])
    columns = [f"c{i}" for i in range(width)]
    # a column draws from a few cells, so that many batches go through the line template
    pools = [rng.sample(_CELLS, rng.choice([1, 2, 3])) for _ in columns]
    rows = [[rng.choice(p) for p in pools] for _ in range(rng.randrange(0, 12))]
    got = b"".join(text_chunks(columns, iter(rows), "csv", batch=rng.choice([1, 4, 100])))
    assert got.decode("utf-8") == _writer_csv(columns, rows)
