"""Importer for tau2-bench results files: every shape seen in public repositories.

Shapes: the runner's `{timestamp, info, tasks, simulations}`; a bare JSON list of simulations
(no tasks, no info); a custom top level carrying its own `pass_rate` / `passed` / `total_tasks`
beside `simulations`. The planned episodes are the domain's task set times the trials, not the
simulations present: the file's own `tasks` when it has them, else the shipped domain data of
inspect-evals (see tau2_domain), matched by task id; every planned (task, trial) the file lacks
is a visible `never_ran` placeholder. A simulation of the wrong shape is kept ungraded as a
`malformed_record` and listed as a load problem; anything else is refused in one line. A JSON
object naming a key twice (readers differ on which value counts) makes its simulation such a
record, with no stored score (skipped when it names its own task_id or trial twice); outside
the simulations (info, tasks, the top level), the file is refused. Simulations of different
(task, trial) that share an `id` each stay their own episode; the shared id is a load problem
naming them all.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers import tau2_domain as dom
from agentmetrology.archive.importers.limits import (
    MAX_PLANNED_ABSENT,
    JsonDoc,
    Malformed,
    count,
    ident,
    obj,
    repeated_key,
    twice_text,
    unpack,
)
from agentmetrology.archive.importers.tau2_sim import fill_episode, sim_key
from agentmetrology.archive.importers.taubench import read_json_doc
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveFormatError,
    LoadProblem,
    merge_repeat,
    repeat_text,
)
from agentmetrology.edges.json_keys import RepeatedKeys, first_repeated
from agentmetrology.records.numbers import finite_float

FORMAT = "tau2"
# refused before parsing: parsing may need ~20 times the text; real files are under 100 MiB
MAX_FILE_BYTES = 256 << 20
_HEAD_MARKERS = (b'"simulations"', b'"termination_reason"', b'"reward_info"', b'"user_info"',
                 b'"agent_info"', b'"environment_info"')
REPORTED_KEYS = ("pass_rate", "passed", "total_tasks")
MAX_SHARED_LISTED = 10  # simulations named in one shared-id load problem (all are counted)
KEY_FIELDS = ("task_id", "trial")  # a simulation naming one of them twice names no episode


def _is_sim(row: Any) -> bool:
    return isinstance(row, dict) and "task_id" in row and "traj" not in row and bool(
        {"messages", "reward_info", "termination_reason"} & set(row))


def looks_like_tau2(data: Any) -> bool:
    """Return True for parsed JSON of a tau2 results shape (list of simulations or a top level)."""
    if isinstance(data, list):
        return bool(data) and _is_sim(data[0])
    if isinstance(data, dict) and isinstance(data.get("simulations"), list):
        # Any simulation, not the first: a first one of the wrong shape is that simulation's
        # problem (listed), not a reason to read the whole file as JSONL and refuse it.
        # An empty list is a results file with nothing in it (read as JSONL, it was said to
        # lack task and model), refused as holding no episode.
        sims = data["simulations"]
        return any(map(_is_sim, sims)) if sims else True
    return False


def looks_like_tau2_head(head: bytes) -> bool:
    """Return True when the first bytes of a JSON object file name tau2 top-level keys."""
    return any(marker in head for marker in _HEAD_MARKERS)


def read_tau2_json(path: Path) -> Any:
    """Return the parsed JSON of a results file (see `read_tau2_doc`)."""
    return read_tau2_doc(path).value


def read_tau2_doc(path: Path) -> JsonDoc:
    """Return the parsed JSON of a results file no larger than MAX_FILE_BYTES, objects naming a
    key twice marked (one-line errors)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ArchiveFormatError(f"{path.name}: cannot be read ({exc.strerror})") from exc
    if size > MAX_FILE_BYTES:
        raise ArchiveFormatError(f"{path.name}: {size >> 20} MiB is larger than the "
                                 f"{MAX_FILE_BYTES >> 20} MiB a tau2 results file may be")
    return read_json_doc(path)


def _outside_simulations(data: Any, name: str) -> None:
    """Raise ArchiveFormatError when an object outside the simulations names a key twice."""
    if not isinstance(data, dict):
        return  # a bare list holds simulations only
    own = data.twice if isinstance(data, RepeatedKeys) else None
    twice = own or first_repeated([v for k, v in data.items() if k != "simulations"])
    if twice is not None:
        raise ArchiveFormatError(f"{name}: outside the simulations, {twice_text(twice)}; "
                                 "the file is refused")


