"""A data.jsonl that is the generated rows' own text: its adopted parse is the real one."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.envs.comtrade import encoded
from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.payload import encode_payload
from agentmetrology.envs.comtrade.scoring import columns, genuine, ground_truth
from agentmetrology.envs.comtrade.scoring.genuine import adopt_genuine, genuine_parse
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.judge import shape_judge
from agentmetrology.envs.comtrade.scoring.submission import Submission, make_submission, parse_jsonl
from agentmetrology.envs.comtrade.tasks import TASKS, Profile

_ENC = msgspec.json.Encoder()
_TARGETS = [(t, s, p) for t in TASKS for s, p in ((0, "seeded"), (7, "seeded"), (None, "legacy"))]


def _text(task: str, seed: int | None, profile: Profile) -> str:
    return _ENC.encode_lines(generate_rows(task, seed, profile)).decode("utf-8")


def _typed(values: tuple[Any, ...]) -> list[Any]:
    """Return the values with every field's type and key order made explicit."""
    return [[(k, type(v), v) for k, v in d.items()] for d in values]


def _cols(task: str, seed: int | None, profile: Profile) -> tuple[tuple[Any, ...], ...]:
    return ground_truth._truth_columns(task, seed, profile)[1]


def _gathered_as_claimed(values: tuple[Any, ...], task: str, seed: int | None,
                         profile: Profile) -> None:
    """The remembered columns name the generated columns they were gathered from, and are
    those columns at each line's own row index (what lets ground truth skip comparing)."""
    c = columns.uniform_columns(values)
    truth = _cols(task, seed, profile)
    assert c is not None and c.gathered_from is truth
    index = genuine.id_index(task)
    ids = c.column("record_id")
    assert ids is not None
    assert c.cols == tuple(tuple(col[index[r]] for r in ids) for col in truth)


@pytest.mark.parametrize(("task", "seed", "profile"), _TARGETS)
def test_genuine_text_parse_and_columns_equal_parsing(task: str, seed: int | None,
                                                      profile: Profile) -> None:
    text = _text(task, seed, profile)
    got = genuine_parse(text, task, seed, profile, _cols(task, seed, profile))
    want = parse_jsonl(text)
    assert got is not None and got.not_json == want.not_json == 0
    assert _typed(got.values) == _typed(want.values)
    # the remembered columns are what the columns of the parse are
    assert columns.uniform_columns(got.values) == columns._columns(want.values)
    _gathered_as_claimed(got.values, task, seed, profile)


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1]


