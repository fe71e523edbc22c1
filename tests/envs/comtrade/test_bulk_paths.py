"""The bulk (column-wise) paths of row collection, parsing and scoring equal their loops."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade import ComtradeEnv, generator, payload
from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.payload import RowCollector
from agentmetrology.envs.comtrade.scoring import ground_truth, judge_rows
from agentmetrology.envs.comtrade.scoring.columns import uniform_columns
from agentmetrology.envs.comtrade.scoring.ground_truth import LineTally, _truth, _truth_rows
from agentmetrology.envs.comtrade.scoring.judge_rows import RowTally
from agentmetrology.envs.comtrade.scoring.submission import parse_jsonl, parse_lines
from agentmetrology.envs.comtrade.tasks import TASKS

TASK = "T3_duplicates"


def _rows(seed: int = 4) -> list[dict[str, Any]]:
    return generate_rows(TASK, seed)


def _changed(i: int, **fields: Any) -> list[dict[str, Any]]:
    rows = _rows()
    rows[i].update(fields)
    return rows


BATCHES: dict[str, list[list[Any]]] = {
    "perfect": [_rows()],
    "perfect in two batches": [_rows()[:10], _rows()[10:]],
    "a value differs": [_changed(3, tradeValue=1)],
    "year a string": [_changed(0, year="2021")],
    "year a float": [_changed(0, year=2021.0)],
    "a bool for an int": [_changed(5, qty=True)],
    "every year a string": [[{**r, "year": str(r["year"])} for r in _rows()]],
    "another seed's rows": [_rows(5)],
    "a spurious id": [_changed(2, record_id="made-up")],
    "a spurious id and a changed value": [_changed(2, record_id="x") + _changed(7, qty=3)[7:8]],
    "an id twice in a batch": [_rows() + _rows()[:1]],
    "an id again in a later batch": [_rows()[:5], _rows()[4:]],
    "a totals flag": [[*_rows()[:-1], {**_rows()[-1], "isTotal": True}]],
    "hs TOTAL": [_changed(1, hs="TOTAL")],
    "a totals id then its plain row": [[{**_rows()[0], "record_id": "t", "hs": "TOTAL"}],
                                       [{**_rows()[1], "record_id": "t"}]],
    "a missing field": [[{k: v for k, v in r.items() if k != "qty"} for r in _rows()]],
    "an extra field": [[{**r, "note": 1} for r in _rows()]],
    "a field renamed": [[{("value" if k == "qty" else k): v for k, v in r.items()}
                         for r in _rows()]],
    "a non-string id": [_changed(0, record_id=7)],
    "reversed": [_rows()[::-1]],
    "reversed, a value differs": [_changed(3, tradeValue=1)[::-1]],
    "reversed, a bool for an int": [_changed(5, qty=True)[::-1]],
    "every other row, reversed": [_rows()[::-2]],
    "another seed's rows reversed": [_rows(5)[::-1]],
    "not objects": [[*_rows()[:3], [1, 2], "x", None]],
    "empty": [[]],
}


@pytest.mark.parametrize("name", BATCHES)
@pytest.mark.parametrize("with_rows", [True, False])
def test_bulk_counts_equal_the_per_line_counts(name: str, with_rows: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> ground_truth.LineCounts:
        rows = _truth_rows(TASK, 4, "seeded") if with_rows else None
        cols = ground_truth._truth_columns(TASK, 4, "seeded") if with_rows else None
        tally = LineTally(_truth(TASK, 4, "seeded"), rows, cols)
        for batch in BATCHES[name]:
            tally.add(batch)
        return tally.counts()

    fast = run()
    monkeypatch.setattr(LineTally, "_add_plain", lambda self, values: False)
    assert fast == run()


def test_the_bulk_path_takes_plain_rows_and_refuses_the_rest() -> None:
    tally = LineTally(_truth(TASK, 4, "seeded"), _truth_rows(TASK, 4, "seeded"))
    assert tally._add_plain(_changed(0, year="2021"))  # mixed types: compared row by row
    assert tally.counts().mismatched == 1
    assert not tally._add_plain(_rows())  # every id seen already
    assert not tally._add_plain(_changed(1, hs="TOTAL"))


def _with(**fields: Any) -> list[dict[str, Any]]:
    return [{**r, **fields} for r in _rows()]


JUDGE_BATCHES: dict[str, list[list[Any]]] = {
    **BATCHES,
    "years out of range": [_with(year=1899), _with(year=2101), [{**_rows()[0], "year": 2100}]],
    "float years": [_with(year=2021.0), _with(year=float("nan"))],
    "bool years": [_with(year=True)],
    "negative values": [_changed(0, tradeValue=-1), _with(tradeValue=-0.5)],
    "a nan value": [_with(tradeValue=float("nan"))],
    "every qty null": [_with(qty=None)],
    "some qty null": [_changed(3, qty=None)],
    "quantity aliases": [_with(quantity=3, netWgt=None, value=-2, primaryValue="x")],
    "a list under a key field": [_changed(0, partner=[1, 2])],
    "a key field missing": [[{k: v for k, v in r.items() if k != "flow"} for r in _rows()]],
    "two shapes": [[*_rows()[:5], *_with(extra=1)[5:]]],
    "keys in another order": [[dict(reversed(r.items())) for r in _rows()]],
    "empty objects": [[{}, {}]],
}


@pytest.mark.parametrize("name", JUDGE_BATCHES)
def test_judge_column_tally_equals_the_per_row_tally(name: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> tuple[Any, ...]:
        t = RowTally(["year", "reporter", "partner", "flow", "hs", "record_id"],
                     list(_rows()[0]), 2021)
        for batch in JUDGE_BATCHES[name]:
            t.add(batch)
        return (t.lines, t.objects, t.keys, dict(t.shapes), list(t._counts), t.dedup_points(),
                t.valid_row_ratio(), t.type_consistency(), t.value_ranges())

    fast = run()
    monkeypatch.setattr(judge_rows, "uniform_columns", lambda values: None)
    slow = run()
    assert repr(fast) == repr(slow)  # repr: nan keys compare by identity in the sets


def test_uniform_columns_of_one_shape_only() -> None:
    rows = tuple(_rows())
    c = uniform_columns(rows)
    assert c is not None and c.keys == tuple(rows[0]) and c.column("qty") == tuple(
        r["qty"] for r in rows) and c.column("nope") is None
    assert uniform_columns(rows) is c  # asked again for the same batch: computed once
    assert uniform_columns(_changed(0, year="2021")).kinds[0] == {int, str}  # type: ignore[union-attr]
    assert uniform_columns([*_rows()[:2], *_with(extra=1)[2:]]) is None
    assert uniform_columns([*_rows(), None]) is None
    assert uniform_columns([]) is None


def test_ground_truth_value_check_by_columns_and_row_by_row() -> None:
    truth = _truth(TASK, 4, "seeded")
    rows, cols = _truth_rows(TASK, 4, "seeded"), ground_truth._truth_columns(TASK, 4, "seeded")
    for batch, mismatched in ((_rows(), 0), (_rows()[3:9], 0), (_changed(4, qty=True), 1),
                              (_changed(4, year=2021.0), 1), ([*_rows()[1:], _rows()[0]], 0),
                              (_rows()[::-1], 0), (_changed(6, qty=2.0)[::-3], 1)):
        tally = LineTally(truth, rows, cols)
        assert tally._add_plain(batch)
        assert tally.counts().mismatched == mismatched


def test_rows_out_of_generated_order_are_compared_by_columns() -> None:
    # genuine rows in another order (first copies of duplicated or drifted pages) need no
    # per-row check; one changed value or type still fails the column comparison
    tally = LineTally(_truth(TASK, 4, "seeded"), _truth_rows(TASK, 4, "seeded"),
                      ground_truth._truth_columns(TASK, 4, "seeded"))
    for batch, match in ((_rows()[::-1], True), (_rows()[5:1:-1], True), (_rows()[7:8], True),
                         (_changed(2, netWeight=0)[::-1], False),
                         (_changed(2, year=2021.0)[::-1], False), (_rows(5)[::-1], False)):
        columns = uniform_columns(batch)
        assert columns is not None and tally._columns_match(columns) is match


TEXTS = [
    "", "\n", "\n\n", '{"a":1}', '{"a":1}\n', '{"a":1}\n\n', '\n{"a":1}', '{"a":1}\n  \n{"b":2}\n',
    ' {"a":1} \r\n\t{"b":2}\t\n', '\xa0{"a":1}\n', '{"a":1}\u2028\n', '{"a":\n1}\n',
    '[1,\n2]\n3 4\n', '1 2\n', '{"a":1}{"b":2}\n', "NaN\n1e999\n", '"\\ud800"\n',
    "9" * 5000 + "\n", "[" * 100_000 + "]" * 100_000 + "\n", "garbage\n{}\n", "\ufeff{}\n",
    "\x0b{}\x1c\n", '{"a":1}\n\x85\n',
]


@pytest.mark.parametrize("text", TEXTS)
def test_whole_text_parse_equals_the_line_by_line_parse(text: str) -> None:
    fast, slow = parse_jsonl(text), parse_lines(text.split("\n"))
    assert fast.not_json == slow.not_json
    assert repr(fast.values) == repr(slow.values)  # repr: NaN is not equal to itself


PAGES: dict[str, list[Any]] = {
    **BATCHES,
    "a totals row first on each page": [[{**_rows()[0], "hs": "TOTAL", "record_id": "T-1"},
                                         *_rows()[:12]],
                                        [{"isTotal": True, "record_id": "T-2"}, *_rows()[12:]]],
    "only totals rows": [[{"is_total": 1, "record_id": "t"}], [{"hs": "TOTAL"}]],
    "a falsy totals flag": [[{**r, "isTotal": False, "is_total": 0} for r in _rows()]],
    "totals flags mixed": [[{**_rows()[0], "isTotal": 0, "is_total": "y"},
                            {**_rows()[1], "isTotal": [], "hs": "TOTAL"},
                            {**_rows()[2], "is_total": None}, *_rows()[3:]]],
    "a totals row last and in the middle": [[*_rows()[:5], {"isTotal": 1, "record_id": "m"},
                                             *_rows()[5:], {"hs": "TOTAL", "record_id": "e"}]],
    "a page that is not a list": ["x", {"rows": []}, _rows()],
    "an unhashable dedup value": [_changed(1, year=[2021])],
    "a dedup field missing": [[{k: v for k, v in r.items() if k != "hs"} for r in _rows()]],
    "a page twice": [_rows(), _rows()],
    "hs totals rows first, inside and last": [[
        {"hs": "TOTAL", "record_id": "a"}, *_rows()[:8], {"hs": "TOTAL", "record_id": "b"},
        {"hs": "TOTAL", "record_id": "c"}, *_rows()[8:], {**_rows()[0], "hs": "TOTAL"}]],
    "a row repeated on its page": [[*_rows()[:5], _rows()[2], *_rows()[5:12], _rows()[0]]],
    "earlier pages' rows among new ones": [_rows()[:10], [_rows()[3], *_rows()[10:20],
                                                          _rows()[9], *_rows()[20:]]],
    "duplicates, a totals row and a non-string id": [[
        {"isTotal": True, "record_id": "T-9"}, *_rows()[:6], _rows()[1],
        {**_rows()[1], "record_id": 7}, {**_rows()[1], "record_id": 7}]],
}


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize(("dedup", "drop_totals"), [(True, True), (False, True), (True, False),
                                                    (False, False)])
def test_page_collector_bulk_equals_its_row_loop(name: str, dedup: bool, drop_totals: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(payload, "BULK_MIN_ROWS", 0)  # short test pages take the bulk path too

    def run() -> RowCollector:
        c = RowCollector(dedup=dedup, drop_totals=drop_totals)
        for page in PAGES[name]:
            c.add(page)
        return c

    fast = run()
    monkeypatch.setattr(RowCollector, "_add_plain", lambda self, rows: False)
    slow = run()
    assert (fast.rows, fast.ids, fast._seen, fast.totals_dropped, fast.duplicates_dropped) == (
        slow.rows, slow.ids, slow._seen, slow.totals_dropped, slow.duplicates_dropped)
    assert [id(r) for r in fast.rows] == [id(r) for r in slow.rows]  # the same dicts, in order


ODD_ROWS: dict[str, list[list[Any]]] = {
    "falsy totals flags": [[{**_rows()[0], "isTotal": False}, {**_rows()[1], "is_total": 0},
                            {**_rows()[2], "isTotal": None, "is_total": ""}, _rows()[0]]],
    "an unhashable key value, twice": [[_changed(1, year=[2021])[1]] * 2 + _rows()[:3]],
    "a dict subclass": [[type("Row", (dict,), {})(_rows()[0]), _rows()[0], _rows()[1]]],
    "a missing record id": [[{k: v for k, v in r.items() if k != "record_id"}
                             for r in _rows()[:3]] * 2],
}


@pytest.mark.parametrize("name", [*PAGES, *ODD_ROWS])
@pytest.mark.parametrize(("dedup", "drop_totals"), [(True, True), (False, True), (True, False),
                                                    (False, False)])
def test_page_loop_equals_the_general_rule_row_by_row(name: str, dedup: bool,
                                                      drop_totals: bool) -> None:
    """The loop's plain-row steps do what `_add_row` (the general rule) does with each row."""
    fast, slow = (RowCollector(dedup=dedup, drop_totals=drop_totals) for _ in range(2))
    for page in {**PAGES, **ODD_ROWS}[name]:
        fast.add(page)  # short pages: the loop (BULK_MIN_ROWS)
        for row in page:
            slow._add_row(row)
    assert (fast.rows, fast.ids, fast._seen, fast.totals_dropped, fast.duplicates_dropped) == (
        slow.rows, slow.ids, slow._seen, slow.totals_dropped, slow.duplicates_dropped)
    assert [id(r) for r in fast.rows] == [id(r) for r in slow.rows]  # the same dicts, in order


