"""Store pages: campaigns with progress, the score grid, and the paginated episode index."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.verdict import n_counted
from agentmetrology.store.campaign_overview import CampaignOverview
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.reader_queries import STATES, VERDICTS, EpisodeFilter
from agentmetrology.view.html import Html, cost_text, form_value, money, num, score_text, url
from agentmetrology.view.params import PAGE_SIZE

NAV = '<a href="/">campaigns</a><a href="/episodes">episodes</a>'


def total_cost(h: Html, cost_known: float, unknown: int) -> str:
    """Return a total cost: 'unknown (N without a cost, X known)' when any part is unknown."""
    if not unknown:
        return h.t(money(cost_known))
    known = f", {money(cost_known)} known" if cost_known else ""
    return f'<span class="null">unknown</span> ({unknown} without a cost{h.t(known)})'


def index_page(h: Html, reader: StoreReader) -> str:
    """Return the store's front page: every campaign with its progress and cost."""
    rows = []
    for s in reader.summaries():
        rows.append([
            h.link(url("/campaign", name=s["campaign"]), s["campaign"]),
            "complete" if s["complete"] else "incomplete", str(s["planned"]), str(s["done"]),
            str(s["submitted"]), str(s["failed_agent"]),
            str(s["failed_infra"] + s["errored"]), str(s["remaining"]),
            str(s["not_launched"]), total_cost(h, s["cost"], s["cost_unknown"]),
            h.link(url("/episodes", campaign=s["campaign"]), "episodes")])
    runs = len(reader.grader_runs())
    graders = (f'<p>Graders: {h.link("/graders", f"{runs} judge run(s)")} whose answers the '
               "store keeps.</p>" if runs else "")
    body = (f"<p>Evidence store <code>{h.t(reader.root)}</code>, opened read-only.</p>"
            + (h.table(["campaign", "state", "planned", "done", "submitted", "agent fail",
                        "infra fail", "remaining", "not launched", "cost", ""], rows,
                       "campaigns") if rows else "<p>No campaigns in this store yet.</p>")
            + graders)
    return h.page("Campaigns", body, NAV)


def campaign_page(h: Html, s: CampaignOverview) -> str:
    """Return one campaign: totals, then progress and scores per target × level × condition."""
    t = s.total
    grid = s.grid
    scorers = sorted({sc for cell in grid for sc in cell["scores"]})
    rows = []
    for cell in grid:
        def ep(**extra: Any) -> str:
            return url("/episodes", campaign=s.campaign, target=cell["target"],  # noqa: B023
                       level=cell["level"], condition=cell["condition"], **extra)  # noqa: B023
        remaining = cell["planned"] - cell["done"]
        row = [h.t(cell["target"]), h.t(cell["level"]), h.t(cell["condition"]),
               h.link(ep(), cell["planned"]), str(cell["done"]),
               h.link(ep(status="submitted"), cell["submitted"]),
               str(cell["failed_agent"]),
               _infra(h, cell, ep),
               h.link(ep(status="pending"), remaining),
               total_cost(h, cell["cost_known"], cell["cost_unknown"])]
        for sc in scorers:
            row.append(_score_cell(h, cell["scores"].get(sc), ep, sc))
        rows.append(row)
    extra = []
    if t["superseded"]:
        n = t["superseded"]
        extra.append(f"{n_counted(n, 'measurement failures')} "
                     f"{'was' if n == 1 else 'were'} re-opened and kept as history (their cost "
                     "is included)")
    if t["unrecorded_requests"]:
        k = t["unrecorded_requests"]
        extra.append(f"{n_counted(k, 'provider requests')} of interrupted or failed "
                     "attempts (their cost is included)")
    extra.extend(f"not launched ({n}): {reason}" for reason, n in s.not_launched_reasons.items())
    body = (
        f"<p>Registration <code>{h.t(s.registration_id)}</code>, plan "
        f"<code>{h.t(s.plan_digest[:12])}</code>. "
        f"{'Complete' if s.complete else 'Incomplete'}: planned {t['planned']}, done "
        f"{t['done']}, failed {t['failed_agent']} agent / {t['failed_infra'] + t['errored']} "
        f"infrastructure, remaining {t['remaining']}, cost "
        f"{total_cost(h, t['cost'], t['cost_unknown'])}.</p>"
        + "".join(f"<p class=\"note\">{h.t(x)}</p>" for x in extra)
        + "<h2>Per target × level × condition</h2>"
        "<p class=\"note\">Means are over scored episodes only: UNKNOWN and INVALID "
        "assessments have no score and are counted beside the mean, never as 0; measurement "
        "failures (infra_error, cancelled) are excluded from scores.</p>"
        + h.table(["target", "level", "condition", "planned", "done", "submitted",
                   "agent fail", "infra fail", "remaining", "cost",
                   *(f"{sc}" for sc in scorers)], rows, "grid"))
    return h.page(f"Campaign {s.campaign}", body, NAV)


