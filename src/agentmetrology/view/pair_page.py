"""The paired view of a mutation: the original and mutated episodes side by side.

For a mutated administration (condition BASE+mut:NAME) and its original (condition BASE, the
same campaign, target, task, seed, level and repeat): the scores of both beside the
counterfactual rescoring of the mutated trajectory (what the original scorers give it once the
mutation is undone: `agm diagnose`'s rescoring), the two action sequences aligned step by step
with the first divergence marked, and the two conversations when the episodes have them.
Actions are compared after the mutation's inverse map (an aliased tool name counts as the
original name), so a renamed tool alone is not a divergence.
"""

from __future__ import annotations

import json
from itertools import zip_longest
from typing import Any

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.mutations import get_mutation, split_condition
from agentmetrology.mutations.apply import invert_trajectory
from agentmetrology.records.episode import Episode, EpisodeKey, episode_from_plain
from agentmetrology.records.errors import UserError
from agentmetrology.scoring.rescore import not_rescorable, original_tool_names, rescore_episode
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.reader_queries import KEY_FIELDS
from agentmetrology.view.html import Html, score_text, url
from agentmetrology.view.reader import is_measurement_failure, pretty_json
from agentmetrology.view.store_pages import NAV
from agentmetrology.view.transcript_view import STYLE, conversation

CELL = 300  # characters of a call's arguments or result shown in the aligned table
SIDE = ('<style>.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem}'
        '.pair>div{min-width:0;overflow-x:auto}.diverge{background:#fde2e2}</style>')


def key_params(key: EpisodeKey) -> dict[str, Any]:
    """Return an episode key as the query parameters of its pages."""
    return {f: getattr(key, f) for f in KEY_FIELDS}


def original_key(key: EpisodeKey) -> EpisodeKey | None:
    """Return the key of a mutated episode's original, or None when `key` is not mutated."""
    base, mutation = split_condition(key.condition)
    if mutation is None:
        return None
    return EpisodeKey(key.campaign, key.target, key.task, key.seed, base, key.level, key.repeat)


def _episode(reader: StoreReader, data: dict[str, Any] | None) -> Episode | None:
    ep = (data or {}).get("episode")
    if ep is None:
        return None
    plain = reader.blob_json(ep["episode_digest"])
    return episode_from_plain(plain) if isinstance(plain, dict) else None


def _actions(events: Any) -> list[tuple[str, Any, Any]]:
    """Return the agent's tool calls (name, arguments, result) in order."""
    return [(e.name, e.args, e.result) for e in events
            if e.kind in ("tool_call", "intercepted") and e.actor == "agent"]


def first_divergence(original: Episode, mutated: Episode,
                     tool_names: list[str]) -> int | None:
    """Return the index of the first action where the two episodes differ (after the inverse
    map), the shorter length when one is a prefix of the other, or None when they agree."""
    _, mutation = split_condition(mutated.condition)
    events = mutated.events
    if mutation is not None and get_mutation(mutation).invertible:
        events = invert_trajectory(events, mutation, tool_names)
    a = [(n, json.dumps(x, sort_keys=True, default=str)) for n, x, _ in _actions(original.events)]
    b = [(n, json.dumps(x, sort_keys=True, default=str)) for n, x, _ in _actions(events)]
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _cut(h: Html, value: Any) -> str:
    text = value if isinstance(value, str) else pretty_json(value)
    shown = text if len(text) <= CELL else text[:CELL] + "…"
    return f"<pre>{h.t(shown)}</pre>"


