"""An Inspect sample's grade: its headline score read as a number in [0, 1], or why there is none.

The audit reads a score as a success probability: letters map to numbers (`C` 1, `I` 0, `P` 0.5,
`N` 0), a number must lie in [0, 1] (SCORE_RANGE) widened by the success tolerance (1e-6) at
either end, as `limits.score_outside` checks (1.0000001 is a pass, kept as read), and a boolean
is not a score (as the JSONL importer refuses one); anything else is an ungraded episode with
the reason, never a number.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.importers.limits import kind_name as _kind
from agentmetrology.archive.importers.limits import score_outside
from agentmetrology.archive.model import ArchiveEpisode, StoredGrade, is_success
from agentmetrology.archive.redact import redact
from agentmetrology.records.numbers import finite_float

_LETTER_SCORES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # correct, incorrect, partial, no answer


def score_value(value: Any) -> tuple[float | None, str]:
    """Return (numeric score, '') or (None, reason code) for one Inspect score value."""
    if value is None:
        return None, "unscored"
    if isinstance(value, bool):
        return float(value), ""
    if isinstance(value, int | float):
        num = finite_float(value)
        return (None, "unscored") if num is None else (num, "")
    if isinstance(value, str):
        if value in _LETTER_SCORES:
            return _LETTER_SCORES[value], ""
        try:
            num = finite_float(float(value))
        except ValueError:
            return None, "unsupported_score"
        return (num, "") if num is not None else (None, "unscored")
    return None, "unsupported_score"  # dict / list values need a reducer we do not guess


def error_text(err: Any) -> str:
    """Return a sample's error message (dict in sample files, string in summaries)."""
    if isinstance(err, dict):
        msg = err.get("message", "")
        return msg if isinstance(msg, str) else _kind(msg)
    if isinstance(err, str):
        return err
    return _kind(err) if err else ""


def _shown(raw: Any) -> str:
    if isinstance(raw, float) and raw != raw:
        return "NaN"
    if isinstance(raw, float | int) and not isinstance(raw, bool) and finite_float(raw) is None:
        return "non-finite or out-of-range number"
    return type(raw).__name__


def grade_sample(ep: ArchiveEpisode, sample: dict[str, Any], scorer: str | None) -> None:
    """Set the episode's grade, or its ungraded reason, from the sample's scores and error."""
    err = error_text(sample.get("error"))
    scores = sample.get("scores")
    if scores is not None and not isinstance(scores, dict):
        ep.reason = "unsupported_score"
        ep.reason_detail = f"scores is {_kind(scores)}, not an object of named scores"
        return
    scores = scores or {}
    name = scorer if scorer in scores else (sorted(scores)[0] if scores else None)
    if name is None:
        ep.reason = "sample_error" if err else "unscored"
        ep.reason_detail = redact(err) if err else "no score recorded for this sample"
        return
    entry = scores[name]
    if not isinstance(entry, dict):
        ep.reason = "unsupported_score"
        ep.reason_detail = f"scorer {name}: score is {_kind(entry)}, not a score object"
        return
    num, why = score_value(entry.get("value"))
    if err:  # a measurement failure is never a score, even when the scorer stored one
        ep.reason, ep.stored_score = "sample_error", num
        ep.reason_detail = redact(err) + ("; its stored score is ignored" if num is not None
                                          else "")
        return
    if num is None:
        ep.reason = why
        ep.reason_detail = f"scorer {name}: value {_shown(entry.get('value'))}"
        return
    if isinstance(entry.get("value"), bool):  # True would count as a pass, as 1.0 does
        ep.reason = "unsupported_score"
        ep.reason_detail = f"scorer {name}: value bool: a boolean is not a score"
        return
    if (outside := score_outside(num, f"scorer {name}: value")) is not None:
        ep.reason, ep.reason_detail, ep.stored_score = "score_out_of_range", outside, num
        return
    ep.grade = StoredGrade(score=num, passed=is_success(num),
                           detail={"scorer": name, "value": entry.get("value")})
    ep.stored_score = num
