"""Query-string parameters of the viewer's pages, checked: a bad value is a 400, not a crash."""

from __future__ import annotations

from collections.abc import Mapping

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.reader_queries import (
    KEY_FIELDS,
    STATES,
    VERDICTS,
    EpisodeFilter,
)

PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_INT = 2**63 - 1
MAX_FIND = 200  # characters of a conversation search (a phrase, not a document)


class BadRequest(ValueError):
    """A query parameter the viewer cannot use; the message says which and why."""


def _int(params: Mapping[str, str], name: str, default: int | None = None,
         low: int = 0, high: int = MAX_INT) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, not {raw!r}") from None
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, not {value}")
    return value


def _text(params: Mapping[str, str], name: str) -> str | None:
    raw = params.get(name)
    return raw if raw else None


def episode_filter(params: Mapping[str, str]) -> EpisodeFilter:
    """Return the filter of the episode index from its query string."""
    status = _text(params, "status")
    if status is not None and status not in STATES:
        raise BadRequest(f"status must be one of {', '.join(STATES)}, not {status!r}")
    verdict = _text(params, "verdict")
    if verdict is not None and verdict not in VERDICTS:
        raise BadRequest(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    return EpisodeFilter(
        campaign=_text(params, "campaign"), target=_text(params, "target"),
        task=_text(params, "task"), seed=_int(params, "seed"), level=_text(params, "level"),
        condition=_text(params, "condition"), status=status, verdict=verdict,
        scorer=_text(params, "scorer"))


def paging(params: Mapping[str, str]) -> tuple[int, int]:
    """Return (page number from 1, page size) from the query string."""
    page = _int(params, "page", 1, low=1, high=10**9)
    size = _int(params, "per", PAGE_SIZE, low=1, high=MAX_PAGE_SIZE)
    assert page is not None and size is not None
    return page, size


def episode_key(params: Mapping[str, str]) -> EpisodeKey:
    """Return the key of the episode page from its query string (every field required)."""
    missing = [k for k in KEY_FIELDS if not params.get(k)]
    if missing:
        raise BadRequest(f"an episode link needs {', '.join(KEY_FIELDS)}; missing "
                         f"{', '.join(missing)}")
    seed = _int(params, "seed")
    repeat = _int(params, "repeat")
    assert seed is not None and repeat is not None
    return EpisodeKey(params["campaign"], params["target"], params["task"], seed,
                           params["condition"], params["level"], repeat)


def find_text(params: Mapping[str, str]) -> str | None:
    """Return the conversation search of the episode page (None when empty or blank)."""
    raw = (params.get("find") or "").strip()
    if len(raw) > MAX_FIND:
        raise BadRequest(f"find must be at most {MAX_FIND} characters, not {len(raw)}")
    return raw or None