def _aligned(h: Html, original: Episode, mutated: Episode, at: int | None) -> str:
    rows = []
    pairs = zip_longest(_actions(original.events), _actions(mutated.events))
    for i, (a, b) in enumerate(pairs):
        mark = ' class="diverge" id="divergence"' if i == at else ""
        cells = [f"<td>{h.t(x[0])}{_cut(h, x[1])}{_cut(h, x[2])}</td>" if x else
                 '<td><span class="note">(no action)</span></td>' for x in (a, b)]
        rows.append(f"<tr{mark}><td>{i + 1}</td>{''.join(cells)}</tr>")
    return ("<table><thead><tr><th>step</th><th>original</th><th>mutated</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _scores(h: Html, orig: dict[str, Any], mut: dict[str, Any],
            rescored: dict[str, tuple[str, Any]], how: str) -> str:
    def by_scorer(data: dict[str, Any]) -> dict[str, tuple[str, Any]]:
        return {a["scorer"]: (a["status"], a["score"]) for a in data.get("assessments") or []}

    def failed(data: dict[str, Any]) -> bool:
        return is_measurement_failure((data.get("episode") or {}).get("termination"))

    o, m = by_scorer(orig), by_scorer(mut)
    # the rescored side judges the mutated episode's evidence: its failure is that one's
    sides = ((o, failed(orig)), (m, failed(mut)), (rescored, failed(mut)))
    rows = []
    for name in sorted(set(o) | set(m) | set(rescored)):
        cells = [score_text(h, *side[name], failure) if name in side else
                 '<span class="note">—</span>' for side, failure in sides]
        rows.append([h.t(name), *cells])
    return h.table(["scorer", "original", "mutated", f"mutated, rescored ({how})"], rows,
                   "pair-scores")


def _conversations(h: Html, reader: StoreReader, data: list[dict[str, Any] | None]) -> str:
    sides = []
    for d in data:
        ep = (d or {}).get("episode") or {}
        doc = reader.blob_json(ep["episode_digest"]) if ep else {}
        digest = (doc.get("digests") or {}).get("transcript") if isinstance(doc, dict) else None
        if not isinstance(digest, str):
            sides.append('<div><p class="note">no conversation recorded</p></div>')
            continue
        sides.append(f"<div>{conversation(h, reader.transcript(digest), doc)}</div>")
    if all("no conversation recorded" in s for s in sides):
        return ""
    return f'<h2>Conversations</h2>{STYLE}<div class="pair">{"".join(sides)}</div>'


def pair_page(h: Html, reader: StoreReader, key: EpisodeKey) -> str:
    """Return the paired view of the mutated episode `key` and its original."""
    base = original_key(key)
    if base is None:
        raise LookupError(f"condition {key.condition!r} has no mutation: a paired view needs "
                          "a mutated episode (BASE+mut:NAME)")
    mut_data, orig_data = reader.episode(key), reader.episode(base)
    if mut_data is None or orig_data is None:
        raise LookupError("this pair is not in the store (both administrations are needed)")
    mutated, original = _episode(reader, mut_data), _episode(reader, orig_data)
    _, mutation = split_condition(key.condition)
    title = f"Pair: {key.task} seed {key.seed}, {key.target} at {key.level}, mut:{mutation}"
    links = (f'<p><a href="{url("/episode", **key_params(base))}">original episode</a> · '
             f'<a href="{url("/episode", **key_params(key))}">mutated episode</a></p>')
    if mutated is None or original is None:
        return h.page(title, links + '<p class="note">One side has no recorded episode yet: '
                      "nothing to compare.</p>", NAV)
    name = str(mutated.meta.get("environment") or DEFAULT_ENVIRONMENT)
    try:
        spec = get_env(name)
    except UserError as exc:  # a plug-in no longer installed: say so, as a missing page
        raise LookupError(f"environment {name!r} cannot be loaded to rescore: {exc}") from None
    why = not_rescorable(spec, mutated) or not_rescorable(spec, original)
    if why:  # a hand-edited store: an administration its environment does not have
        raise LookupError(why)
    rescored_list, how = rescore_episode(spec, mutated)
    rescored: dict[str, tuple[str, Any]] = {a.scorer: (a.status, a.score)
                                             for a in rescored_list}
    at = first_divergence(original, mutated, original_tool_names(spec, original))
    where = ("the two action sequences agree (after the inverse map)" if at is None else
             f'first divergence at <a href="#divergence">step {at + 1}</a>')
    body = (links + f"<p>{h.t(get_mutation(str(mutation)).description)}</p>"
            + _scores(h, orig_data, mut_data, rescored, how)
            + f"<h2>Actions side by side</h2><p>{where}</p>{SIDE}"
            + _aligned(h, original, mutated, at)
            + _conversations(h, reader, [orig_data, mut_data]))
    return h.page(title, body, NAV)

