"""The re-grade view of one stored episode (`/regrade`): the verdicts the store recorded beside
the current scorers' verdicts on the same submission and events — what `agm archive regrade
STORE` computes for every episode (archive.regrade.regrade_episode, the same call) — with the
conversation they judged below. Read-only: nothing is written back."""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.regrade import regrade_episode
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.store.reader import StoreReader
from agentmetrology.view.html import Html, score_text, url
from agentmetrology.view.pair_page import key_params
from agentmetrology.view.reader import is_measurement_failure
from agentmetrology.view.store_pages import NAV
from agentmetrology.view.transcript_view import STYLE, conversation


def _verdicts(h: Html, stored: dict[str, Any], now: dict[str, Any], failure: bool) -> str:
    rows = []
    for name in sorted(set(stored) | set(now)):
        old, new = stored.get(name), now.get(name)
        cells = [score_text(h, side["status"], side["score"], failure) if side else
                 '<span class="note">—</span>' for side in (old, new)]
        versions = " → ".join(h.t(s["scorer_version"]) for s in (old, new) if s)
        same = old is not None and new is not None and \
            (old["status"], old["score"]) == (new["status"], new["score"])
        mark = "same" if same else '<strong class="status-INVALID">changed</strong>'
        rows.append([h.t(name), *cells, versions, mark])
    return h.table(["scorer", "stored verdict", "current verdict", "version", ""], rows,
                   "regrade")


def regrade_page(h: Html, reader: StoreReader, key: EpisodeKey) -> str:
    """Return the old vs new verdicts of episode `key` and the transcript they judged."""
    data = reader.episode(key)
    ep = (data or {}).get("episode")
    if data is None or ep is None:
        raise LookupError("no recorded episode with this key in the store")
    plain = reader.blob_json(ep["episode_digest"])
    if not isinstance(plain, dict):
        raise LookupError("the episode's record cannot be read")
    name = str((plain.get("meta") or {}).get("environment") or DEFAULT_ENVIRONMENT)
    try:
        spec = get_env(name)
    except UserError as exc:  # a plug-in no longer installed: say so, as a missing page
        raise LookupError(f"environment {name!r} cannot be loaded to re-grade: {exc}") from None
    now = {a.scorer: {"status": a.status, "score": a.score, "scorer_version": a.scorer_version}
           for a in regrade_episode(spec, plain, key)}
    stored = {a["scorer"]: a for a in data.get("assessments") or []}
    title = f"Re-grade: {key.task} seed {key.seed}, {key.target} at {key.level}"
    body = (f'<p><a href="{url("/episode", **key_params(key))}">the episode</a> · the same '
            "submission and events scored by the current scorers, as <code>agm archive "
            "regrade</code> does; nothing is written.</p>"
            + _verdicts(h, stored, now, is_measurement_failure(ep["termination"])))
    digest = (plain.get("digests") or {}).get("transcript")
    if isinstance(digest, str):
        body += (f"<h2>The conversation both verdicts judged</h2>{STYLE}"
                 + conversation(h, reader.transcript(digest), plain))
    return h.page(title, body, NAV)
