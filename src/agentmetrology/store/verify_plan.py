"""Each campaign's plan digest recomputed from its sealed bindings, without holding them.

The plan digest is the canonical digest of {"campaign": name, "bindings": rows}, one row per
administration in plan order (`_plan_digest`). Its text, sorted keys and no whitespace, is
`{"bindings":[` then each row's own text, comma-separated, then `],"campaign":`, the name's
text and `}`: `PlanDigests` hashes each row's text as the binding is read, so the full check
holds no campaign's rows (they were most of its memory: a parsed binding per administration).
Where that text is not the canonical one (a binding text holding a tag-like key, or a NaN json
will not write), the campaign's rows are read again and digested by `_plan_digest`, as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from agentmetrology.records.canonical import digest, from_plain

BINDING_KEYS = {"key", "registration_id", "seed", "task_spec_digest", "target_config_digest",
                "scorer_versions"}
_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                         allow_nan=False).encode


def plan_row(bound: dict[str, Any]) -> dict[str, Any]:
    """Return a sealed binding's row of its campaign's plan."""
    return {"key": bound.get("key"), "task": bound.get("task_spec_digest"),
            "target": bound.get("target_config_digest"),
            "scorers": bound.get("scorer_versions"), "details": details(bound)}


def details(bound: dict[str, Any]) -> dict[str, Any]:
    """Return a sealed binding's details: every field but the administration's own."""
    return {k: v for k, v in bound.items() if k not in BINDING_KEYS}


class UnhashablePlan(ValueError):
    """Raised when a campaign's sealed bindings give no plan digest (no text can hold them)."""


_SURROGATE = "a sealed binding holds a lone surrogate, which no UTF-8 text holds"
_DEEP = "a sealed binding is nested too deep to hash"


class PlanDigests:
    """The plan digest of each campaign, hashed row by row as its bindings are read."""

    def __init__(self, names: Iterable[str]) -> None:
        self._hashes = {n: hashlib.sha256(b'{"bindings":[') for n in names}
        self.counts = dict.fromkeys(self._hashes, 0)
        self._walk: set[str] = set()  # campaigns json cannot write alone (a NaN)
        self._unhashable: dict[str, str] = {}  # campaign -> why no plan digest exists

    def add(self, name: str, row: dict[str, Any]) -> None:
        """Add the next row of campaign `name`'s plan."""
        n = self.counts[name]
        self.counts[name] = n + 1
        if name in self._walk or name in self._unhashable:
            return
        try:
            text = _JSON(row).encode("utf-8")
        except UnicodeEncodeError:  # registration could not have hashed it either
            self._unhashable[name] = _SURROGATE
            return
        except ValueError:  # a bare NaN token a forger wrote: the walk tags it
            self._walk.add(name)
            return
        except RecursionError:
            self._unhashable[name] = _DEEP
            return
        self._hashes[name].update((b"," if n else b"") + text)

    def digest(self, name: str, tagged: bool,
               rows: Callable[[str], list[dict[str, Any]]]) -> str:
        """Return campaign `name`'s plan digest; `rows(name)` reads its rows again when the
        text hashed is not the canonical one (`tagged`: a binding holds a tag-like key).
        Raises UnhashablePlan when no text holds them (a lone surrogate, nesting too deep)."""
        if name in self._unhashable:
            raise UnhashablePlan(self._unhashable[name])
        if tagged or name in self._walk:
            try:
                return _plan_digest(name, rows(name), tagged)
            except UnicodeEncodeError as exc:
                raise UnhashablePlan(_SURROGATE) from exc
            except RecursionError as exc:
                raise UnhashablePlan(_DEEP) from exc
        h = self._hashes[name].copy()
        h.update(b'],"campaign":' + _JSON(name).encode("utf-8") + b"}")
        return h.hexdigest()


def _plan_digest(name: str, rows: list[dict[str, Any]], tagged: bool) -> str:
    """Return the digest of a campaign's sealed plan, as `records.canonical.digest` gives it.

    The rows are parsed from the sealed canonical texts, so a tag in them (a non-finite float,
    an escaped mapping) is decoded first: canonical JSON then encodes it exactly as registration
    did (encoding the tag itself would escape it again). Without a tag-like key canonical JSON
    is one `json.dumps`, byte-identical to the full walk (a test holds them equal).
    """
    doc = {"campaign": name, "bindings": rows}
    if tagged:
        return digest(from_plain(doc))
    try:
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except ValueError:  # a bare NaN token a forger wrote: the walk tags it
        return digest(from_plain(doc))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# The dimensions a campaign's plan crosses (run.campaign.plan): every (target, level) a target
# runs at, by every task, seed, condition and repeat; and the configuration field naming each.
_AXES = (("tasks", "task"), ("seeds", "seed"), ("conditions", "condition"))


class PlanGrids:
    """The distinct values of each plan dimension of each campaign, gathered as its sealed
    administrations are read: a plan is a full grid, so one with a cell cut out (a target's
    failing administrations dropped, the planned count and plan digest recomputed) is not."""

    def __init__(self, names: Iterable[str]) -> None:
        self._axes: dict[str, dict[str, set[Any]]] = {
            n: {"pairs": set(), "task": set(), "seed": set(), "condition": set(),
                "repeat": set()} for n in names}

    def add(self, name: str, key: dict[str, Any]) -> None:
        """Add the key of the next administration of campaign `name`."""
        axes = self._axes[name]
        axes["pairs"].add((key["target"], key["level"]))
        for axis in ("task", "seed", "condition", "repeat"):
            axes[axis].add(key[axis])

    def gaps(self, name: str, count: int, config: Any) -> list[str]:
        """Return why campaign `name`'s `count` sealed administrations are not the grid their
        values cross, nor the one its stored configuration names (`config`: the decoded
        configuration blob, None when it cannot be read: the blob checks say why)."""
        axes = self._axes[name]
        sizes = [len(axes[a]) for a in ("pairs", "task", "seed", "condition", "repeat")]
        full = sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4]
        out = []
        if count != full:
            out.append(f"{count} administrations sealed, but the plan crosses {sizes[0]} "
                       f"target-level pair(s) x {sizes[1]} task(s) x {sizes[2]} seed(s) x "
                       f"{sizes[3]} condition(s) x {sizes[4]} repeat(s) = {full}: "
                       "administrations were cut out of the plan")
        if not isinstance(config, dict):
            return out
        named = {field: config.get(field) for field, _ in _AXES}
        named["repeats"] = (list(range(config["repeats"])) if type(config.get("repeats"))
                            is int else None)
        targets = config.get("targets")
        named["targets"] = ([t.get("name") for t in targets] if isinstance(targets, list)
                            and all(isinstance(t, dict) for t in targets) else None)
        sealed = {**{field: axes[axis] for field, axis in _AXES},
                  "repeats": axes["repeat"], "targets": {t for t, _ in axes["pairs"]}}
        for field, values in named.items():
            if not isinstance(values, list) or not count:
                continue  # a configuration of another shape (a served episode's) names none
            try:
                differs = set(values) != sealed[field]
            except TypeError:  # an unhashable value: no writer stores one
                differs = True
            if differs:
                out.append(f"its stored configuration names {field} {_few(values)}, the "
                           f"sealed administrations have {_few(sealed[field])}")
        return out


def _few(values: Iterable[Any]) -> str:
    """Return up to six values, sorted as text, for a message."""
    shown = sorted(map(str, values))
    return "[" + ", ".join(shown[:6]) + (f", ... {len(shown) - 6} more" if len(shown) > 6
                                         else "") + "]"