def _shape(data: Any, name: str) -> tuple[str, dict[str, Any], list[Any] | None, list[Any],
                                          dict[str, Any]]:
    """Return (shape, info, tasks or None, simulations, custom top-level fields)."""
    if not looks_like_tau2(data):
        raise ArchiveFormatError(f"{name}: not a tau2 results file (expected a list of "
                                 "simulations or an object with a `simulations` list)")
    if isinstance(data, list):
        return "bare_list", {}, None, data, {}
    try:
        info = obj(data.get("info"), "info")
    except Malformed as exc:
        raise ArchiveFormatError(f"{name}: {exc}") from exc
    tasks = data.get("tasks")
    custom = {k: data[k] for k in ("agent", "domain", "model", *REPORTED_KEYS) if k in data}
    shape = "custom" if any(k in data for k in REPORTED_KEYS) else "standard"
    return shape, info, tasks if isinstance(tasks, list) else None, data["simulations"], custom


def _llm(info: dict[str, Any], key: str) -> str | None:
    part = info.get(key)
    return ident(part.get("llm")) if isinstance(part, dict) else None


def _domain(info: dict[str, Any], custom: dict[str, Any], stem: str, ran: set[str]
            ) -> tuple[str | None, str]:
    """Return the domain and how it was found (info, top level, file name, task ids)."""
    env = info.get("environment_info")
    named = ident(env.get("domain_name")) if isinstance(env, dict) else None
    if named:
        return named, "info.environment_info.domain_name"
    if isinstance(custom.get("domain"), str):
        return custom["domain"], "top-level domain"
    in_name = [d for d in dom.DOMAINS if d in stem.lower()]
    if len(in_name) == 1:
        return in_name[0], "file name"
    guessed = dom.guess_domain(ran)
    return guessed, "task ids" if guessed else "unknown"


def _task_set(tasks: list[Any] | None, domain: str | None, ran: set[str],
              total: int | None) -> tuple[list[str], dict[str, dict[str, Any]], dict[str, Any]]:
    """Return planned task ids, definitions by id, and notes on where both came from."""
    if tasks is not None:
        defs = {str(ident(t.get("id"))): t for t in tasks
                if isinstance(t, dict) and ident(t.get("id")) is not None}
        return list(defs), defs, {"definitions": "file", "planned_from": "the file's tasks",
                                  "versus_shipped": dom.differing(defs, domain),
                                  "ran_not_in_domain": sorted(ran - set(defs))}
    shipped = dom.load_domain(domain) if domain else None
    if shipped is None:
        why = ("the domain is unknown" if not domain else
               "the `inspect` extra (inspect-evals) with its tau2 domain data is not installed")
        return sorted(ran), {}, {"definitions": None, "planned_from": "the simulations present "
                                 f"(no task set: {why})"}
    split, ids = dom.planned_split(shipped, ran, total)
    defs = {i: shipped.tasks[i] for i in ids if i in shipped.tasks}
    return ids, defs, {"definitions": shipped.source, "split": split,
                       "planned_from": f"split {split!r} of the shipped {domain} domain",
                       "ran_not_in_domain": sorted(ran - set(shipped.tasks))}


def load_tau2(path: Path, data: Any | None = None) -> Archive:
    """Return an Archive read from a tau2 results file (one episode per planned task x trial);
    `data`: its parsed JSON (a JsonDoc, or a bare value that is then searched for marks)."""
    data, may_repeat = unpack(read_tau2_doc(path) if data is None else data)
    shape, info, tasks, sims, custom = _shape(data, path.name)
    if may_repeat:
        _outside_simulations(data, path.name)
    model = (_llm(info, "agent_info") or ident(custom.get("model"))
             or ident(custom.get("agent")) or path.stem)
    archive = Archive(source=path.name, format=FORMAT)
    seen: Counter[str] = Counter()
    keys: dict[tuple[str, int], ArchiveEpisode] = {}
    by_id: dict[str, list[tuple[int, ArchiveEpisode]]] = defaultdict(list)
    for i, raw in enumerate(sims):
        ep = _one(raw, i, model, path, seen, archive, may_repeat)
        if ep is None:
            continue
        if (kept := keys.get((ep.task, ep.trial))) is not None:
            archive.problems.append(LoadProblem(path.name, None, repeat_text(
                f"simulation {i}", ep, merge_repeat(kept, ep))))
            continue
        keys[ep.task, ep.trial] = ep
        archive.episodes.append(ep)
        if (sid := ident(raw.get("id"))) is not None:
            by_id[sid].append((i, ep))
    _shared_ids(by_id, archive, path.name)
    ran = {e.task for e in archive.episodes}
    domain, domain_from = _domain(info, custom, path.stem, ran)
    total = count(custom.get("total_tasks"))
    planned, defs, set_notes = _task_set(tasks, domain, ran, total)
    present = max((t + 1 for _, t in keys), default=1)
    trials = max(_declared_trials(info, present, archive, path.name) or 1, present)
    _plan(archive, planned, trials, model)
    for ep in archive.episodes:
        ep.meta.update(domain=domain, task_definition=defs.get(ep.task))
    archive.notes = {"tau2": {
        "shape": shape, "domain": domain, "domain_from": domain_from, "trials": trials,
        "agent_model": model, "user_model": _llm(info, "user_info"),
        "git_commit": ident(info.get("git_commit")), "seed": info.get("seed"),
        "max_steps": count(info.get("max_steps")), "max_errors": count(info.get("max_errors")),
        "tasks_planned": len(planned), "simulations": len(sims),
        "reported_top_level": {k: _as_noted(custom[k]) for k in REPORTED_KEYS if k in custom},
        **set_notes}}
    return archive


