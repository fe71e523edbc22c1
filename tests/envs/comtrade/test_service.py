from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.envs.comtrade import ComtradeEnv, encoded, generate_rows
from agentmetrology.envs.comtrade.generator import is_totals_row, totals_row
from agentmetrology.envs.comtrade.payload import encode_payload
from agentmetrology.envs.comtrade.service import (
    ALREADY_SUBMITTED,
    BUDGET_ERROR,
    MAX_SUBMISSION_BYTES,
    non_blank_lines,
)
from agentmetrology.envs.comtrade.tasks import get_task


def fetch(env: ComtradeEnv, page: object, **kw: object) -> dict:
    return env.tools["fetch_page"](page=page, **kw)


def test_paging_is_one_indexed_with_has_more_and_past_end() -> None:
    env = ComtradeEnv("T2_multi_page", 0)
    first = fetch(env, 1)
    assert first["page"] == 1 and first["total_pages"] == 5 and first["total_rows"] == 2345
    assert first["has_more"] is True and len(first["rows"]) == 500
    assert first["rows"][0]["record_id"] == "T2_multi_page-000000"
    last = fetch(env, 5)
    assert len(last["rows"]) == 345 and last["has_more"] is False
    past = fetch(env, 6)
    assert past["rows"] == [] and past["has_more"] is False


def test_caller_page_size_is_accepted_and_ignored() -> None:
    env = ComtradeEnv("T3_duplicates", 0, "legacy")
    assert fetch(env, 1, page_size=3)["page_size"] == 10
    assert len(fetch(env, 1, page_size=3)["rows"]) == 10


@pytest.mark.parametrize("bad", [0, -3, "1", 1.0, None, True])
def test_bad_page_is_a_422_with_retry_flag(bad: object) -> None:
    env = ComtradeEnv("T1_single_page", 0)
    obs = fetch(env, bad)
    assert obs["status"] == 422 and obs["retry"] is True and "page" in obs["error"]
    assert env.requests_used == 1  # every fetch counts, failed ones too


@pytest.mark.parametrize("size", [-1, 0, 10**9, "big", 2.5])
def test_odd_page_size_is_ignored_with_a_note(size: object) -> None:
    # The spec: a caller's page_size is accepted and ignored. An odd one is not charged as a
    # fake transient error; the observation says why it was ignored.
    env = ComtradeEnv("T3_duplicates", 0, "legacy")
    obs = fetch(env, 1, page_size=size)
    assert len(obs["rows"]) == 10 and obs["page_size"] == 10
    assert "ignored" in obs["note"] and env.requests_used == 1
    assert "note" not in fetch(env, 1, page_size=500)


def test_honest_422_option_for_ablations() -> None:
    env = ComtradeEnv("T1_single_page", 0, honest_422=True)
    assert fetch(env, 0)["retry"] is False


def test_unknown_and_missing_arguments_are_error_observations() -> None:
    env = ComtradeEnv("T1_single_page", 0)
    assert "unknown argument" in env.tools["fetch_page"](pg=1)["error"]
    assert "missing" in env.tools["fetch_page"]()["error"]
    assert "missing" in env.tools["submit_results"](data_jsonl="")["error"]


def test_429_exactly_on_request_2_of_t4_legacy() -> None:
    env = ComtradeEnv("T4_rate_limit_429", 0, "legacy")
    results = [fetch(env, p) for p in (1, 2, 2, 3)]
    assert "rows" in results[0]
    assert results[1] == {"status": 429, "error": "HTTP Error 429: Too Many Requests",
                          "retry": True}
    assert "rows" in results[2] and "rows" in results[3]


def test_500_fires_once_on_t5_legacy() -> None:
    env = ComtradeEnv("T5_server_error_500", 0, "legacy")
    statuses = [fetch(env, p).get("status") for p in (1, 2, 2, 3)]
    assert statuses == [None, 500, None, None]


