"""Whole-episode digests pinned from the code before the hot-path work (30976eb).

Every episode below exercises a path that was made cheaper: the rule's deferred cleaning at L2
and L0, duplicate injection and page drift through `string_bits`, row dicts from the constant-key
display and the drift templates, the stress wrapper's cheaper `rng`, the tool guard, and the
msgspec encoding of the submission digest. A digest moves if any byte of the record moves.
"""

from __future__ import annotations

import pytest

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import digest
from agentmetrology.run.episode import run_one

PINNED = [
    ("T3_duplicates", "rule", "L2", 0, "clean",
     "cfab6b46643cae32f8f71c139546f65a70c38213cd9ca19ab6cf3f6a991e595f"),
    ("T7_totals_trap", "rule", "L2", 1, "clean",
     "10cf9c452b89ea38b628318bcf5559e1567fbeb3017e8751abdc0377fc0d4297"),
    ("T8_mixed_faults", "rule", "L2", 2, "clean",
     "4b39060cb4a8980a26b5d21fdad365c2e00e7999d4cec48aab06a602bfec615f"),
    ("T9_adaptive_adversary", "rule", "L2", 3, "clean",
     "8b15d311c2c21f7fb88fb4f0911278abf2432fc5de779a25d9d96634a6d45f8d"),
    ("T9_adaptive_adversary", "rule", "L0", 3, "clean",
     "ba55ed2fd433d56f86e3276c9c699f25e4a9db4e69c67787268be62d08e65f23"),
    ("T6_page_drift", "scripted:careful", "L2", 4, "clean",
     "2c472a8908b8c443c5900aaeeac2adff80e8333a8b7728052e496b39c1c57db3"),
    ("T9_clean_ab", "scripted:careful", "L2", 5, "stress:escalating",
     "3b51472a43825d3793456844f2065df6c0dc3ee725bec7803d32d1ef11b87e1b"),
    ("T10_constrained_budget", "rule", "L1", 6, "clean",
     "116a7068bda70ef4edfa76e41596521ad057acaa1bc945ae3580cbf433d2563e"),
    # Pinned from 965be0e, before the per-call scaffold work: the L0 harness's inline first
    # fetch and its retries, adversary events recorded between calls, a mutation's renamed
    # tools, careful's get_task_info and own submission, the run log's status counts and the
    # service's submit and fetch checks.
    ("T4_rate_limit_429", "rule", "L0", 7, "clean",
     "2255743f5b888905a3d008fdaf47e488f2b68fe414e46451ed8e3c91f69246ff"),
    ("T5_server_error_500", "scripted:careful", "L0", 8, "clean",
     "bea76544ca1169f3f7a0c7f7deb34e597cfbec6ccaef777e2473feeb77c65164"),
    ("T10_constrained_budget", "rule", "L0", 9, "clean",
     "c47daf350aae10248f67393224725cf9d3db1e358131f23d16193f7bff84fff3"),
    ("T8_mixed_faults", "scripted:careful", "L2", 10, "clean",
     "7c868da1bd2778ea14b070049714dad49f2aee6b1dfb88a27de9046d02948ac2"),
    # Re-pinned when run logs stopped counting calls the service never saw: the rule calls
    # `fetch_page` by its original name under alias (an unknown tool) and its log, and the
    # harness's, said request=1 (their only change; scores unchanged: FAIL 0.0, judge 64.5).
    ("T3_duplicates", "rule", "L0", 11, "mut:alias",
     "9eafd7bab51e36db27a5f5cb845d2ba35d561f0f13bf24616fa191f808d3919c"),
    ("T9_clean_ab", "rule", "L0", 12, "stress:escalating",
     "6356a1bf12c53bc73b58a7c9e173acaff695e8a902342e38c3d45c07e5dd32cd"),
    # Pinned from c717c82, before the scripted policies' plain-function act: the rule's own
    # submission at L2 after a retry (its run log written from what each fetch gave), waits
    # on the fake clock, a mutation's renamed tools found by description.
    ("T4_rate_limit_429", "rule", "L2", 13, "clean",
     "fcce50459776ce25ae63e9a49a75aa6885ca8aae92ab0151cd684cad3fafe3ce"),
    ("T5_server_error_500", "rule", "L2", 14, "clean",
     "2959b86c70bf5ccf72d7a949d00626561627a72316e8755791a0a4fe78be6545"),
    ("T6_page_drift", "scripted:careful", "L2", 15, "mut:alias",
     "c5a0149e5731769a608e6ce914aed86195a33f2f5661925158f0db8be161c8ba"),
    ("T4_rate_limit_429", "scripted:careful", "L2", 16, "clean",
     "8f1035c4feb85e0057fbbf582ba88d1be6a1a379d47ac70bf05591da4c548700"),
]


@pytest.mark.parametrize(("task", "agent", "level", "seed", "condition", "want"), PINNED)
def test_episode_digest_is_the_one_before_the_hot_path_work(task: str, agent: str, level: str,
                                                            seed: int, condition: str,
                                                            want: str) -> None:
    se = run_one(get_env("comtrade"), task, seed, agent, level, condition=condition)
    assert digest(se.episode) == want


def test_drift_pages_are_fresh_dicts_each_time() -> None:
    env = ComtradeEnv("T6_page_drift", 2)
    first = env.tools["fetch_page"](page=1)["rows"]
    first[0]["qty"] = -1  # an agent that edits what it received changes nothing served later
    again = [env.tools["fetch_page"](page=p)["rows"] for p in (1, 2, 3)]
    assert all(r["qty"] != -1 for page in again for r in page)
    assert all(a is not b for page in again for a in page for b in first)


def test_tool_guard_messages_for_bad_calls() -> None:
    env = ComtradeEnv("T3_duplicates", 0)
    assert env.tools["fetch_page"]()["error"] == \
        "fetch_page: missing required argument(s) page"
    assert env.tools["fetch_page"](page=1, pg=2)["error"] == \
        "fetch_page: unknown argument(s) pg; expected page, page_size"
    assert env.tools["get_task_info"](x=1)["error"] == \
        "get_task_info: unknown argument(s) x; expected none"
    assert env.tools["submit_results"](data_jsonl="")["error"] == \
        "submit_results: missing required argument(s) metadata_json"
    assert env.requests_used == 0 and env.submission is None