def _shared_ids(by_id: dict[str, list[tuple[int, ArchiveEpisode]]], archive: Archive,
                name: str) -> None:
    """Add a load problem for each simulation id that episodes of different (task, trial)
    share: the id names no one simulation, so a join or a look-up by id picks one of them.
    Each simulation stays its own episode; no number changes."""
    for sid, eps in by_id.items():
        if len(eps) < 2:
            continue
        listed = ", ".join(f"simulation {i} (task {e.task} trial {e.trial})"
                           for i, e in eps[:MAX_SHARED_LISTED])
        more = (f" and {len(eps) - MAX_SHARED_LISTED} more" if len(eps) > MAX_SHARED_LISTED
                else "")
        archive.problems.append(LoadProblem(name, None, (
            f"simulation id {sid!r} is shared by {len(eps)} simulations of different (task, "
            f"trial): {listed}{more}; each is kept as its own episode")))


def _as_noted(value: Any) -> Any:
    """Return a claimed top-level number as the notes keep it: a finite number as a float;
    anything else as it was where JSON can hold it (a string, a boolean, null), else as its
    JSON text (NaN, 1e400): the claim check says it could not read it, never that it is absent."""
    num = finite_float(value)
    if num is not None or value is None or isinstance(value, str | bool):
        return value if num is None else num
    return json.dumps(value)[:40]


def _declared_trials(info: dict[str, Any], present: int, archive: Archive,
                     name: str) -> int | None:
    """Return info.num_trials as a count >= 1, else None with a load problem saying that the
    plan takes the trials present instead (a file that declared 3 trials and ran 1, with its
    count written "3", would otherwise be planned as 1 trial with nothing said)."""
    if "num_trials" not in info:
        return None
    declared = count(info["num_trials"])
    if declared:
        return declared
    archive.problems.append(LoadProblem(
        name, None, f"info.num_trials {info['num_trials']!r} is not a whole number of trials "
                    f">= 1: ignored; the plan takes the trials present ({present})"))
    return None


def _one(raw: Any, i: int, model: str, path: Path, seen: Counter[str],
         archive: Archive, may_repeat: bool) -> ArchiveEpisode | None:
    """Return simulation i's episode (malformed: kept ungraded), or None when unreadable."""
    if not isinstance(raw, dict):
        archive.problems.append(LoadProblem(path.name, None, f"simulation {i}: not an object"))
        return None
    try:
        twice = repeated_key(raw, may_repeat, KEY_FIELDS)
        task, trial = sim_key(raw, seen)
    except Malformed as exc:
        archive.problems.append(LoadProblem(path.name, None, f"simulation {i}: skipped: {exc}"))
        return None
    ep = ArchiveEpisode(episode_id=f"{path.stem}/{task}/{trial}", task=task, model=model,
                        run=path.stem, trial=trial)
    # Where its record is: the file's simulation ids need not be unique (the viewer showed one
    # conversation for two episodes whose simulations shared an id).
    ep.meta["simulation_index"] = i
    try:
        if twice is not None:  # no part of it is read: no stored score, no events
            raise Malformed(twice)
        fill_episode(ep, raw)
    except Malformed as exc:
        ep.grade, ep.events = None, []
        ep.reason, ep.reason_detail = "malformed_record", str(exc)
        archive.problems.append(LoadProblem(path.name, None, f"simulation {i} (task {task}): "
                                            f"malformed, kept ungraded: {exc}"))
    return ep


def _plan(archive: Archive, planned: list[str], trials: int, model: str) -> None:
    """Add a `never_ran` placeholder for every planned (task, trial) the file lacks."""
    have = {(e.task, e.trial) for e in archive.episodes}
    # Counted before any is built: one simulation with trial 10**9 would otherwise list
    # billions of placeholders (all memory) before the limit below could refuse them.
    tasks = set(planned)
    absent = len(tasks) * trials - sum(t in tasks and k < trials for t, k in have)
    if absent > MAX_PLANNED_ABSENT:
        raise ArchiveFormatError(f"{archive.source}: {len(planned)} tasks x {trials} trials "
                                 f"imply {absent} absent simulations; more than "
                                 f"{MAX_PLANNED_ABSENT} is refused as implausible")
    missing = [(t, k) for t in planned for k in range(trials) if (t, k) not in have]
    run = Path(archive.source).stem
    for task, trial in missing:
        archive.episodes.append(ArchiveEpisode(
            episode_id=f"{run}/{task}/{trial}", task=task, model=model, run=run, trial=trial,
            reason="never_ran", reason_detail="planned task x trial with no simulation in the "
                                              "file", meta={"never_ran": True}))