def test_seeded_faults_meet_a_clean_pass() -> None:
    hit = Counter()
    for seed in range(20):
        env = ComtradeEnv("T4_rate_limit_429", seed)
        statuses = []
        for p in (1, 2, 3):
            obs = fetch(env, p)
            statuses.append(obs.get("status"))
            while "rows" not in obs:
                obs = fetch(env, p)
        assert statuses.count(429) == 1 and statuses[0] is None
        hit[statuses.index(429) + 1] += 1
    assert set(hit) == {2, 3}  # the failing request index depends on the seed
    env = ComtradeEnv("T8_mixed_faults", 0)
    assert [fetch(env, p).get("status") for p in (1, 2, 3)] == [None, 429, 429]


def test_page_drift_differs_between_requests() -> None:
    env = ComtradeEnv("T6_page_drift", 0)
    a = [r["record_id"] for r in fetch(env, 1)["rows"]]
    b = [r["record_id"] for r in fetch(env, 1)["rows"]]
    assert a != b and len(a) == len(b) == 12
    legacy = ComtradeEnv("T6_page_drift", 0, "legacy")
    assert [r["record_id"] for r in fetch(legacy, 1)["rows"]] != [
        r["record_id"] for r in fetch(legacy, 1)["rows"]]


def test_totals_row_shape_t7() -> None:
    env = ComtradeEnv("T7_totals_trap", 0)
    rows = fetch(env, 2)["rows"]
    assert len(rows) == 251
    total, genuine = rows[0], rows[1:]
    assert total["record_id"] == "T7_totals_trap-TOTAL-0002"
    assert total["partner"] == "WLD" and total["hs"] == "TOTAL" and "cmdCode" not in total
    assert total["isTotal"] is True and total["is_total"] is True
    assert total["tradeValue"] == sum(r["tradeValue"] for r in genuine)
    assert total["qty"] == sum(r["qty"] for r in genuine)
    assert (total["year"], total["reporter"], total["flow"]) == (2017, "826", "M")