def _join(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def _known_variants(text: str) -> dict[str, str]:
    lines = _lines(text)
    return {
        "reversed": _join(lines[::-1]),
        "every other line": _join(lines[::2]),
        "the first line moved last": _join([*lines[1:], lines[0]]),
        "a line twice": _join([lines[0], *lines]),
        "one line": _join(lines[-1:]),
        "every line twice, interleaved": _join([x for line in lines for x in (line, line)]),
    }


@pytest.mark.parametrize("task", ["T1_single_page", "T3_duplicates", "T6_page_drift",
                                  "T7_totals_trap", "T9_adaptive_adversary"])
def test_lines_of_generated_rows_in_any_order_equal_parsing(task: str) -> None:
    text = _text(task, 3, "seeded")
    for name, other in _known_variants(text).items():
        got = genuine_parse(other, task, 3, "seeded", _cols(task, 3, "seeded"))
        want = parse_jsonl(other)
        assert got is not None, name
        assert _typed(got.values) == _typed(want.values), name
        assert columns.uniform_columns(got.values) == columns._columns(want.values), name
        _gathered_as_claimed(got.values, task, 3, "seeded")


def _other_variants(text: str, task: str) -> list[str]:
    lines = _lines(text)
    return [
        text[:-1],  # no final newline
        text + "\n",  # a blank line more
        _join([lines[0], "", *lines[1:]]),  # a blank line inside
        " " + text,  # whitespace the parse strips
        _join([*lines[:-1], lines[-1] + " "]),
        text.replace('"tradeValue":', '"tradeValue":1', 1),  # one value changed
        text.replace(',"qty":', ',"qty":-', 1),
        text.replace('"year":', '"year":1.0,"x":', 1),
        re.sub(r'"year":(\d+)', r'"year":\1.0', text, count=1),  # an equal float
        text.replace("\n", "\r\n", 1),
        _join([*lines[1:], lines[0].replace("}", ',"isTotal":true}')]),
        _join([*lines, _lines(_text(task, 4, "seeded"))[0]]),  # another seed's line
        _join([*lines, json.dumps(json.loads(lines[0]))]),  # the same row, spaced
        "",
    ]


@pytest.mark.parametrize("task", ["T1_single_page", "T3_duplicates", "T7_totals_trap"])
def test_other_texts_are_parsed(task: str) -> None:
    text = _text(task, 3, "seeded")
    for other in [*_other_variants(text, task), _text(task, 4, "seeded")]:
        assert other != text
        assert genuine_parse(other, task, 3, "seeded", _cols(task, 3, "seeded")) is None


def test_a_line_whose_id_names_another_row_is_parsed() -> None:
    """The row a line's id names is only a guess at which generated line it is: a line whose
    digits name another row, no row, or a negative one is read by parsing."""
    task = "T3_duplicates"
    lines = _lines(_text(task, 3, "seeded"))
    wrong = [lines[0].replace("-000000\"}", "-000001\"}"),  # row 0's values, row 1's id
             lines[1].replace("-000001\"}", "-000099\"}"),  # no such row
             lines[2].replace("-000002\"}", "--00002\"}"),  # a negative number
             lines[3].replace("-000003\"}", "-0000_3\"}")]  # int() reads it: still no row's
    for line in wrong:
        assert line not in lines
        other = _join([*lines[5:], line, *lines[:5]])  # out of order: the id path
        assert genuine_parse(other, task, 3, "seeded", _cols(task, 3, "seeded")) is None, line
        assert ground_truth_f1(make_submission(other), task, 3).components["lines"] == 26


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["", "0", "1", " ", "\n", '"', "}", "x", ".5"]),
       st.integers(0, 2))
def test_a_mutated_text_is_taken_only_for_its_own_parse(at: int, piece: str, cut: int) -> None:
    task = "T4_rate_limit_429"
    text = _text(task, 5, "seeded")
    i = at % (len(text) + 1)
    other = text[:i] + piece + text[i + cut:]
    got = genuine_parse(other, task, 5, "seeded", _cols(task, 5, "seeded"))
    want = parse_jsonl(other)
    if got is not None:  # e.g. a cut that removes one whole line
        assert set(_lines(other)) <= set(_lines(text))
        assert _typed(got.values) == _typed(want.values)
        assert columns.uniform_columns(got.values) == columns._columns(want.values)
        _gathered_as_claimed(got.values, task, 5, "seeded")
    elif other == text:
        pytest.fail("the generated text itself was not recognised")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 29), min_size=1, max_size=40))
def test_any_choice_of_generated_lines_equals_parsing(at: list[int]) -> None:
    task = "T5_server_error_500"  # 30 rows
    other = _join([_lines(_text(task, 2, "seeded"))[i] for i in at])
    got = genuine_parse(other, task, 2, "seeded", _cols(task, 2, "seeded"))
    want = parse_jsonl(other)
    assert got is not None
    assert _typed(got.values) == _typed(want.values)
    assert len(set(map(id, got.values))) == len(at)  # a dict of its own per line, as parsed
    assert columns.uniform_columns(got.values) == columns._columns(want.values)
    _gathered_as_claimed(got.values, task, 2, "seeded")


@pytest.mark.parametrize(("task", "seed", "profile"), _TARGETS)
def test_scores_with_and_without_the_adopted_parse_are_equal(task: str, seed: int | None,
                                                             profile: Profile) -> None:
    text = _text(task, seed, profile)
    for name, other in {"generated": text, **_known_variants(text)}.items():
        meta = json.dumps({"task_id": task, "schema": ["year", "hs", "record_id"],
                           "dedup_key": ["year", "hs", "record_id"],
                           "row_count": other.count("\n")})
        adopted = make_submission(other, meta, "page=1\ncomplete")
        parsed = make_submission(other, meta, "page=1\ncomplete")
        assert parsed.parsed_data.lines == other.count("\n")  # parsed now: nothing to adopt
        assert not adopt_genuine(parsed, task, seed, profile, _cols(task, seed, profile))
        a_gt = ground_truth_f1(adopted, task, seed, profile)
        assert adopted.parse_cached(), name  # the scorer adopted the known parse
        assert a_gt == ground_truth_f1(parsed, task, seed, profile), name
        if name in ("generated", "reversed", "the first line moved last"):  # every row once
            assert a_gt.score == 1.0 and a_gt.status == "PASS", name
        else:
            assert a_gt.score is not None and a_gt.score < 1.0, name
        assert shape_judge(adopted, task) == shape_judge(parsed, task), name


