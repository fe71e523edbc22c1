"""A data.jsonl that starts with a UTF-8 byte order mark: the valid scorers (ground truth, the
contract's invented-row check) read its first row as JSON allows a parser to (the mark
ignored), in memory and streamed, and say so; the shape judge reads it as the original did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentmetrology.envs.comtrade.contract import VERSION as CONTRACT_VERSION
from agentmetrology.envs.comtrade.contract import _invented_totals
from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.scoring.ground_truth import GROUND_TRUTH_VERSION, ground_truth_f1
from agentmetrology.envs.comtrade.scoring.judge import shape_judge
from agentmetrology.envs.comtrade.scoring.streamed import read_streamed_dir
from agentmetrology.envs.comtrade.scoring.submission import (
    BOM_REASON,
    make_submission,
    read_submission_dir,
)

TASK, SEED = "T3_duplicates", 0
MARK = b"\xef\xbb\xbf"


def _data() -> bytes:
    return "".join(json.dumps(r) + "\n" for r in generate_rows(TASK, SEED)).encode()


def _readers(tmp_path: Path, data: bytes) -> list[object]:
    (tmp_path / "data.jsonl").write_bytes(data)
    return [make_submission(data), read_submission_dir(tmp_path),
            read_streamed_dir(tmp_path, batch_lines=1), read_streamed_dir(tmp_path)]


def test_a_leading_byte_order_mark_costs_no_row(tmp_path: Path) -> None:
    plain = ground_truth_f1(make_submission(_data()), TASK, SEED)
    assert plain.status == "PASS" and plain.reasons == ()
    for sub in _readers(tmp_path, MARK + _data()):
        got = ground_truth_f1(sub, TASK, SEED)  # type: ignore[arg-type]
        # Before 1.1.0: PARTIAL, one record missing and one unparsable line.
        assert (got.status, got.score, got.components) == ("PASS", 1.0, plain.components)
        assert got.reasons == (BOM_REASON,) and got.scorer_version == GROUND_TRUTH_VERSION
        # The evidence is the file as given: the mark is in the digest.
        assert got.evidence_digest != plain.evidence_digest


def test_the_judge_reads_the_marked_line_as_the_original_did(tmp_path: Path) -> None:
    plain = shape_judge(make_submission(_data()), TASK)
    for sub in _readers(tmp_path, MARK + _data()):
        marked = shape_judge(sub, TASK)  # type: ignore[arg-type]
        assert marked.scorer_version == plain.scorer_version == "1.0.0"
        assert marked.reasons == plain.reasons and BOM_REASON not in marked.reasons


@pytest.mark.parametrize("data, matched, lines, unparsable", [
    (MARK + b"\n" + _data(), 25, 25, 0),  # the mark alone on a line: a blank line
    # a mark inside the file is not a BOM
    (_data() + MARK + _data().split(b"\n")[0] + b"\n", 25, 26, 1),
    (b" " + MARK + _data(), 24, 25, 1),  # nor one after a space
])
def test_only_a_mark_that_starts_the_file_is_ignored(tmp_path: Path, data: bytes, matched: int,
                                                   lines: int, unparsable: int) -> None:
    for sub in _readers(tmp_path, data):
        c = ground_truth_f1(sub, TASK, SEED).components  # type: ignore[arg-type]
        assert (c["matched"], c["lines"], c["unparsable"]) == (matched, lines, unparsable)


def test_the_contract_reads_rows_as_the_ground_truth_does(tmp_path: Path) -> None:
    invented = json.dumps({"record_id": "made-up", "hs": "TOTAL", "isTotal": True}) + "\n"
    for sub in _readers(tmp_path, MARK + invented.encode() + _data()):
        assert _invented_totals(sub, TASK) == 1  # type: ignore[arg-type]
    assert CONTRACT_VERSION == "1.2.0"