@pytest.mark.parametrize(("task", "seed", "profile"), [
    ("T7_totals_trap", 0, "seeded"), ("T7_totals_trap", None, "legacy"),
    ("T9_adaptive_adversary", None, "legacy"), ("T9_adaptive_adversary", 2, "seeded"),
])
def test_served_totals_rows_sum_the_rows_they_head(task: str, seed: int | None,
                                                   profile: str) -> None:
    # The service sums a fault-free page from its generated tuples; a page a fault changed
    # (T9's legacy duplicates) from its dicts: either way the sums of the rows served.
    env = ComtradeEnv(task, seed, profile)  # type: ignore[arg-type]
    heads = 0
    for page in range(1, env.task.rows // env.task.page_size + 2):
        obs = fetch(env, page)
        rows = obs.get("rows") or []
        if rows and is_totals_row(rows[0]):
            heads += 1
            assert rows[0] == totals_row(env.task, page, rows[1:])
    assert heads


def test_totals_over_inserted_copies_sum_the_rows_they_head_whatever_the_agent_did() -> None:
    # With inserted copies the service sums the generated tuples plus the copies; a copy of a
    # previous row the agent changed (a float, a bool, a string, a missing key) sends it back
    # to summing the page as totals_row does. Overwrites and drops always do.
    from agentmetrology.envs.comtrade.service import ComtradeService
    from agentmetrology.stress.adversary import Perturbation

    dup = Perturbation("corrupt", corruption="duplicate", rate=0.6)
    kinds = [(dup,), (Perturbation("corrupt", corruption="drop", rate=0.2), dup),
             (Perturbation("corrupt", corruption="duplicate", rate=0.6,
                           detail={"overwrite": True}),), (dup, dup)]
    edits = [None, ("netWeight", 2.5), ("qty", True), ("tradeValue", "41"), ("qty", None)]
    for seed in range(6):
        service = ComtradeService(get_task("T9_clean_ab"), seed)
        for page in range(1, 7):
            edit = edits[(seed + page) % len(edits)]
            if edit and service.last_rows:
                key, value = edit
                if value is None:
                    del service.last_rows[0][key]
                else:
                    service.last_rows[0][key] = value
            perts = (*kinds[(seed + page) % len(kinds)], Perturbation("totals"))
            rows = service.fetch(page, perturbations=perts)["rows"]
            if rows:
                assert rows[0] == totals_row(service.task, page, rows[1:])


def test_totals_row_sums_count_a_missing_value_as_zero_and_convert_with_int() -> None:
    task = get_task("T7_totals_trap")
    rows = [{"tradeValue": 5, "netWeight": 2.9, "qty": True}, {"tradeValue": "7", "qty": 1}]
    total = totals_row(task, 1, rows)  # type: ignore[arg-type]
    assert (total["tradeValue"], total["netWeight"], total["qty"]) == (12, 2, 2)


@pytest.mark.parametrize("task", ["T3_duplicates", "T10_constrained_budget"])
def test_seeded_duplicates_really_inject_and_lose_nothing(task: str) -> None:
    env = ComtradeEnv(task, 0)
    genuine = {r["record_id"] for r in generate_rows(task, 0)}
    seen, lines = set(), 0
    page = 1
    while True:
        obs = fetch(env, page)
        ids = [r["record_id"] for r in obs["rows"]]
        lines += len(ids)
        seen.update(ids)
        if not obs["has_more"]:
            break
        page += 1
    assert seen == genuine  # inserted, not overwritten: no genuine row is lost
    assert lines > len(genuine)  # and the duplicates are there


def test_legacy_floor_injects_nothing_on_t3() -> None:
    env = ComtradeEnv("T3_duplicates", 0, "legacy")
    ids = [r["record_id"] for p in (1, 2, 3) for r in fetch(env, p)["rows"]]
    assert len(ids) == len(set(ids)) == 25


def test_legacy_t8_overwrites_keep_page_length() -> None:
    env = ComtradeEnv("T8_mixed_faults", 0, "legacy")
    fetch(env, 1)
    fetch(env, 2)  # request 2: the 429
    rows = fetch(env, 2)["rows"]
    assert len(rows) == 20
    assert len({r["record_id"] for r in rows}) < 20  # copies overwrote genuine rows


def test_budget_error_is_not_counted() -> None:
    env = ComtradeEnv("T1_single_page", 0)
    for _ in range(5):
        assert "rows" in fetch(env, 1)
    assert fetch(env, 1) == {"error": BUDGET_ERROR}
    assert env.requests_used == 5
    info = env.tools["get_task_info"]()
    assert info["requests_remaining"] == 0 and info["requests_used"] == 5


def test_one_submission_per_episode() -> None:
    env = ComtradeEnv("T1_single_page", 0)
    submit = env.tools["submit_results"]
    assert submit(data_jsonl="", metadata_json="{}")["status"] == "accepted"
    assert submit(data_jsonl="", metadata_json="{}") == {"error": ALREADY_SUBMITTED}


def test_bad_submissions_are_error_observations_and_do_not_consume_the_submission() -> None:
    env = ComtradeEnv("T1_single_page", 0)
    submit = env.tools["submit_results"]
    assert "must be a string" in submit(data_jsonl=[1], metadata_json="{}")["error"]
    big = "x" * (10 * 1024 * 1024)
    assert "too large" in submit(data_jsonl=big, metadata_json="{}")["error"]
    assert env.submission is None
    assert submit(data_jsonl="", metadata_json="{}")["status"] == "accepted"


def test_submission_size_is_utf8_bytes_and_the_first_non_string_is_named() -> None:
    submit = ComtradeEnv("T1_single_page", 0).tools["submit_results"]
    # Under the limit in characters, over it in UTF-8 bytes (a lone surrogate is 3 bytes).
    wide = "\u00e9" * (MAX_SUBMISSION_BYTES // 2) + "\ud800"
    assert len(wide) < MAX_SUBMISSION_BYTES
    want = f"submission too large: {MAX_SUBMISSION_BYTES + 3 + 2} bytes"
    assert submit(data_jsonl=wide, metadata_json="{}")["error"].startswith(want)
    ascii_at_limit = "x" * (MAX_SUBMISSION_BYTES - 2)
    assert submit(data_jsonl=ascii_at_limit, metadata_json="", run_log="ab")["status"] == \
        "accepted"
    submit = ComtradeEnv("T1_single_page", 0).tools["submit_results"]
    assert submit(data_jsonl="", metadata_json=3)["error"].startswith(
        "metadata_json must be a string, got int")
    assert submit(data_jsonl=b"", metadata_json=3)["error"].startswith(
        "data_jsonl must be a string, got bytes")
    assert submit(data_jsonl="", metadata_json="", run_log=None)["error"].startswith(
        "run_log must be a string, got NoneType")


def test_bad_environment_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="seed"):
        ComtradeEnv("T1_single_page", -1)
    with pytest.raises(ValueError, match="profile"):
        ComtradeEnv("T1_single_page", 0, "nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="condition"):
        ComtradeEnv("T9_clean_ab", 0, condition="chaos")


@pytest.mark.parametrize("text", [
    "", "\n", "a", "a\n", "a\n\nb", "\na\n", "a\n \nb", "a\r\nb", "a\rb", "a\x0bb\x0c",
    "a\x1cb\x1d\x1e\x1f", "\t\n", "a\x85b", "a\u2028b", "\xa0\n", "{\"x\": 1}\n{}\n",
    "\na", "a\nb", "\na\nb\n", "\n\n", "\n\na\n\n\nb\n", "ab\n\n",
])
def test_lines_received_counts_non_blank_lines_as_splitlines_and_strip_do(text: str) -> None:
    # The fast path (ASCII, "\n" the only whitespace) and the general one agree with the
    # definition the acknowledgement has always used.
    assert non_blank_lines(text) == sum(map(bool, map(str.strip, text.splitlines())))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="\na{}", max_size=12))
