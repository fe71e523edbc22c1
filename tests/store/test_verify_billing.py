"""The store check holds an episode's billing rows (`billable_attempts`) to its blob's
`usage.attempts` (docs/evidence.md, `billing_disagrees_with_evidence`).

A campaign writes each provider request to the ledger as it is answered, then the episode blob
lists the same requests. Before this check, a forger who lowered a billed row's cost, dropped
one or added one and rebuilt the chain and its head log left a store that qualified.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.store.verify import verify_store
from support import stores

KIND = "billing_disagrees_with_evidence"


def build_billed(root: Path) -> Path:
    """Record vf's campaign as a campaign does: every request billed before its episode; one
    more attempt of administration 3 billed twice, then interrupted (no episode)."""
    bs = vf.bindings()
    with stores.open_store(root) as st:
        st.register_campaign("c1", vf.plan_digest(bs), {"name": "c1"}, bs,
                             source_text="[campaign]\nname = 'c1'\n")
        run = st.begin_run("c1", "inline")
        for seed, kind, costs in ((0, "submitted", (0.25, 0.5)), (1, "infra_error", (0.125,))):
            adm = st.ledger.administration(vf.key(seed))
            assert adm is not None
            ep, scored = vf.episode(vf.key(seed), kind, costs)
            attempt = st.start_attempt(adm, run, "inline")
            for ba in ep.usage.attempts:
                assert st.record_billable(attempt, ba)
            st.record_episode(attempt, ep, scored)
        assert st.supersede_measurement_failures("c1", run) == 1
        adm = st.ledger.administration(vf.key(2))
        assert adm is not None
        killed = st.start_attempt(adm, run, "inline")
        for ba in stores.attempts((0.75, 1.5), step=3):
            st.record_billable(killed, ba)
        st.recover()
        st.end_run(run, "interrupted")
    return root


@pytest.fixture(name="billed", scope="module")
def billed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The billed store, built once per module."""
    return build_billed(tmp_path_factory.mktemp("billing") / "store")


@pytest.fixture(name="root")
def billed_copy(billed: Path, tmp_path: Path) -> Path:
    """A fresh copy of the billed store for one test to edit."""
    return vf.copy(billed, tmp_path / "store")


def _ids(root: Path, adm: int) -> list[int]:
    """Return the ids of the billing rows of the attempt that recorded `adm`'s episode."""
    return [int(str(r[0])) for r in vf.query(
        root, "SELECT b.id FROM billable_attempts b JOIN episodes e ON e.attempt = b.attempt "
              "WHERE e.administration = ? ORDER BY b.id", adm)]


def _findings(root: Path, mode: str = "full") -> list[tuple[str, str, str, str]]:
    return [t for t in vf.texts(verify_store(root, mode=mode)) if t[0] == KIND]


def _drop(root: Path, ref: int) -> None:
    """Delete billing row `ref` and its chain entry, the entries after it renumbered, every
    head recomputed and the head log rewritten to match (a forger leaving nothing broken)."""
    [(seq,)] = vf.query(root, "SELECT seq FROM chain WHERE tbl='billable_attempts' AND ref=?",
                        str(ref))
    n = int(str(seq))
    total = int(str(vf.query(root, "SELECT MAX(seq) FROM chain")[0][0]))
    vf.execute(root, f"DELETE FROM billable_attempts WHERE id={ref}",
               f"DELETE FROM chain WHERE seq={n}",
               *(f"UPDATE chain SET seq={s - 1} WHERE seq={s}" for s in range(n + 1, total + 1)))
    vf.relink(root)
    heads = dict(vf.query(root, "SELECT seq, head FROM chain"))
    log = root / "ledger.heads"
    lines = []
    for line in log.read_text().splitlines():
        length = int(line.split(" ")[0])
        length = length - 1 if length >= n else length
        lines.append(f"{length} {heads.get(length, line.split(' ')[1])}\n")
    log.write_text("".join(dict.fromkeys(lines)))


def test_the_billed_store_qualifies_in_every_mode(root: Path) -> None:
    for mode in ("full", "ledger", "hash-only"):
        q = verify_store(root, mode=mode)
        assert q.qualified, (mode, vf.texts(q))


def test_a_lowered_cost_resealed_is_found(root: Path) -> None:
    first = _ids(root, 1)[1]
    vf.reseal(root, f"UPDATE billable_attempts SET cost=0.001 WHERE id={first}",
              rows=(("billable_attempts", first),))
    assert verify_store(root, mode="hash-only").qualified  # every byte self-consistent
    for mode in ("full", "ledger"):
        assert _findings(root, mode) == [(
            KIND, "invalid_binding", f"billable_attempts id={first} (episodes administration=1)",
            "request a1: cost is 0.001 in the ledger but 0.5 in the episode blob")]


def test_a_billed_request_dropped_and_rechained_is_found(root: Path) -> None:
    _drop(root, _ids(root, 1)[0])
    assert verify_store(root, mode="hash-only").qualified
    assert _findings(root) == [(
        KIND, "invalid_binding", "episodes administration=1", "request a0 of the episode "
        "blob has no billing row, though the ledger bills 1 other request of its attempt")]


