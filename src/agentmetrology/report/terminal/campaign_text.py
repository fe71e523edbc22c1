"""The text lines of `agm campaign` and `agm experiment`: status, costs and config problems.

A cost that is not fully known never prints as a number ("unknown (N without a cost)"), a known
one always in one format (report/money.py); a config problem prints literally (config
text like `[[targets]]` is not rich markup).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from agentmetrology.records.verdict import n_counted
from agentmetrology.report.money import money
from agentmetrology.report.terminal.campaign_tables import target_table
from agentmetrology.store import CampaignStatus

if TYPE_CHECKING:
    from agentmetrology.agents.llm.target import Prices
    from agentmetrology.run.campaign import CampaignConfigError


def say(console: Console, message: str, style: str) -> None:
    """Print a message in `style`, literally: config text like `[[targets]]` stays."""
    console.print(Text(message, style=style), highlight=False)


RETRY_HINT = "fix the cause and run again with --retry-measurement-failures"


def unmeasured_notice(target: str, done: int, reasons: list[tuple[str, int]],
                      hint: str = RETRY_HINT) -> str:
    """Return the line saying that none of a target's recorded episodes could be measured."""
    why = "; ".join(f"{n_counted(n, 'episodes')}: {reason}" for reason, n in reasons)
    return (f"error: target {target}: none of its {done} recorded episode(s) could be measured "
            f"(measurement failures: {why}); {hint}")


def print_problems(console: Console, err: CampaignConfigError) -> None:
    """Print a campaign file's problems, warnings in yellow and errors in red."""
    for p in err.problems:
        say(console, p.render(err.file), "yellow" if p.severity == "warning" else "red")


def print_status(console: Console, s: CampaignStatus) -> None:
    """Print a campaign's status line, its per-target table and why cells were not launched."""
    t = s.total
    state = "complete" if s.complete else "incomplete"
    line = Text.assemble((s.campaign, "bold"), (
        f" ({state}): planned {t.planned}, done {t.done}, failed {t.failed_agent} agent / "
        f"{t.failed_infra + t.errored} infrastructure, remaining {t.remaining}, cost "
        f"{cost_text(t.cost, t.cost_unknown)}"
        + (f", superseded {n_counted(t.superseded, 'measurement failures')} (cost "
           f"{cost_text(t.superseded_cost, t.superseded_cost_unknown)}, included)"
           if t.superseded else "")
        + (f", {n_counted(t.unrecorded_requests, 'requests')} of interrupted or "
           f"failed attempts (cost {cost_text(t.unrecorded_cost, t.unrecorded_cost_unknown)}, "
           "included)" if t.unrecorded_requests else "")))
    console.print(line)
    target_table(console, s, {name: cost_text(c.cost, c.cost_unknown, short=True)
                              for name, c in s.targets.items()})
    for why in unscored_lines(s):
        console.print(why, markup=False, emoji=False)
    for reason, n in s.not_launched_reasons.items():
        console.print(f"not launched ({n}): {reason}", markup=False, emoji=False)


def unscored_lines(s: CampaignStatus) -> list[str]:
    """Return a line per target with recorded episodes and no measured score (its columns show
    '-'), saying that every episode was excluded and why, as `--json`'s `excluded` does; the
    scorers are named when only some of the target's have no score."""
    out = []
    for target, per in s.scores.items():
        done = s.targets[target].done if target in s.targets else 0
        groups: dict[str, list[str]] = {}
        for scorer, sc in per.items():
            if done and sc.get("mean_score") is None:
                groups.setdefault(_reasons(sc.get("excluded") or {}), []).append(scorer)
        for why, scorers in groups.items():
            which = "" if len(scorers) == len(per) else f" ({', '.join(scorers)})"
            every = "its 1 recorded episode" if done == 1 else f"all {done} recorded episodes"
            out.append(f"{target}{which}: no measured score: {every} excluded: {why}")
    return out


def _reasons(excluded: dict[str, Any]) -> str:
    """Return 'n reason (details)' per exclusion reason, the 3 most frequent details each."""
    parts = []
    for reason, info in (excluded.get("by_reason") or {}).items():
        details = list((info.get("details") or {}).items())[:3]
        said = "; ".join(d if len(details) == 1 else f"{n} {d}" for d, n in details)
        named = (n_counted(info["count"], "measurement failures")
                 if reason == "measurement failure" else f"{info['count']} {reason}")
        parts.append(named + (f" ({said})" if said else ""))
    return ", ".join(parts) or "no reason recorded"


def cost_text(cost: float, unknown: int, short: bool = False) -> str:
    """Return a total cost, or "unknown (N without a cost[, X known])" when any part is unknown
    ("unknown (N)" if `short`): an unknown cost never prints as a number."""
    if not unknown:
        return money(cost)
    if short:
        return f"unknown ({unknown})"
    return f"unknown ({unknown} without a cost" + (f", {money(cost)} known)" if cost else ")")


def unknown_cost_notice(target: str, n: int, prices: Prices, how: str) -> str:
    """Return the one notice a run prints about a target's unknown cost, and the way out."""
    if prices.input_per_m is None or prices.output_per_m is None:
        why = f"no complete price table ({how})"
    else:
        why = ("the server reported no token counts for some requests (timeouts, dropped "
               "connections, requests cancelled when a run was interrupted, or answers "
               "without a usage block), or counts no bill can have (negative, past a billion, "
               "or not integers), and they may have been billed")
    return (f"note: target {target}: cost unknown for {n} episode(s) or unfinished "
            f"attempt(s): {why}")
