"""Campaign files (TOML): targets, tasks, seeds, levels, conditions, repeats and limits.

Everything is validated before anything runs, and every problem is reported at once with its
location. The format is documented in docs/campaigns.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.mutations import get_mutation, mutated_condition, split_condition, unsupported
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.names import repeated
from agentmetrology.run.campaign.problems import CampaignConfigError, Checker, Problem
from agentmetrology.run.campaign.spec import CampaignConfig, Limits, TargetSpec
from agentmetrology.run.campaign.targets import check_agent, check_decoding, check_targets
from agentmetrology.run.campaign.toml_files import parse_toml, read_text
from agentmetrology.run.episode import canonical_condition
from agentmetrology.run.seeds import MAX_SEED, parse_seeds

KINDS = ("rule", "scripted", "llm")
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,99}"
# A target is named after its model (llm:MODEL), and providers' model names hold `/`
# (openrouter's meta-llama/llama-3.1-8b-instruct): a target name is never a path, so `/` is fine.
TARGET_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:+/-]{0,99}"
MAX_ADMINISTRATIONS = 1_000_000
# The OpenAI SDK's endpoint variable: never read (see check_environment).
BASE_URL_ENV = "OPENAI_BASE_URL"


def load_campaign(path: str | Path) -> CampaignConfig:
    """Read and validate a campaign file; raise CampaignConfigError listing every problem."""
    text, name = read_text(path)
    return parse_campaign(text, name)


def parse_campaign(text: str, file: str = "campaign.toml") -> CampaignConfig:
    """Parse and validate campaign TOML text; raise CampaignConfigError listing every problem."""
    data = parse_toml(text, file)
    ck = Checker(text)
    config = _read(ck, data, file, text)
    if ck.errors or config is None:
        # In file order, so a user can fix them top to bottom.
        ordered = sorted(ck.problems, key=lambda p: p.line if p.line is not None else 0)
        raise CampaignConfigError(file, ordered)
    return config


def _read(ck: Checker, data: dict[str, Any], file: str, text: str) -> CampaignConfig | None:
    ck.keys(data, "", ("campaign", "targets", "limits"))
    camp = ck.table(data, "campaign", "", required=True)
    ck.keys(camp, "campaign", ("name", "description", "environment", "profile", "tasks",
                               "seeds", "levels", "conditions", "mutations", "repeats",
                               "concurrency"))
    name = ck.string(camp, "name", "campaign", required=True, pattern=NAME_PATTERN,
                     what="campaign name (letters, digits, . _ : + -)")
    ck.string(camp, "description", "campaign")
    env_name = ck.string(camp, "environment", "campaign", default=DEFAULT_ENVIRONMENT)
    try:
        env = get_env(env_name or DEFAULT_ENVIRONMENT)
    except ValueError as exc:
        ck.error("campaign.environment", str(exc))
        return None
    profile = ck.string(camp, "profile", "campaign", default=env.profiles[0],
                        choices=env.profiles)
    tasks = _tasks(ck, camp, env)
    seeds = _seeds(ck, camp)
    levels = ck.strings(camp, "levels", "campaign", required=True)
    for lv in levels:
        if lv not in env.levels:
            ck.error("campaign.levels", f"unknown level {lv!r} (environment {env.name!r} has "
                                        f"{', '.join(env.levels)})")
    conditions = _conditions(ck, camp, env, profile or env.profiles[0])
    conditions += _mutated(ck, camp, env, conditions)
    repeats = ck.integer(camp, "repeats", "campaign", default=1, minimum=1, maximum=1000)
    concurrency = ck.integer(camp, "concurrency", "campaign", default=4, minimum=1,
                             maximum=1024)
    limits = _limits(ck, ck.table(data, "limits", ""))
    indexed = check_targets(ck, data, KINDS, TARGET_NAME_PATTERN, env.levels)
    targets = [t for _, t in indexed]
    for i, t in indexed:
        if t.model_free and t.agent is not None:
            check_agent(ck, f"targets[{i}]", t, t.levels or tuple(levels), env)
        if not t.model_free:
            check_decoding(ck, f"targets[{i}]", t, limits)
    if ck.errors or name is None or repeats is None or concurrency is None:
        return None
    config = CampaignConfig(
        name=name, targets=tuple(_with_output_cap(t, limits) for t in targets),
        tasks=tuple(tasks), seeds=tuple(seeds), levels=tuple(levels),
        conditions=tuple(conditions), repeats=repeats, concurrency=concurrency,
        profile=profile or env.profiles[0], limits=limits, file=file, source=text,
        environment=env.name)
    n = sum(len(config.levels_of(t)) for t in targets) * len(tasks) * len(seeds) \
        * len(conditions) * repeats
    if n > MAX_ADMINISTRATIONS:
        ck.error("campaign", f"the plan has {n:,} administrations; at most "
                             f"{MAX_ADMINISTRATIONS:,} are allowed in one campaign")
        return None
    _budget_checks(ck, config)
    return CampaignConfig(**{**_fields(config), "warnings": tuple(ck.problems)})


def _fields(config: CampaignConfig) -> dict[str, Any]:
    return {f: getattr(config, f) for f in config.__dataclass_fields__}


def _with_output_cap(t: TargetSpec, limits: Limits) -> TargetSpec:
    """Apply limits.max_output_tokens to an llm target that sets no output cap of its own."""
    if t.model_free or limits.max_output_tokens is None:
        return t
    if "max_tokens" in t.decoding or "max_completion_tokens" in t.decoding:
        return t
    return TargetSpec(**{**{f: getattr(t, f) for f in t.__dataclass_fields__},
                         "decoding": {**t.decoding, "max_tokens": limits.max_output_tokens}})


def _tasks(ck: Checker, camp: dict[str, Any], env: EnvSpec) -> list[str]:
    value = camp.get("tasks")
    if value == "all":
        return list(env.tasks)
    if isinstance(value, str):
        ck.error("campaign.tasks", f"expected a list of task ids or \"all\", got {value!r}")
        return []
    tasks = ck.strings(camp, "tasks", "campaign", required=True)
    for t in tasks:
        if t not in env.tasks:
            ck.error("campaign.tasks", f"unknown task {t!r} (known: {', '.join(env.tasks)})")
    return tasks


def _seeds(ck: Checker, camp: dict[str, Any]) -> list[int]:
    value = camp.get("seeds")
    loc = "campaign.seeds"
    if value is None:
        ck.error(loc, "missing (required): a range like \"0-9\" or a list like [0, 1, 2]")
        return []
    if isinstance(value, str):
        try:
            return parse_seeds(value)
        except ValueError as exc:
            ck.error(loc, str(exc))
            return []
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(s, int) and not isinstance(s, bool)
                            and 0 <= s <= MAX_SEED for s in items):
        ck.error(loc, "expected a range like \"0-9\" or a non-empty list of integers in "
                      "0 .. 2**63-1")
        return []
    dupes = repeated(items)
    if dupes:
        ck.error(loc, f"duplicate seeds: {', '.join(map(str, dupes))}")
    return list(dict.fromkeys(items))


def _mutated(ck: Checker, camp: dict[str, Any], env: EnvSpec,
             conditions: list[str]) -> list[str]:
    """Return every condition under every listed mutation (each paired with its original)."""
    out: list[str] = []
    for name in ck.strings(camp, "mutations", "campaign", default=[]):
        try:
            get_mutation(name)
        except ValueError as exc:
            ck.error("campaign.mutations", str(exc))
            continue
        if (why := unsupported(env, name)) is not None:
            ck.error("campaign.mutations", why)
            continue
        for c in conditions:
            if split_condition(c)[1] is not None:
                ck.error("campaign.conditions", f"condition {c!r} already names a mutation; "
                                                "list mutations under `mutations` only")
                return []
            if (m := mutated_condition(c, name)) not in out:
                out.append(m)
    return out


def _conditions(ck: Checker, camp: dict[str, Any], env: EnvSpec, profile: str) -> list[str]:
    """Return the campaign's conditions in their canonical spelling, recording problems."""
    out: list[str] = []
    for c in ck.strings(camp, "conditions", "campaign", default=["clean"]):
        if c != "clean" and profile == "legacy":
            ck.error("campaign.conditions", f"condition {c!r} needs profile = \"seeded\"")
            continue
        try:
            canonical = canonical_condition(env, c)
        except ValueError as exc:
            ck.error("campaign.conditions", str(exc))
            continue
        if canonical in out:
            ck.error("campaign.conditions", f"condition {c!r} repeats {canonical!r}")
            continue
        out.append(canonical)
    return out