def test_a_parse_already_made_is_kept() -> None:
    task = "T2_multi_page"
    sub = Submission(_text(task, 1, "seeded"))
    made = sub.parsed_data
    assert not adopt_genuine(sub, task, 1, "seeded", _cols(task, 1, "seeded"))
    assert sub.parsed_data is made


def _check_parse(text: str, task: str, seed: int) -> None:
    got = genuine_parse(text, task, seed, "seeded", _cols(task, seed, "seeded"))
    want = parse_jsonl(text)
    assert got is not None
    assert _typed(got.values) == _typed(want.values)
    assert columns.uniform_columns(got.values) == columns._columns(want.values)
    _gathered_as_claimed(got.values, task, seed, "seeded")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 29), min_size=1, max_size=40),
       st.sampled_from(["kept", "reordered", "id of another row", "negative id", "not a dict",
                        "emptied"]))
def test_the_encoders_rows_name_the_lines_or_are_ignored(at: list[int], change: str) -> None:
    """The rows the encoder wrote a text from (encoded.rows_of) are a hint the text path
    would reach too: kept, the parse is the text's; changed after encoding (the agent's to
    change), the hint fails its byte comparison and the text decides, as without it."""
    task, seed = "T5_server_error_500", 2  # 30 rows
    generated = generate_rows(task, seed)
    rows = [dict(generated[i]) for i in at]
    text = encode_payload(rows, {"task_id": task}, "")["data_jsonl"]
    index = genuine.id_index(task)

    def hinted_rows(text: str) -> list[int] | None:
        return genuine._hinted_rows(genuine._record_ids(encoded.rows_of(text)), index)

    hinted = hinted_rows(text)
    assert hinted == at  # every row's own number, before any change
    if change == "reordered":
        rows.reverse()
    elif change == "id of another row":
        rows[0]["record_id"] = generated[(at[0] + 1) % 30]["record_id"]
    elif change == "negative id":
        rows[-1]["record_id"] = "T5_server_error_500--00002"
    elif change == "not a dict":
        rows[0] = 7  # type: ignore[call-overload]
    elif change == "emptied":
        rows.clear()
    if change != "kept" and not (change == "reordered" and at == at[::-1]):
        assert hinted_rows(text) != at  # a wrong hint: the text path decides
    _check_parse(text, task, seed)
    other = text.encode().decode()  # the same text, another object: no hint at all
    assert other is not text and hinted_rows(other) is None
    _check_parse(other, task, seed)


@pytest.mark.parametrize("change", ["kept", "a value", "an id", "a row dropped", "not a dict"])
def test_the_encoders_rows_in_generation_order_take_the_whole_text_path(change: str) -> None:
    """Rows noted in generation order are read by comparing the whole text, not by the hint;
    changed after encoding, in order or not, the text still decides."""
    task, seed = "T4_rate_limit_429", 1
    rows = generate_rows(task, seed)
    text = encode_payload(rows, {"task_id": task}, "")["data_jsonl"]
    ids = ground_truth._truth_columns(task, seed, "seeded")[1][genuine._RID_AT]
    assert genuine._record_ids(encoded.rows_of(text)) == ids  # in generation order
    if change == "a value":
        rows[3]["tradeValue"] += 1  # ids still in order
    elif change == "an id":
        rows[3]["record_id"] = rows[4]["record_id"]
    elif change == "a row dropped":
        rows.pop()
    elif change == "not a dict":
        rows[0] = 7  # type: ignore[call-overload]
    in_order = genuine._record_ids(encoded.rows_of(text)) == ids
    assert in_order == (change in ("kept", "a value"))
    _check_parse(text, task, seed)  # the parse of the text as encoded, whatever the rows now
