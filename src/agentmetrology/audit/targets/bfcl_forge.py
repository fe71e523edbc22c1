"""Oracle calls and forged calls for BFCL entries, vetted against the checker's normalisation.

A forged call counts as degraded only when it cannot be an allowed call under the checker's own
equivalence: the checker compares strings after `standardize_string` (lowercase, no spaces, no
`,./-_*^`, single quotes as double), lists element-wise, ints equal to floats. A corruption that
maps back onto an allowed value is the correct call in disguise, so every candidate is tested
with `equivalent` (deliberately at least as lenient as the checker) against every value the
entry allows at that place, and the first candidate that matches none is used.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

Normalise = Callable[[str], str]
Path = tuple[Any, ...]  # (param,) | (param, key) | (param, index, key)
OPTIONAL = ""  # bfcl-eval's marker in a list of allowed values: the parameter may be omitted
_TRIES = 12


def first_allowed(allowed: list[Any]) -> Any:
    """Return the first allowed value that is not the omission marker (or the marker itself)."""
    return next((v for v in allowed if v != OPTIONAL), OPTIONAL)


def settle(allowed: list[Any], schema: dict[str, Any]) -> Any:
    """Return one concrete value from a parameter's allowed list (dicts resolved key by key)."""
    value = first_allowed(allowed)
    items = schema.get("items", {}).get("type")
    if isinstance(value, dict) and schema.get("type") == "dict":
        return {k: first_allowed(vs) for k, vs in value.items() if OPTIONAL not in vs}
    if isinstance(value, list) and items == "dict" and all(isinstance(d, dict) for d in value):
        return [{k: first_allowed(vs) for k, vs in d.items() if OPTIONAL not in vs}
                for d in value]
    return copy.deepcopy(value)