def _infra(h: Html, cell: dict[str, Any], ep: Any) -> str:
    """Return recorded measurement failures plus errored attempts, as the store counts them."""
    text = h.link(ep(status="measurement_failure"), cell["failed_infra"] + cell["errored"])
    if cell["errored"]:
        text += f" ({cell['errored']} errored, not recorded)"
    return text


def _score_cell(h: Html, s: dict[str, Any] | None, ep: Any, scorer: str) -> str:
    if s is None:
        return '<span class="null">no assessments</span>'
    mean = s["mean"]
    text = ('<span class="null">null</span>' if mean is None else h.t(f"{mean:.4g}"))
    unscored = [(st, n) for st, n in sorted(s["statuses"].items()) if st in ("UNKNOWN",
                                                                             "INVALID")]
    parts = [f"mean {text} over {s['scored']} of {s['n']}"]
    parts += [h.link(ep(verdict=st, scorer=scorer), f"{n} {st}") for st, n in unscored]
    return "<br>".join(parts)


def episodes_page(h: Html, reader: StoreReader, f: EpisodeFilter, page: int,
                  size: int) -> str:
    """Return one page of the episode index with its filter form and page links."""
    rows, total = reader.episodes(f, size, (page - 1) * size)
    choices = reader.choices()
    # Every scorer of the store gets a column, so an unassessed row says so.
    scorers = sorted({*choices["scorer"], *(sc for r in rows for sc in r["scores"])})
    table_rows = []
    for r in rows:
        key = {k: r[k] for k in ("campaign", "target", "task", "seed", "condition", "level",
                                 "repeat")}
        if r["recorded"]:
            state = h.t(r["termination"]) + (" (measurement failure)"
                                              if r["measurement_failure"] else "")
        elif r["not_launched"]:
            state = f"not launched: {h.t(r['not_launched'])}"
        else:
            state = "pending"
        table_rows.append([
            h.link(url("/episode", **key), f"#{r['id']}"), h.t(r["campaign"]),
            h.t(r["target"]), h.t(r["task"]), h.t(r["seed"]), h.t(r["condition"]),
            h.t(r["level"]), h.t(r["repeat"]), state, h.t(r["attempts"]),
            cost_text(r["cost"], bool(r["recorded"])),
            *(score_text(h, r["scores"].get(sc, {}).get("status"),
                         r["scores"].get(sc, {}).get("score"), bool(r["measurement_failure"]))
              for sc in scorers)])
    params = {k: getattr(f, k) for k in ("campaign", "target", "task", "seed", "level",
                                         "condition", "status", "verdict", "scorer")}
    pages = max(1, -(-total // size))
    nav = []
    if page > 1:
        nav.append(h.link(url("/episodes", **params, page=page - 1, per=_per(size)),
                          "previous"))
    if page < pages:
        nav.append(h.link(url("/episodes", **params, page=page + 1, per=_per(size)), "next"))
    first = (page - 1) * size + 1 if rows else 0
    body = (_filter_form(h, choices, f)
            + f"<p id=\"count\">{total} administrations match; showing {first}–"
              f"{first + len(rows) - 1 if rows else 0} (page {page} of {pages}). "
            + " ".join(nav) + "</p>"
            + h.table(["episode", "campaign", "target", "task", "seed", "condition", "level",
                       "repeat", "state", "attempts", "cost", *scorers], table_rows,
                      "episodes"))
    return h.page("Episodes", body, NAV)


def _per(size: int) -> int | None:
    return None if size == PAGE_SIZE else size


def _filter_form(h: Html, choices: dict[str, list[Any]], f: EpisodeFilter) -> str:
    fields = []
    for name in ("campaign", "target", "task", "level", "condition", "scorer"):
        fields.append(_select(h, name, choices[name], getattr(f, name)))
    fields.append(f'<label>seed <input name="seed" size="6" value="{h.t(num(f.seed)) if f.seed is not None else ""}"></label>')  # noqa: E501
    fields.append(_select(h, "status", list(STATES), f.status))
    fields.append(_select(h, "verdict", list(VERDICTS), f.verdict))
    return ('<form class="filters" method="get" action="/episodes">' + "".join(fields)
            + '<button type="submit">filter</button></form>')


def _select(h: Html, name: str, values: list[Any], current: Any) -> str:
    opts = ['<option value="">any</option>']
    for v in values:
        sel = " selected" if current is not None and str(v) == str(current) else ""
        opts.append(f'<option value="{form_value(v)}"{sel}>{h.t(v)}</option>')
    return f'<label>{h.t(name)} <select name="{h.t(name)}">{"".join(opts)}</select></label>'
