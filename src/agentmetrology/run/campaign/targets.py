"""Validation of a campaign's `[[targets]]`: kinds, agents, endpoints, keys, decoding, prices."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from agentmetrology.edges.redaction import redact_patterns
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.policy import LEVELS
from agentmetrology.run.campaign.problems import Checker
from agentmetrology.run.campaign.spec import Limits, TargetSpec

COMMON_KEYS = ("name", "kind", "levels")
MODEL_FREE_KEYS = (*COMMON_KEYS, "agent")
LLM_KEYS = (*COMMON_KEYS, "model", "base_url", "api_key_env", "decoding", "price",
            "max_retries", "timeout_s")
PRICE_KEYS = ("input_per_m", "output_per_m", "cached_per_m")
SECRET_KEYS = ("api_key", "apikey", "key", "token", "secret", "password")
ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# Known decoding parameters and their ranges; other names pass through to the provider.
DECODING_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0), "top_p": (0.0, 1.0),
    "presence_penalty": (-2.0, 2.0), "frequency_penalty": (-2.0, 2.0),
}
DECODING_INTS = ("max_tokens", "max_completion_tokens", "seed", "top_k")
_KEY_LIKE = re.compile(r"^(sk|pk|rk)-|^[A-Za-z0-9_\-]{32,}$")


def check_targets(ck: Checker, data: dict[str, Any], kinds: tuple[str, ...], name_pattern: str,
                  levels: tuple[str, ...]) -> list[tuple[int, TargetSpec]]:
    """Return (index, target) for each readable target, recording a problem for each flaw."""
    raw = data.get("targets")
    if raw is None:
        ck.error("targets", "missing: add at least one [[targets]] table")
        return []
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        ck.error("targets", "expected [[targets]] tables")
        return []
    out: list[tuple[int, TargetSpec]] = []
    seen: dict[str, int] = {}
    for i, t in enumerate(raw):
        where = f"targets[{i}]"
        spec = _target(ck, t, where, kinds, name_pattern, levels)
        if spec is None:
            continue
        if spec.name in seen:
            ck.error(f"{where}.name", f"duplicate target name {spec.name!r} (also "
                                      f"targets[{seen[spec.name]}])")
        seen.setdefault(spec.name, i)
        out.append((i, spec))
    return out


def _target(ck: Checker, t: dict[str, Any], where: str, kinds: tuple[str, ...],
            name_pattern: str, levels: tuple[str, ...]) -> TargetSpec | None:
    for k in SECRET_KEYS:
        if k in t:
            ck.error(f"{where}.{k}", "never write a key into a campaign file: set "
                                     "api_key_env = \"VARIABLE\" and export VARIABLE")
    t = {k: v for k, v in t.items() if k not in SECRET_KEYS}
    name = ck.string(t, "name", where, required=True, pattern=name_pattern,
                     what="target name (letters, digits, . _ : + - /)")
    kind = ck.string(t, "kind", where, required=True, choices=kinds, what="kind")
    own_levels = _levels(ck, t, where, levels)
    if kind is None or name is None:
        ck.keys(t, where, LLM_KEYS if kind == "llm" else (*LLM_KEYS, "agent"))
        return None
    if kind != "llm":
        ck.keys(t, where, MODEL_FREE_KEYS)
        default = "rule" if kind == "rule" else None
        agent = ck.string(t, "agent", where, required=default is None, default=default)
        return TargetSpec(name, kind, agent=agent, levels=own_levels)
    ck.keys(t, where, LLM_KEYS)
    model = ck.string(t, "model", where, required=True)
    base_url = ck.string(t, "base_url", where, pattern=r"https?://\S+",
                         what="base_url (http:// or https:// URL)")
    if base_url is not None and _credential_in_url(ck, f"{where}.base_url", base_url):
        base_url = None
    key_env = ck.string(t, "api_key_env", where)
    if key_env is not None and _KEY_LIKE.search(key_env):
        ck.error(f"{where}.api_key_env", "this looks like a key, not the name of an environment "
                                         "variable: write the variable's name and export it")
        key_env = None
    elif key_env is not None and not re.fullmatch(ENV_NAME, key_env):
        ck.error(f"{where}.api_key_env", f"{key_env!r} is not a valid environment variable name")
        key_env = None
    decoding = ck.table(t, "decoding", where)
    price = _price(ck, t, where)
    retries = ck.integer(t, "max_retries", where, default=4, minimum=0, maximum=20)
    timeout = ck.number(t, "timeout_s", where, default=60.0, positive=True)
    if model is None:
        return None
    return TargetSpec(name, kind, model=model, base_url=base_url, api_key_env=key_env,
                      decoding=dict(decoding), price=price, max_retries=retries or 0,
                      timeout_s=timeout or 60.0, levels=own_levels)


def _credential_in_url(ck: Checker, where: str, url: str) -> bool:
    """Record (without repeating it) a credential written into a URL; return True if one is."""
    fix = ("never write a credential into a campaign file: remove it, set api_key_env = "
           "\"VARIABLE\" and export VARIABLE")
    if urlsplit(url).password is not None:
        ck.error(where, f"base_url holds a password (user:password@host); {fix}")
        return True
    if redact_patterns(url, "") != url:
        ck.error(where, f"base_url holds something that looks like a key or token; {fix}")
        return True
    return False


def _levels(ck: Checker, t: dict[str, Any], where: str,
            known: tuple[str, ...]) -> tuple[str, ...] | None:
    if "levels" not in t:
        return None
    own = ck.strings(t, "levels", where)
    bad = [lv for lv in own if lv not in known]
    for lv in bad:
        ck.error(f"{where}.levels", f"unknown level {lv!r} (expected {', '.join(known)})")
    return tuple(own) if own and not bad else None


def _price(ck: Checker, t: dict[str, Any], where: str) -> dict[str, float] | None:
    if "price" not in t:
        return None
    table = ck.table(t, "price", where)
    ck.keys(table, f"{where}.price", PRICE_KEYS)
    out: dict[str, float] = {}
    for k in PRICE_KEYS:
        v = ck.number(table, k, f"{where}.price", minimum=0.0)
        if v is not None:
            out[k] = v
    return out


def check_agent(ck: Checker, where: str, t: TargetSpec, levels: tuple[str, ...],
                env: EnvSpec, *, in_plan: bool = False) -> None:
    """Record a problem if a model-free target's agent is unknown or cannot act at its levels.

    `where` is a campaign target (`targets[0]`, whose `agent` key is checked) or, `in_plan`, an
    experiment plan's `experiment.targets` list of agent names.
    """
    agent = t.agent or ""
    field = where if in_plan else f"{where}.agent"
    # kind "scripted" names a scripted:BEHAVIOUR agent; kind "rule" any other model-free one.
    if agent.startswith("scripted:") != (t.kind == "scripted"):
        expected = "scripted:BEHAVIOUR" if t.kind == "scripted" else "a rule agent"
        ck.error(field, f"agent {agent!r} does not fit kind {t.kind!r} (expected {expected})")
        return
    if agent not in env.agents:
        ck.error(field, f"unknown agent {agent!r}; {_known_agents(env, in_plan)}")
        return
    policy = env.agents[agent]()
    unsupported = [lv for lv in levels if lv in LEVELS and lv not in policy.levels]
    if unsupported:
        ck.error(field, f"agent {agent!r} acts only at {', '.join(policy.levels)} "
                        f"but would run at {', '.join(unsupported)}; set levels = "
                        f"{list(policy.levels)!r} on this target")


def _known_agents(env: EnvSpec, in_plan: bool) -> str:
    """Return every agent form a campaign target (or a plan's target list) accepts."""
    rules = [n for n in env.agents if not n.startswith("scripted:")]
    scripted = [n for n in env.agents if n.startswith("scripted:")]
    if in_plan:  # a plan names model-free agents only (experiment.registry runs them as such)
        return (f"environment {env.name!r} has {', '.join(rules + scripted)}; a plan's targets "
                "are model-free (a model runs as `agm run --agent llm:MODEL` or in a campaign "
                "target of kind = \"llm\")")
    groups = [f"kind = \"{kind}\" agents {', '.join(names)}"
              for kind, names in (("rule", rules), ("scripted", scripted)) if names]
    return (f"environment {env.name!r} has {' and '.join(groups)}; a model is a target of "
            "kind = \"llm\" with model = \"MODEL\"")


def check_decoding(ck: Checker, where: str, t: TargetSpec, limits: Limits) -> None:
    """Record a problem for every decoding value of the wrong type or out of range."""
    loc = f"{where}.decoding"
    for k, v in t.decoding.items():
        if k in DECODING_RANGES:
            lo, hi = DECODING_RANGES[k]
            ck.number(t.decoding, k, loc, minimum=lo, maximum=hi)
        elif k in DECODING_INTS:
            ck.integer(t.decoding, k, loc, minimum=0 if k == "seed" else 1)
        elif k == "n":
            if v != 1:
                ck.error(f"{loc}.n", "only n = 1 is supported: one completion per request")
        elif k == "stop":
            if not (isinstance(v, str) or (isinstance(v, list)
                                           and all(isinstance(s, str) for s in v))):
                ck.error(f"{loc}.stop", "expected a string or a list of strings")
        elif isinstance(v, dict) or (isinstance(v, list) and any(isinstance(x, dict | list)
                                                                 for x in v)):
            ck.error(f"{loc}.{k}", "decoding values must be scalars or lists of scalars")
    cap = limits.max_output_tokens
    for k in ("max_tokens", "max_completion_tokens"):
        v = t.decoding.get(k)
        if cap is not None and isinstance(v, int) and not isinstance(v, bool) and v > cap:
            ck.error(f"{loc}.{k}", f"{v} exceeds limits.max_output_tokens = {cap}")