def test_a_request_added_to_a_recorded_episode_is_found(root: Path) -> None:
    [(attempt,)] = vf.query(root, "SELECT attempt FROM episodes WHERE administration=1")
    vf.execute(root, "INSERT INTO billable_attempts (attempt, billing_id, provider, model, "
               "request_id, input_tokens, output_tokens, cached_tokens, cost, latency_s, "
               f"outcome, recorded_at) VALUES ({attempt}, 'a9', 'fake', 'm', 'req9', 1, 1, 0, "
               "3.0, 0.01, 'ok', '2024-01-01T00:00:00Z')")
    [(ref,)] = vf.query(root, "SELECT MAX(id) FROM billable_attempts")
    vf.reseal(root, rows=(("billable_attempts", ref),))
    assert verify_store(root, mode="hash-only").qualified
    assert _findings(root) == [(
        KIND, "invalid_binding", f"billable_attempts id={ref} (episodes administration=1)",
        "request a9 is billed to the episode's attempt in the ledger but is not in its "
        "episode blob")]


def test_a_superseded_episode_is_held_to_its_billing_rows(root: Path) -> None:
    [(ref,)] = vf.query(root, "SELECT b.id FROM billable_attempts b JOIN superseded_episodes "
                              "s ON s.attempt = b.attempt")
    vf.reseal(root, f"UPDATE billable_attempts SET input_tokens=NULL WHERE id={ref}",
              rows=(("billable_attempts", ref),))
    [(sid,)] = vf.query(root, "SELECT id FROM superseded_episodes")
    assert _findings(root) == [(
        KIND, "invalid_binding", f"billable_attempts id={ref} (superseded_episodes id={sid})",
        "request a0: input_tokens is None in the ledger but 100 in the episode blob")]



def test_a_request_appended_to_an_old_episode_is_found_incrementally(root: Path) -> None:
    first = verify_store(root)
    assert first.qualified and first.resume is not None
    [(attempt,)] = vf.query(root, "SELECT attempt FROM episodes WHERE administration=1")
    vf.execute(root, "INSERT INTO billable_attempts (attempt, billing_id, provider, model, "
               "request_id, input_tokens, output_tokens, cached_tokens, cost, latency_s, "
               f"outcome, recorded_at) VALUES ({attempt}, 'a9', 'fake', 'm', 'r9', 1, 1, 0, "
               "3.0, 0.01, 'ok', '2024-01-01T00:00:00Z')")
    [(ref,)] = vf.query(root, "SELECT MAX(id) FROM billable_attempts")
    vf.forge(root, [("billable_attempts", ref)])  # appended, as a run appends a request
    q = verify_store(root, since=first.resume)
    assert q.since is not None and [p.kind for p in q.problems] == [KIND]


def test_floats_sqlite_prints_with_15_digits_compare_exactly(tmp_path: Path) -> None:
    # An honest store failed its check: quote() keeps 15 significant digits, and these two
    # (a timer's latency, tokens x prices) came back one digit off the blob's 17.
    import dataclasses

    root = tmp_path / "store"
    bs = vf.bindings()
    with stores.open_store(root) as st:
        st.register_campaign("c1", vf.plan_digest(bs), {"name": "c1"}, bs,
                             source_text="[campaign]\nname = 'c1'\n")
        run = st.begin_run("c1", "inline")
        adm = st.ledger.administration(vf.key(0))
        assert adm is not None
        ep, scored = vf.episode(vf.key(0), "submitted", (0.5,))
        ep.usage.attempts[0] = dataclasses.replace(
            ep.usage.attempts[0], latency_s=0.6589542533528709, cost=7.253606900465661e-07)
        attempt = st.start_attempt(adm, run, "inline")
        for ba in ep.usage.attempts:
            assert st.record_billable(attempt, ba)
        st.record_episode(attempt, ep, scored)
        st.end_run(run, "finished")
    for mode in ("full", "ledger"):
        assert _findings(root, mode) == []


def test_every_stored_type_reads_back_as_python_values() -> None:
    # The billing rows come out of SQLite as one JSON text, read with one json.loads: a REAL as
    # the double it is (17 digits; subnormals too), an infinite one, a BLOB and a quote-holding
    # TEXT as the texts the earlier quote()-based reading gave, so a forger's odd value still
    # compares unequal to the blob's and never stops the check.
    import sqlite3

    from agentmetrology.store.verify_billing import _COLUMNS, BILLED_SQL, billed_rows

    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE billable_attempts (id, attempt, {', '.join(_COLUMNS)})")
    stored = ["b-1", "openai", "it's", b"\x01\xab", 12, None, 2**62,
              7.253606900465661e-07, 5e-324, "NULL"]
    odd = ["b-2", float("inf"), float("-inf"), 0.6589542533528709, "X'01'", "5", 5.0,
           1e300, -2.5, "ok"]
    for i, values in enumerate((stored, odd)):
        conn.execute(f"INSERT INTO billable_attempts VALUES ({', '.join('?' * 12)})",
                     (i + 1, 7, *values))
    (text,) = conn.execute(f"SELECT {BILLED_SQL} FROM (SELECT 7 AS attempt) e").fetchone()
    rows = billed_rows(text)
    assert rows == [(1, ["b-1", "openai", "it's", "X'01AB'", 12, None, 2**62,
                         7.253606900465661e-07, 5e-324, "NULL"]),
                    (2, ["b-2", "Inf", "-Inf", 0.6589542533528709, "X'01'", "5", 5.0,
                         1e300, -2.5, "ok"])]
    assert [type(v) for v in rows[1][1]] == [str, str, str, float, str, str, float, float,
                                             float, str]
    (none,) = conn.execute(f"SELECT {BILLED_SQL} FROM (SELECT 8 AS attempt) e").fetchone()
    assert billed_rows(none) is None
