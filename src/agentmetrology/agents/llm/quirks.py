"""Provider quirks as data: which request parameters a model rejects, renames or cannot combine.

A quirk is matched against the model's name (the part after the last '/', so routed names such
as "openai/o3-mini" match too). Applying the table never fails: it returns the parameters that
will be sent and one record per change, which the episode keeps so that a reader can see that,
for example, a requested temperature was not sent to a reasoning model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Sampling controls OpenAI's reasoning models reject with HTTP 400.
_REASONING_REJECTS = ("temperature", "top_p", "presence_penalty", "frequency_penalty",
                      "logprobs", "top_logprobs", "logit_bias")


@dataclass(frozen=True, slots=True)
class Quirk:
    """One row of the table: a model-name pattern and what that model does not accept."""

    name: str
    pattern: str  # regular expression, searched case-insensitively in the model's base name
    drop: tuple[str, ...] = ()  # parameters the model rejects: removed before sending
    rename: tuple[tuple[str, str], ...] = ()  # (sent as, must be sent as)
    exclusive: tuple[tuple[str, str], ...] = ()  # (keep, drop) when both are given
    note: str = ""

    def matches(self, model: str) -> bool:
        """Return True when this quirk applies to `model`."""
        return re.search(self.pattern, base_name(model), re.IGNORECASE) is not None


QUIRKS: tuple[Quirk, ...] = (
    Quirk("openai-o-series", r"^o[1-9](-|$)",
          drop=(*_REASONING_REJECTS, "stop"),
          rename=(("max_tokens", "max_completion_tokens"),),
          note="OpenAI o-series reasoning models reject sampling controls and stop sequences "
               "and take max_completion_tokens instead of max_tokens"),
    Quirk("openai-gpt-5-reasoning", r"^gpt-5(?!.*-chat)",
          drop=(*_REASONING_REJECTS, "stop"),
          rename=(("max_tokens", "max_completion_tokens"),),
          note="GPT-5 reasoning models reject sampling controls and stop sequences and take "
               "max_completion_tokens"),
    Quirk("anthropic-sampling-exclusive", r"^claude-(opus|sonnet|haiku)-4-[1-9](?!\d)",
          exclusive=(("temperature", "top_p"),),
          note="recent Claude models reject temperature and top_p given together"),
    Quirk("deepseek-reasoner", r"^deepseek-reasoner",
          drop=("temperature", "top_p", "presence_penalty", "frequency_penalty", "logprobs",
                "top_logprobs"),
          note="deepseek-reasoner ignores or rejects sampling controls"),
)


def base_name(model: str) -> str:
    """Return the model name without a routing prefix ("openai/o3-mini" -> "o3-mini")."""
    return model.rsplit("/", 1)[-1]


def matching_quirks(model: str, table: Sequence[Quirk] = QUIRKS) -> list[Quirk]:
    """Return the quirks of `table` that apply to `model`, in table order."""
    return [q for q in table if q.matches(model)]


def _apply_one(q: Quirk, out: dict[str, Any], applied: list[dict[str, Any]]) -> None:
    for old, new in q.rename:
        if old in out:
            value = out.pop(old)
            if new in out:  # an explicit value under the right name wins
                applied.append({"quirk": q.name, "action": "dropped", "param": old,
                                "value": value, "reason": f"{new} given explicitly"})
            else:
                out[new] = value
                applied.append({"quirk": q.name, "action": "renamed", "param": old,
                                "to": new, "value": value})
    for param in q.drop:
        if param in out:
            applied.append({"quirk": q.name, "action": "dropped", "param": param,
                            "value": out.pop(param), "reason": "rejected by the model"})
    for keep, drop in q.exclusive:
        if keep in out and drop in out:
            applied.append({"quirk": q.name, "action": "dropped", "param": drop,
                            "value": out.pop(drop), "reason": f"not allowed together with {keep}"})


def apply_quirks(model: str, params: Mapping[str, Any],
                 table: Sequence[Quirk] = QUIRKS) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return (params to send, one record per change) after applying every matching quirk."""
    out = dict(params)
    applied: list[dict[str, Any]] = []
    for q in matching_quirks(model, table):
        _apply_one(q, out, applied)
    return out, applied