@pytest.mark.parametrize("task", ["T3_duplicates", "T7_totals_trap", "T8_mixed_faults",
                                  "T9_adaptive_adversary", "T10_constrained_budget"])
def test_served_pages_bulk_equals_the_row_loop(
        task: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(payload, "BULK_MIN_ROWS", 0)
    for seed in range(20):
        env = ComtradeEnv(task, seed)
        pages = [obs["rows"] for page in range(1, TASKS[task].total_pages + 1)
                 for obs in (env.tools["fetch_page"](page=page) for _ in range(4))
                 if "rows" in obs]
        collectors = []
        for plain in (RowCollector._add_plain, lambda self, rows: False):
            monkeypatch.setattr(RowCollector, "_add_plain", plain)
            c = RowCollector()
            for page in pages:
                c.add(page)
            collectors.append(c)
        fast, slow = collectors
        assert fast.duplicates_dropped == slow.duplicates_dropped
        assert (fast.rows, fast.ids, fast._seen, fast.totals_dropped) == (
            slow.rows, slow.ids, slow._seen, slow.totals_dropped)
        assert [id(r) for r in fast.rows] == [id(r) for r in slow.rows]


def test_the_collector_takes_plain_pages_in_bulk() -> None:
    c = RowCollector()
    assert c._add_plain([{"isTotal": True}, *_rows()]) and c.totals_dropped == 1
    assert c._add_plain([*_rows()[:1], _rows()[2], _rows()[2]])  # keys seen or repeated
    assert (c.duplicates_dropped, len(c.rows)) == (3, len(_rows()))
    assert not c._add_plain([_changed(1, year=[2021])[1]])  # an unhashable key: the loop's
    assert not RowCollector(drop_totals=False)._add_plain([{"isTotal": True}])


@pytest.mark.parametrize(("task", "seed", "profile"), [
    ("T3_duplicates", 4, "seeded"), ("T2_multi_page", 11, "seeded"), ("T7_totals_trap", None,
                                                                        "legacy")])
def test_numpy_rows_are_the_loop_rows(task: str, seed: int | None, profile: str) -> None:
    t = generator.get_task(task)
    text = generator.seed_string(t, seed, profile)  # type: ignore[arg-type]
    by_loop, by_columns = generator._rows_by_loop(t, text), generator._rows_by_columns(t, text)
    assert by_loop == by_columns
    assert [tuple(map(type, r)) for r in by_loop] == [tuple(map(type, r)) for r in by_columns]


def test_generated_rows_are_built_only_when_rows_are_checked_one_by_one() -> None:
    key = (TASK, 4, "seeded")
    lazy = LineTally(_truth(*key), None, ground_truth._truth_columns(*key), rows_of=key)
    lazy.add(tuple(_rows()))  # every row equals its generated row, column by column
    assert lazy._rows is None and lazy.counts().mismatched == 0
    lazy = LineTally(_truth(*key), None, ground_truth._truth_columns(*key), rows_of=key)
    lazy.add(tuple(_changed(3, tradeValue=1)))
    assert lazy._rows is _truth_rows(*key) and lazy.counts().mismatched == 1
    assert not LineTally(_truth(*key), None).checks_values