def oracle_call(answer: dict[str, dict[str, list[Any]]],
                declaration: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return {name: args}: every required or non-omittable parameter at its first allowed value."""
    ((name, params),) = answer.items()
    props = declaration["parameters"].get("properties", {})
    required = set(declaration["parameters"].get("required", []))
    args = {p: settle(allowed, props.get(p, {})) for p, allowed in params.items()
            if p in required or OPTIONAL not in allowed}
    return {name: args}


def equivalent(a: Any, b: Any, norm: Normalise) -> bool:
    """Return True if the checker could take `a` for `b` (strings compared normalised)."""
    if isinstance(a, str) and isinstance(b, str):
        return norm(a) == norm(b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(equivalent(x, y, norm) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        # Lenient on purpose: keys one side lacks are ignored, so "not equivalent" is safe.
        return all(equivalent(a[k], b[k], norm) for k in a.keys() & b.keys())
    try:
        return bool(a == b)
    except Exception:  # exotic values that refuse comparison cannot be equal
        return False


def allowed_anywhere(value: Any, pool: list[Any], norm: Normalise) -> bool:
    """Return True if `value` is equivalent to any value in the pool."""
    return any(equivalent(value, v, norm) for v in pool)


def _numbers(value: float, mode: str, as_float: bool) -> Iterator[Any]:
    """Yield numbers near `value` (perturb) or unrelated to it (invent)."""
    for k in range(1, _TRIES):
        # Invented numbers are multiples of primes: unrelated to whatever the answer is.
        steps = (value + k, value - k) if mode == "perturb" else (7919 * k, 104729 + k)
        for x in steps:
            yield float(x) if as_float else x


def candidates(value: Any, mode: str, declared: str | None) -> Iterator[Any]:
    """Yield type-correct replacements for `value` (mode: 'perturb' or 'invent'), best first."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int | float):
        as_float = isinstance(value, float) or declared == "float"
        yield from _numbers(value, mode, as_float)
    elif isinstance(value, str):
        for k in range(1, _TRIES):
            yield f"{value} (altered {k})" if mode == "perturb" else f"invented value {k}"
    elif isinstance(value, list | tuple):
        yield from _list_candidates(list(value), mode, declared)
    elif isinstance(value, dict) and value:
        for key in value:
            for x in candidates(value[key], mode, None):
                yield {**value, key: x}


def _list_candidates(value: list[Any], mode: str, item: str | None) -> Iterator[list[Any]]:
    """Yield lists differing from `value`: an element changed (or all, when inventing)."""
    if not value:
        seed = {"integer": 1, "float": 1.0, "boolean": True}.get(item or "", "item")
        for x in candidates(seed, "invent", item):
            yield [x]
        return
    if mode == "invent":
        streams = [candidates(v, "invent", item) for v in value]
        for _ in range(_TRIES):
            row = [next(s, None) for s in streams]
            if any(x is None for x in row):
                return
            yield row
        return
    for x in candidates(value[0], "perturb", item):
        yield [x, *value[1:]]
    if len(value) > 1:
        yield value[:-1]


def vary(value: Any, mode: str, declared: str | None, allowed: list[Any],
         norm: Normalise) -> tuple[bool, Any]:
    """Return (True, x) for the first candidate x matching nothing allowed, else (False, None)."""
    for cand in candidates(value, mode, declared):
        if not allowed_anywhere(cand, allowed, norm):
            return True, cand
    return False, None


def slots(args: dict[str, Any], props: dict[str, Any]) -> Iterator[tuple[Path, Any, str | None]]:
    """Yield (path, value, declared scalar type) for each leaf the forger may change."""
    for p, v in args.items():
        schema = props.get(p, {})
        kind, item = schema.get("type"), schema.get("items", {}).get("type")
        if isinstance(v, dict) and kind == "dict" and v:
            for k, x in v.items():
                yield (p, k), x, None
        elif isinstance(v, list) and v and item == "dict" and all(isinstance(d, dict) for d in v):
            for i, d in enumerate(v):
                for k, x in d.items():
                    yield (p, i, k), x, None
        else:
            yield (p,), v, item if isinstance(v, list) else kind


def pool(answers: list[dict[str, dict[str, list[Any]]]], name: str, path: Path) -> list[Any]:
    """Return every value any answer call to `name` allows at `path` (a superset, on purpose)."""
    out: list[Any] = []
    for answer in answers:
        ((n, params),) = answer.items()
        if n != name or path[0] not in params:
            continue
        for alt in params[path[0]]:
            if len(path) == 1:
                out.append(alt)
            elif len(path) == 2 and isinstance(alt, dict):
                out.extend(alt.get(path[1], []))
            elif len(path) == 3 and isinstance(alt, list):
                for d in alt:
                    if isinstance(d, dict):
                        out.extend(d.get(path[2], []))
    return out


def set_path(args: dict[str, Any], path: Path, value: Any) -> None:
    """Set the leaf at `path` inside a call's arguments (in place)."""
    target: Any = args
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def accepts_empty(answers: list[dict[str, dict[str, list[Any]]]], name: str,
                  declaration: dict[str, Any]) -> bool:
    """Return True if some answer call to `name` is satisfied by calling it with no arguments."""
    if declaration["parameters"].get("required"):
        return False
    for answer in answers:
        ((n, params),) = answer.items()
        if n == name and all(OPTIONAL in allowed for allowed in params.values()):
            return True
    return False


def defect(answers: list[dict[str, dict[str, list[Any]]]],
           declarations: dict[str, dict[str, Any]]) -> str | None:
    """Return why no call can satisfy these answers (answers contradict the schema), or None."""
    for answer in answers:
        ((name, params),) = answer.items()
        if name not in declarations:
            return f"answer calls {name!r}, which the entry does not declare"
        schema = declarations[name]["parameters"]
        props = schema.get("properties", {})
        for p, allowed in params.items():
            if p not in props:
                return f"answer parameter {p!r} of {name!r} is not declared"
            if not allowed:
                return f"answer parameter {p!r} of {name!r} allows no value at all"
        for p in schema.get("required", []):
            if p not in params:
                return f"required parameter {p!r} of {name!r} has no allowed value"
    return None


def omitted_optionals(answers: list[dict[str, dict[str, list[Any]]]], name: str,
                      args: dict[str, Any], props: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Yield (param, concrete value) for plain optional parameters a call to `name` left out."""
    for answer in answers:
        ((n, params),) = answer.items()
        if n != name:
            continue
        for p, allowed in params.items():
            schema = props.get(p, {})
            plain = schema.get("type") != "dict" and schema.get("items", {}).get("type") != "dict"
            value = first_allowed(allowed)
            if p not in args and plain and value not in (OPTIONAL, None):
                yield p, settle(allowed, schema)
