"""What an `llm:MODEL` agent of `agm run` needs, checked by the campaign's own target rules.

The options are put in the shape of a campaign `[[targets]]` table and checked by the same
function a campaign file goes through, so the rules (an http(s) endpoint with no credential in
it, a key variable's name and not a key, retries, prices) are written once; a problem is
reported under the option the user typed, never as a place in a campaign file.
"""

from __future__ import annotations

import math
import os
from typing import Any

from agentmetrology.agents.llm.endpoint import key_env_of, provider_of
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.run.campaign.config import (
    KINDS,
    MAX_ADMINISTRATIONS,
    TARGET_NAME_PATTERN,
    endpoint_env_problem,
)
from agentmetrology.run.campaign.llm import llm_policy_problem
from agentmetrology.run.campaign.problems import Checker
from agentmetrology.run.campaign.spec import TargetSpec
from agentmetrology.run.campaign.targets import check_targets

PRICE_FORMAT = "INPUT_PER_M,OUTPUT_PER_M[,CACHED_PER_M]"
PRICE_KEYS = ("input_per_m", "output_per_m", "cached_per_m")

Price = tuple[float, float, float | None]

# The option of `agm run` behind each key of the target table (and the agent's name).
OPTIONS = {"name": "--agent", "model": "--agent", "base_url": "--base-url",
           "api_key_env": "--api-key-env", "max_retries": "--max-retries", "price": "--price"}
# The campaign rules word their fixes for a file; here the same fixes are options.
AS_OPTIONS = (("into a campaign file", "on a command line"),
              ('set api_key_env = "VARIABLE"', "give --api-key-env VARIABLE"))


def parse_price(text: str) -> Price:
    """Return (input, output, cached or None) per million tokens from "IN,OUT[,CACHED]".

    ValueError (one line) unless it is 2 or 3 finite, non-negative numbers.
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3):
        raise ValueError(f"--price {text!r}: expected {PRICE_FORMAT} (currency units per "
                         "million tokens), e.g. --price 0.15,0.60 or --price 0.15,0.60,0.075")
    values: list[float] = []
    for name, part in zip(("input", "output", "cached"), parts, strict=False):
        try:
            v = float(part)
        except ValueError:
            raise ValueError(f"--price {text!r}: the {name} price {part!r} is not a number "
                             f"(expected {PRICE_FORMAT})") from None
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"--price {text!r}: the {name} price must be a finite number >= 0,"
                             f" got {part!r}")
        values.append(v)
    return values[0], values[1], values[2] if len(values) == 3 else None


def check_llm_target(spec: EnvSpec, agent: str, level: str, *, base_url: str | None,
                     api_key_env: str | None, max_retries: int, price: Price | str | None,
                     episodes: int) -> TargetSpec:
    """Return the campaign target of an `llm:MODEL` agent; UserError naming the bad option."""
    try:
        prices = parse_price(price) if isinstance(price, str) else price
    except ValueError as exc:
        raise UserError(str(exc)) from None
    ck = Checker()
    found = check_targets(ck, {"targets": [_table(agent, base_url, api_key_env, max_retries,
                                                  prices)]}, KINDS, TARGET_NAME_PATTERN,
                         spec.levels)
    for problem in ck.errors:
        field = problem.location.partition(".")[2].partition(".")[0]
        message = problem.message
        for in_file, as_option in AS_OPTIONS:
            message = message.replace(in_file, as_option)
        raise UserError(f"{OPTIONS.get(field, '--agent')}: {message}")
    if episodes > MAX_ADMINISTRATIONS:
        raise UserError(f"--task, --seeds and --epochs give {episodes:,} episodes; at most "
                        f"{MAX_ADMINISTRATIONS:,} are allowed in one run")
    target = found[0][1]
    if target.api_key_env and not os.environ.get(target.api_key_env):
        raise UserError(f"--api-key-env: environment variable {target.api_key_env} is not set; "
                        "export it before running")
    refuse_endpoint_env(target.base_url)
    default_key = key_env_of(target.llm_target())
    if default_key and not os.environ.get(default_key):  # api.openai.com: a key is needed
        raise UserError(f"--agent {agent}: the endpoint {provider_of(target.llm_target())} "
                        f"needs an API key and {default_key} is not set; export it, name "
                        "another variable with --api-key-env, or point --base-url at your "
                        "server")
    problem_here = llm_policy_problem()
    if problem_here:
        raise UserError(problem_here)
    return target


def refuse_endpoint_env(base_url: str | None) -> None:
    """Raise UserError (under --base-url) when OPENAI_BASE_URL is set and no endpoint is given.

    The campaign rule (run.campaign.config.check_environment) refuses it, but a run checks it
    only after opening its store; this checks it first, before a store is created or a model
    called (the variable's value is never printed).
    """
    problem = endpoint_env_problem(base_url, os.environ)
    if problem:
        raise UserError(f"{OPTIONS['base_url']}: {problem}")


def _table(agent: str, base_url: str | None, api_key_env: str | None, max_retries: int,
           prices: Price | None) -> dict[str, Any]:
    """Return the `[[targets]]` table of the agent and its options."""
    table: dict[str, Any] = {"name": agent, "kind": "llm", "model": agent[4:],
                             "max_retries": max_retries}
    if base_url:
        table["base_url"] = base_url
    if api_key_env:
        table["api_key_env"] = api_key_env
    if prices is not None:
        table["price"] = {k: float(v) for k, v in zip(PRICE_KEYS, prices, strict=True)
                          if v is not None}
    return table


def target_price(target: TargetSpec) -> Price | None:
    """Return a target's prices as the (input, output, cached or None) triple, if it has any."""
    p = target.price
    if p is None:
        return None
    return p["input_per_m"], p["output_per_m"], p.get("cached_per_m")
