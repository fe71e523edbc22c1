"""Load an Inspect AI task in-process: its samples, its scorers, and what it needs to run.

A task spec is anything Inspect accepts (`inspect_evals/gsm8k`, `file.py@name`). Task
arguments come as `key=value` strings, parsed as YAML scalars as Inspect's own `-T` does. A task
that needs something this machine cannot give (a sandbox, a download) is reported as `needs X`,
never probed as if it had run. Needs the optional `inspect` extra (inspect-ai, inspect-evals).
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.errors import UserError

__all__ = ["InspectLoadError", "LoadedTask", "SampleInfo", "load_task", "parse_task_args"]

# A sample whose target is shared by every sample is a rubric (tau2: "Performs required
# actions ..."), not an answer: rendering it as the output would probe nothing.
MIN_SAMPLES_FOR_CONSTANT = 2
DOWNLOAD_HINTS = ("huggingface", "hf_hub", "offline", "connection", "resolve", "urlopen",
                  "max retries", "name or service", "temporary failure", "network",
                  "download", "localentrynotfound", "connecterror", "snapshot",
                  "401 client error", "gated")


class InspectLoadError(Exception):
    """The task cannot be loaded; the message is one line, and `needs` names what is missing."""

    def __init__(self, message: str, needs: str | None = None) -> None:
        super().__init__(message)
        self.needs = needs


@dataclass(frozen=True, slots=True)
class SampleInfo:
    """One sample of the task: its id, its target texts, and why it has no usable target."""

    sample_id: str
    targets: tuple[str, ...]
    choices: tuple[str, ...]
    unusable: str | None  # None when the target can be rendered as the correct output


@dataclass
class LoadedTask:
    """A loaded task: the Inspect Task object, its chosen samples and scorer names."""

    spec: str
    task: Any  # inspect_ai.Task
    samples: list[Any]  # inspect_ai.dataset.Sample, ids made unique strings
    infos: list[SampleInfo]
    scorer_names: list[str]
    dataset_size: int
    reordered: bool  # the task shuffles its dataset: samples were put in id order
    needs: str | None  # what the task needs that the audit cannot give (sandbox, docker)
    without: str | None = None  # the sandbox removed for a forged-output-only probe


class MissingInspectError(UserError):
    """Raised when auditing an Inspect task without the `inspect` extra installed."""


def require_inspect() -> None:
    """Raise MissingInspectError (one line naming the extra) unless inspect-ai can be imported."""
    try:
        import inspect_ai  # noqa: F401
        import yaml  # noqa: F401  # comes with inspect-ai; task arguments are parsed as YAML
    except ImportError as exc:
        raise MissingInspectError("auditing an Inspect task needs the optional extra: pip "
                                  "install 'agentmetrology[inspect]'") from exc


def parse_task_args(items: list[str]) -> dict[str, Any]:
    """Parse `key=value` task arguments (values as YAML scalars); raise ValueError on a bad one."""
    require_inspect()
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"task argument {item!r} is not key=value")
        try:
            out[key.strip()] = yaml.safe_load(value) if value else ""
        except yaml.YAMLError:
            out[key.strip()] = value
    return out


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):  # str(SystemExit(4)) is "4"
        return f"its code called sys.exit({exc.code!r})"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "…"


def _needs_of_error(exc: BaseException) -> str | None:
    text = f"{type(exc).__name__} {exc}".lower()
    if isinstance(exc, ImportError | ModuleNotFoundError):
        name = getattr(exc, "name", None)
        return f"a Python package ({name or _one_line(exc)})"
    if any(h in text for h in DOWNLOAD_HINTS):
        return "a download (dataset not shipped with the package)"
    if "docker" in text or "sandbox" in text:
        return "docker"
    return None


def _create(spec: str, args: dict[str, Any]) -> list[Any]:
    from inspect_ai._eval.loader import load_tasks  # the loader `inspect eval` uses

    # Loading may print progress or warnings: it must not reach the user's terminal.
    with contextlib.redirect_stdout(io.StringIO()):
        return load_tasks([spec], args)


def load_task(spec: str, args: dict[str, Any] | None = None, limit: int | None = None,
              offline: bool = True) -> LoadedTask:
    """Load a task and its first `limit` samples; raise InspectLoadError with one line."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError as exc:
        raise InspectLoadError("inspect-ai is not installed: pip install "
                               "'agentmetrology[inspect]'", "inspect-ai") from exc
    if offline:  # a missing dataset fails at once instead of retrying a download
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        tasks = _create(spec, dict(args or {}))
    except (Exception, SystemExit) as exc:  # a task file's sys.exit ended agm, silently
        raise InspectLoadError(f"cannot load Inspect task {spec!r}: {_one_line(exc)}",
                               _needs_of_error(exc)) from exc
    if not tasks:
        raise InspectLoadError(f"no Inspect task found for {spec!r} (give package/task or "
                               "file.py@task)")
    if len(tasks) > 1:
        names = ", ".join(sorted(str(getattr(t, "name", "?")) for t in tasks))
        raise InspectLoadError(f"{spec!r} holds {len(tasks)} tasks ({names}): name one with "
                               "file.py@task")
    task = tasks[0]
    try:
        samples = list(task.dataset)
    except (Exception, SystemExit) as exc:
        raise InspectLoadError(f"cannot read the samples of {spec!r}: {_one_line(exc)}",
                               _needs_of_error(exc)) from exc
    reordered = bool(getattr(task.dataset, "shuffled", False))
    for i, s in enumerate(samples):  # ids as unique strings, so cells can name them
        if s.id is None:
            s.id = str(i + 1)
    if reordered:  # a shuffled dataset would make the audit differ run to run
        samples.sort(key=_id_key)
    dataset_size = len(samples)
    infos = _infos(samples)  # over the whole dataset: a constant rubric shows only there
    if limit is not None:
        samples, infos = samples[:limit], infos[:limit]
    return LoadedTask(spec=spec, task=task, samples=samples, infos=infos,
                      scorer_names=[scorer_name(s) for s in (task.scorer or [])],
                      dataset_size=dataset_size, reordered=reordered,
                      needs=_needs(task, samples))


