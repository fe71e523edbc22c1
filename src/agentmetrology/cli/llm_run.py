"""`agm run ENV --agent llm:MODEL`: a resumable one-target campaign in an evidence store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from agentmetrology.cli.env_cmd import (
    REPEAT_COLUMN,
    err_console,
    exit_for_failures,
    failure_line,
    print_rows,
)
from agentmetrology.cli.errors import fail
from agentmetrology.cli.table_fit import Col
from agentmetrology.records.environment import EnvSpec


def cost_text(row: dict[str, Any]) -> str:
    """Return a row's cost: a number, 'unknown' (a price is missing) or 'none' (no request)."""
    if not row.get("model_attempts"):
        return "none"
    return "unknown" if row.get("cost") is None else f"{row['cost']:.4f}"


def run_llm(spec: EnvSpec, agent: str, tasks: list[str], seeds: list[int], level: str,
            profile: str, condition: str, base_url: str | None, api_key_env: str | None,
            json_out: bool, max_retries: int, store: Path | None, retry: bool,
            price: str | None = None, epochs: int = 1) -> None:
    """Run an `llm:MODEL` agent as a resumable one-target campaign; print rows; exit 1 if none
    of the episodes could be measured. `price` is "INPUT_PER_M,OUTPUT_PER_M[,CACHED_PER_M]";
    `epochs` runs every (task, seed) that many times (repeats 0..K-1 of the campaign)."""
    from agentmetrology.agents.llm.policy import parse_agent_spec
    from agentmetrology.agents.llm.target import Prices
    from agentmetrology.cli.campaign_cmd import unknown_cost_notice
    from agentmetrology.run.adhoc import PRICE_FORMAT, QuickRun, parse_price, run_quick
    from agentmetrology.run.campaign import CampaignConfigError
    from agentmetrology.store import NotAStoreError, StoreBusyError, StorePathError

    try:
        parse_agent_spec(agent)
        prices = None if price is None else parse_price(price)
    except ValueError as exc:
        fail(str(exc))
    run = QuickRun(agent, spec.name, tuple(tasks), tuple(seeds), level, profile, condition,
                   base_url, api_key_env, max_retries, prices, epochs)
    try:
        root, rows, stopped = run_quick(run, store, retry_measurement_failures=retry)
    except (CampaignConfigError, StoreBusyError, StorePathError, NotAStoreError,
            ValueError) as exc:
        # `fail` prints literally: a configuration message may quote TOML such as [[targets]].
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except OSError as exc:
        fail(f"cannot open the evidence store at {store or '.agm/store'}: "
             f"{exc.strerror or exc}")
    for r in rows:
        r["cost_text"] = cost_text(r)
    unknown = sum(1 for r in rows if r.get("model_attempts") and r.get("cost") is None)
    if unknown:  # one notice per run, never a raw Python warning
        err_console.print(unknown_cost_notice(agent, unknown, Prices(*prices or ()),
                                              f"give --price {PRICE_FORMAT}"),
                          markup=False, emoji=False, style="yellow", soft_wrap=True)
    if json_out:
        for row in rows:
            print(json.dumps({k: v for k, v in row.items() if k != "cost_text"}), flush=True)
        for r in rows:
            if r.get("measurement_failure"):
                err_console.print(failure_line(r), markup=False, emoji=False, soft_wrap=True)
    else:
        repeat = (REPEAT_COLUMN,) if epochs > 1 else ()
        print_rows(spec, rows, f"{agent} at {level} (store {root}, campaign {run.name})",
                   extra=(*repeat, (Col("cost", 5, True), "cost_text", -1)))
    if stopped:
        left = len(tasks) * len(seeds) * epochs - len(rows)
        err_console.print(f"stopped launching: {stopped}; {left} episode(s) not launched",
                          markup=False, emoji=False, soft_wrap=True)
    exit_for_failures(rows)
    if stopped:
        raise typer.Exit(1)