def test_lines_received_of_any_newline_pattern(text: str) -> None:
    assert non_blank_lines(text) == sum(map(bool, map(str.strip, text.splitlines())))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "record_id", "hs"]),
                                st.one_of(st.text(st.characters(max_codepoint=127), max_size=6),
                                          st.text(max_size=6), st.integers(), st.none()),
                                max_size=3), max_size=6))
def test_lines_received_of_an_encoded_payload_is_its_line_count(
        rows: list[dict[str, object]]) -> None:
    # encode_payload notes its data's line count for the acknowledgement; whatever the rows
    # hold (blanks, control characters, line separators), the count is the definition's.
    data = encode_payload(rows, {"task_id": "T1_single_page"}, "")["data_jsonl"]
    assert non_blank_lines(data) == sum(map(bool, map(str.strip, data.splitlines())))
    env = ComtradeEnv("T1_single_page", 0)
    got = env.service.submit(data, "{}", "")
    assert got["lines_received"] == sum(map(bool, map(str.strip, data.splitlines())))


def test_a_large_payload_is_not_remembered_past_its_acknowledgement() -> None:
    # The encoder's note holds its text until the next one: a large text is never held, and
    # the line count is the definition's either way.
    rows = [{"i": i} for i in range(encoded.MAX_ROWS + 1)]
    small = encode_payload(rows[:3], {"task_id": "T1_single_page"}, "")["data_jsonl"]
    assert encoded.line_count(small) == 3
    data = encode_payload(rows, {"task_id": "T1_single_page"}, "")["data_jsonl"]
    assert encoded.line_count(data) is None and encoded.rows_of(data) is None
    assert encoded.line_count(small) is None  # the earlier note is gone, not kept
    assert non_blank_lines(data) == encoded.MAX_ROWS + 1
