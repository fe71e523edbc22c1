"""`campaign status` scores: every target of the plan has an entry for every scorer, measured
or not, with the episodes it excluded counted by reason (store/status_scores.py).

Before, a target whose every episode was a measurement failure had no entry under `scores` (nor
a score row): a reader could not tell it from a target that does not exist.
"""

from __future__ import annotations

from agentmetrology.records import Assessment, EpisodeKey
from agentmetrology.store import EvidenceStore
from support.stores import assessment, bindings, episode_key, make_episode

GT, SJ = "ground_truth_f1", "shape_judge"


def _register(store: EvidenceStore, keys: list[EpisodeKey]) -> None:
    store.register_campaign("c1", "p" * 64, {"name": "c1"}, bindings(keys))


def _record(store: EvidenceStore, key: EpisodeKey, kind: str = "submitted",
            detail: str = "ok", scores: list[Assessment] | None = None) -> None:
    adm = store.ledger.administration(key)
    assert adm is not None
    ep, scored = make_episode(key, kind, text=detail)
    store.record_episode(store.start_attempt(adm, None, "inline"), ep,
                         scored if scores is None else scores)


def test_a_target_whose_every_episode_failed_has_null_scores_and_says_why(
        store: EvidenceStore) -> None:
    ok = [episode_key(i, target="ok") for i in range(2)]
    down = [episode_key(i, target="down") for i in range(3)]
    _register(store, [*ok, *down])
    for k in ok:
        _record(store, k)
    for k, why in zip(down, ["HTTP 503", "HTTP 503", "timed out"], strict=True):
        # a measurement failure's verdicts are UNKNOWN, as the runner records them
        _record(store, k, "infra_error", why, [assessment(GT, "UNKNOWN", None),
                                               assessment(SJ, "UNKNOWN", None)])
    scores = store.status("c1").to_json()["scores"]
    failed = {"count": 3, "by_reason": {"measurement failure": {
        "count": 3, "details": {"infra_error: HTTP 503": 2, "infra_error: timed out": 1}}}}
    assert scores["down"] == {
        sc: {"n": 0, "statuses": {}, "mean_score": None, "scored": 0, "excluded": failed}
        for sc in (GT, SJ)}
    assert scores["ok"][GT] == {"n": 2, "statuses": {"PASS": 2}, "mean_score": 1.0,
                                "scored": 2, "excluded": {"count": 0, "by_reason": {}}}


def test_every_reason_an_episode_has_no_score_is_counted(store: EvidenceStore) -> None:
    keys = [episode_key(i) for i in range(6)]
    _register(store, keys)
    _record(store, keys[0])
    _record(store, keys[1], "cancelled", "the run stopped")
    _record(store, keys[2], scores=[assessment(GT, "UNKNOWN", None),
                                    assessment(SJ, "PARTIAL", 50.0)])
    _record(store, keys[3], scores=[assessment(GT, "INVALID", None),
                                    assessment(SJ, "PARTIAL", 50.0)])
    _record(store, keys[4], scores=[assessment(GT, "PASS", None)])  # no shape_judge verdict
    # keys[5] is not recorded: not an excluded episode, a remaining one
    scores = store.status("c1").to_json()["scores"]["t1"]
    assert scores[GT]["excluded"] == {"count": 4, "by_reason": {
        "measurement failure": {"count": 1, "details": {"cancelled: the run stopped": 1}},
        "status INVALID": {"count": 1}, "status UNKNOWN": {"count": 1},
        "value null": {"count": 1}}}
    assert (scores[GT]["scored"], scores[GT]["mean_score"]) == (1, 1.0)
    assert scores[SJ]["excluded"] == {"count": 2, "by_reason": {
        "measurement failure": {"count": 1, "details": {"cancelled: the run stopped": 1}},
        "not assessed": {"count": 1}}}
    assert (scores[SJ]["scored"], scores[SJ]["mean_score"]) == (3, 50.0)


def test_a_campaign_with_nothing_recorded_lists_the_plans_scorers(store: EvidenceStore) -> None:
    _register(store, [episode_key(0), episode_key(0, target="t2")])
    empty = {"n": 0, "statuses": {}, "mean_score": None, "scored": 0,
             "excluded": {"count": 0, "by_reason": {}}}
    assert store.status("c1").to_json()["scores"] == {t: {GT: empty, SJ: empty}
                                                      for t in ("t1", "t2")}