def _limits(ck: Checker, t: dict[str, Any]) -> Limits:
    ck.keys(t, "limits", ("max_steps", "max_output_tokens", "deadline_s", "max_cost",
                          "max_tokens"))
    return Limits(
        max_steps=ck.integer(t, "max_steps", "limits", default=30, minimum=1,
                             maximum=10_000) or 30,
        max_output_tokens=ck.integer(t, "max_output_tokens", "limits", minimum=1),
        deadline_s=ck.number(t, "deadline_s", "limits", positive=True),
        max_cost=ck.number(t, "max_cost", "limits", minimum=0.0),
        max_tokens=ck.integer(t, "max_tokens", "limits", minimum=1),
    )


def _budget_checks(ck: Checker, config: CampaignConfig) -> None:
    for i, t in enumerate(config.targets):
        if t.model_free:
            continue
        p = t.price or {}
        missing = [k for k in ("input_per_m", "output_per_m") if p.get(k) is None]
        if missing and config.limits.max_cost is not None:
            ck.error(f"targets[{i}].price", f"limits.max_cost is set but {', '.join(missing)} "
                     "is missing: this target's cost would be unknown and the budget could "
                     "not be enforced")
        elif missing:
            ck.warn(f"targets[{i}].price", f"no {', '.join(missing)}: costs of this target "
                    "will be recorded as unknown (null), never as 0")


