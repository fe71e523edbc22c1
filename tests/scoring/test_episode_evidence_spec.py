"""score_episode's evidence digest is the episode's recorded submission digest, or "" when the
episode recorded none: never None, which lets a scorer digest the submission itself and cite a
blob the store never held (comtrade's scorers do so when called with None)."""

from __future__ import annotations

from agentmetrology.envs.registry import get_env
from agentmetrology.records.episode import Episode
from agentmetrology.scoring.episode import score_episode, score_submission
from support.stores import episode, episode_key

SPEC = get_env("comtrade")
SUBMISSION = {"data.jsonl": "{}\n"}


def _episode(digests: dict[str, str]) -> Episode:
    return episode(episode_key(4, "c", "t", task="T1_single_page"), sub=SUBMISSION,
                   digests=digests)


def test_an_episode_without_a_submission_digest_cites_no_evidence() -> None:
    assessed = score_episode(SPEC, _episode({}))
    assert [(a.scorer, a.evidence_digest) for a in assessed] == [
        ("ground_truth_f1", ""), ("shape_judge", "")]
    # called directly with no digest, the same scorers digest the submission themselves
    direct = score_submission(SPEC, SUBMISSION, "T1_single_page", 4, "seeded")
    assert all(len(a.evidence_digest) == 64 for a in direct)


def test_an_episode_cites_its_recorded_submission_digest() -> None:
    assessed = score_episode(SPEC, _episode({"submission": "ab" * 32}))
    assert [a.evidence_digest for a in assessed] == ["ab" * 32, "ab" * 32]