def _id_key(sample: Any) -> tuple[int, int, str]:
    """Order ids naturally: numbers (or digit strings) by value, then other strings."""
    text = str(sample.id)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def scorer_name(scorer: Any) -> str:
    """Return a scorer's registered name (e.g. `inspect_evals/retail_scorer`)."""
    from inspect_ai._util.registry import is_registry_object, registry_info

    if is_registry_object(scorer):
        return str(registry_info(scorer).name)
    return str(getattr(scorer, "__qualname__", type(scorer).__name__))


def _needs(task: Any, samples: list[Any]) -> str | None:
    sandbox = getattr(task, "sandbox", None) or next(
        (s.sandbox for s in samples if s.sandbox), None)
    if sandbox is not None:
        kind = getattr(sandbox, "type", None) or (
            sandbox[0] if isinstance(sandbox, tuple) else str(sandbox))
        return "docker" if kind == "docker" else f"a sandbox ({kind})"
    return None


def _texts(target: Any) -> tuple[str, ...]:
    if isinstance(target, str):
        return (target,) if target.strip() else ()
    if isinstance(target, list):
        return tuple(t for t in target if isinstance(t, str) and t.strip())
    return ()


def _infos(samples: list[Any]) -> list[SampleInfo]:
    texts = [_texts(s.target) for s in samples]
    constant = (len(samples) >= MIN_SAMPLES_FOR_CONSTANT and texts[0]
                and all(t == texts[0] for t in texts))
    out = []
    for s, t in zip(samples, texts, strict=True):
        if not t:
            reason: str | None = "no target"
        elif constant:
            reason = "the target is the same rubric for every sample, not an answer"
        else:
            reason = None
        out.append(SampleInfo(str(s.id), t, tuple(s.choices or ()), reason))
    return out


def without_sandbox(loaded: LoadedTask) -> LoadedTask:
    """Return the task with its sandbox removed, for probes that write outputs, not use tools.

    A forged output is written, not produced by tools, so only a scorer that reads the sandbox
    needs it; such a scorer's cells come back INVALID naming the missing sandbox.
    """
    import dataclasses

    from inspect_ai import task_with

    return dataclasses.replace(
        loaded, task=task_with(loaded.task, sandbox=None), needs=None, without=loaded.needs,
        samples=[s.model_copy(update={"sandbox": None}, deep=True) for s in loaded.samples])


def load_for_audit(spec: str, args: dict[str, Any], limit: int | None,
                   sandbox_optional: bool) -> tuple[LoadedTask, bool]:
    """Return the task to audit and whether it runs without its sandbox (then it has no
    do-nothing run); a task that cannot be loaded, or needs a sandbox while
    `sandbox_optional` (--without-sandbox) is off, is a UserError in one line."""
    try:
        loaded = load_task(spec, args, limit)
    except InspectLoadError as exc:
        raise UserError(str(exc) + (f" (needs {exc.needs})" if exc.needs else "")) from exc
    if loaded.needs and not sandbox_optional:
        raise UserError(f"not probed: {spec} needs {loaded.needs} (--without-sandbox probes its "
                        "scorers with forged outputs alone)")
    if loaded.needs:
        return without_sandbox(loaded), True
    return loaded, False