def check_environment(config: CampaignConfig, environ: dict[str, str] | None = None,
                      severity: str = "error") -> list[Problem]:
    """Return problems a run would hit here: unset key variables, no LLM policy available."""
    env = os.environ if environ is None else environ
    out: list[Problem] = []
    llm = [(i, t) for i, t in enumerate(config.targets) if not t.model_free]
    sev = "error" if severity == "error" else "warning"
    for i, t in llm:
        if t.api_key_env and not env.get(t.api_key_env):
            loc = f"targets[{i}].api_key_env"
            out.append(Problem(loc, f"environment variable {t.api_key_env} is not set; "
                               "export it before running", sev,  # type: ignore[arg-type]
                               _line(config, loc)))
        endpoint = endpoint_env_problem(t.base_url, env)
        if endpoint:
            loc = f"targets[{i}]"
            out.append(Problem(loc, endpoint, sev, _line(config, loc)))  # type: ignore[arg-type]
    if llm:
        from agentmetrology.run.campaign.llm import llm_policy_problem

        problem = llm_policy_problem()
        if problem:
            out.append(Problem(f"targets[{llm[0][0]}]", problem, sev,  # type: ignore[arg-type]
                               _line(config, f"targets[{llm[0][0]}]")))
    return out


def endpoint_env_problem(base_url: str | None, environ: Mapping[str, str]) -> str:
    """Return why a target without base_url is refused while OPENAI_BASE_URL is set ('' when it
    is not); the variable's value is never repeated."""
    if base_url or not environ.get(BASE_URL_ENV, "").strip():
        return ""
    # The endpoint must be the target's, recorded with it: the HTTP clients never read this
    # variable (agents/llm/lean.py endpoint_url), so a target without a base_url goes to
    # api.openai.com, which its user probably did not mean.
    return (f"{BASE_URL_ENV} is set, but an endpoint is never taken from the environment: this "
            "target has no base_url, so its requests would go to api.openai.com; set base_url "
            f"(agm run: --base-url) to the endpoint you mean, or unset {BASE_URL_ENV}")


def _line(config: CampaignConfig, location: str) -> int | None:
    from agentmetrology.run.campaign.problems import locate

    return locate(config.source, location)
