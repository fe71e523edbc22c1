"""A leaderboard view over many tau2 results files: one row per submission and domain.

Each file is audited as `agm archive audit` audits it (its `tau2` section); the row keeps the
reported and recomputed pass^1, the graded coverage and bounds, the do-nothing share, the pass
rate where doing nothing fails and the agent's cost (or that it is unpriced). Within a domain the
rows are ranked by each measure, and the rankings are compared pair by pair: a strict reversal is
a pair of submissions whose order flips by more than the tie tolerance on both measures; a pair
within the tolerance on either is a tie, never a reversal.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.archive.audit import file_digest
from agentmetrology.archive.importers.limits import file_head
from agentmetrology.archive.importers.tau2 import load_tau2, looks_like_tau2_head
from agentmetrology.archive.model import Archive, ArchiveFormatError
from agentmetrology.archive.tau2_donothing import Evaluator
from agentmetrology.archive.tau2_regrade import regrade_tau2
from agentmetrology.archive.tau2_reported import SUBMISSION, find_claim
from agentmetrology.archive.tau2_section import tau2_section
from agentmetrology.archive.versions import rank_reversals
from agentmetrology.edges.files import file_kind, resolved
from agentmetrology.records.canonical import to_plain

SCHEMA = "agentmetrology.tau2-leaderboard/1"
TIE_TOLERANCE = 0.01  # pass rates closer than one percentage point are a tie
MAX_FILES = 500
# Files and folders looked at below one folder given: the leaderboard's submissions folder holds
# a few per submission, and `/` or a home folder holds millions (the search walked them all).
MAX_WALKED = 100_000
MEASURES = ("reported", "recomputed", "where_doing_nothing_fails")
COMPARED = (("reported", "recomputed"), ("recomputed", "where_doing_nothing_fails"))


def results_files(paths: list[Path]) -> list[Path]:
    """Return the tau2 results files among the given files and directories (walked, sorted),
    each resolved (`~` expanded, links followed); errors name a path as it was given."""
    found: list[Path] = []
    for given in paths:
        path = resolved(given)
        if path.is_dir():
            found += sorted(p for p in _json_below(path, given)
                            if p.is_file() and p.name != SUBMISSION and _is_results(p))
        elif path.is_file():
            found.append(path)
        elif path.exists():  # a named pipe or a device: never read (it may never end)
            raise ArchiveFormatError(f"{given}: is {file_kind(path.stat().st_mode)}, neither "
                                     "a tau2 results file nor a folder")
        else:
            raise ArchiveFormatError(f"{given}: not found")
    _check_once(found)
    if len(found) > MAX_FILES:
        raise ArchiveFormatError(f"{len(found)} results files; more than {MAX_FILES} at once is "
                                 "refused (give fewer folders)")
    if not found:
        raise ArchiveFormatError("no tau2 results file found in the given paths")
    return found


def _json_below(folder: Path, given: Path) -> list[Path]:
    """Return the `*.json` paths at any depth below `folder`, as `Path.rglob` finds them (links
    to folders not followed), after looking at no more than MAX_WALKED files and folders;
    ArchiveFormatError, naming `given`, beyond that, and for a folder that cannot be read."""
    found: list[Path] = []
    todo, walked = [folder], 0
    while todo:
        current = todo.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    walked += 1
                    if walked > MAX_WALKED:
                        raise ArchiveFormatError(
                            f"{given}: more than {MAX_WALKED:,} files and folders below it, "
                            "where a folder of submissions holds a few per submission; give "
                            "the folder of the results files, not one far above it")
                    if _is_folder(entry):
                        todo.append(current / entry.name)
                    if entry.name.endswith(".json"):
                        found.append(current / entry.name)
        except OSError as exc:
            # Never skipped as rglob skips it: the submissions in it would be missing from the
            # rankings with nothing saying so.
            where = "this folder" if current == folder else f"the folder {current} below it"
            raise ArchiveFormatError(
                f"{given}: cannot read {where} ({exc.strerror or type(exc).__name__}); its "
                "results files would be missing from the leaderboard: make it readable, or "
                "give the other folders one by one") from None
    return found


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Return True for a folder that is not a symbolic link (what rglob descends into)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _check_once(found: list[Path]) -> None:
    """ArchiveFormatError when one file is among `found` twice (named twice, or by a file and a
    folder holding it): it would be two rows, ranked against itself."""
    seen: dict[str, Path] = {}
    for path in found:
        first = seen.setdefault(os.path.realpath(path), path)
        if first is not path:
            raise ArchiveFormatError(f"{path}: given twice (named twice, or also found in a "
                                     "folder given); give each results file once")


def _is_results(path: Path) -> bool:
    head = file_head(path, 4096)
    return (head[:1] == b"[" and b'"task_id"' in head) or looks_like_tau2_head(head)


def _regraded(archive: Archive) -> dict[str, Any]:
    """Return pass^1 over planned episodes after re-grading, or None with why: a simulation
    that could not be re-graded is never counted as a fail (nor a pass)."""
    r = regrade_tau2(archive)
    planned = len(archive.episodes)
    if not r["applicable"]:
        return {"regraded": None, "regrade_note": r["reason"]}
    # ungraded simulations count as the stored pass^1 counts them (no pass, in the planned)
    why = {k: v for k, v in r["problems"].items() if k != "ungraded"}
    missing = sum(why.values())
    if missing or not planned:
        return {"regraded": None, "regrade_note": f"{missing} of {r['simulations']} "
                f"simulations not re-gradable ({', '.join(sorted(why))})"}
    t = r["transitions"]
    return {"regraded": (t["n01"] + t["n11"]) / planned,
            "regrade_note": f"{r['reproduced']} of {r['regraded']} stored rewards reproduced"}


def _do_nothing_share(dn: dict[str, Any]) -> float | None:
    """Return do-nothing-passable tasks over the tasks probed (a task the evaluator could not
    score is neither; over every task, 5 passable of 10 probed among 20 read 0.25)."""
    if not dn.get("applicable"):
        return None
    probed = dn["passable"]["tasks"] + dn["not_passable"]["tasks"]
    return dn["passable"]["tasks"] / probed if probed else None


def _row(path: Path, evaluator: Evaluator | None,
         regrade: bool) -> tuple[dict[str, Any], list[Path]]:
    """Return one leaderboard row for a results file, and the files it was read from."""
    archive = load_tau2(path)
    found = find_claim(path, None)
    t = tau2_section(archive, found[:2] if found else None, evaluator)
    rep, dn, cost, n = t["reported"], t["do_nothing"], t["cost"], t["denominators"]
    first = rep["rows"][0] if rep.get("applicable") and rep["rows"] and rep["rows"][0]["k"] == 1 \
        else None
    submission = found[2].parent.name if found else path.stem
    row = {
        "submission": submission, "file": path.name, "model": t["file"]["agent_model"],
        "domain": t["file"]["domain"] or "unknown", "planned": n["planned"],
        "graded": n["graded"], "passes": t["outcomes"]["pass"],
        "graded_fraction": n["graded"] / n["planned"] if n["planned"] else None,
        "reported": first["reported"] if first else None,
        "recomputed": t["pass_1"]["planned"], "bounds": t["bounds"],
        **(_regraded(archive) if regrade else {"regraded": None, "regrade_note": None}),
        "reported_finding": bool(rep.get("findings")),
        "do_nothing_share": _do_nothing_share(dn),
        "passes_on_do_nothing_passable": dn["passable"]["passes"] if dn.get("applicable")
        else None,
        "where_doing_nothing_fails": dn.get("pass_rate_where_doing_nothing_fails"),
        "all_passes_do_nothing_passable": bool(dn.get("all_passes_on_passable")),
        "cost_unpriced": bool(cost.get("unpriced")),
        "agent_cost_per_simulation": cost.get("agent_per_simulation"),
        "headlines": [h["code"] for h in t["headlines"]],
    }
    return row, [path] + ([found[2]] if found else [])


def _distinct(rows: list[dict[str, Any]], files: list[Path]) -> None:
    """Name rows whose ids coincide by the shortest ending of their paths that tells them
    apart (as id and submission): two folders' `airline.json` without a submission.json were
    one id, so the rankings, keyed by id, gave both the same rank and compared neither."""
    groups: dict[str, list[tuple[dict[str, Any], Path]]] = defaultdict(list)
    for row, path in zip(rows, files, strict=True):
        groups[row["id"]].append((row, path))
    for group in (g for g in groups.values() if len(g) > 1):
        for depth in range(2, max(len(p.parts) for _, p in group) + 1):
            labels = ["/".join(p.parts[-depth:]) for _, p in group]
            if len(set(labels)) == len(labels):
                break
        for (row, path), label in zip(group, labels, strict=True):
            row["id"], row["submission"] = label, label.removesuffix(path.suffix)
    if len({r["id"] for r in rows}) < len(rows):  # a new label met another row's: full paths
        for row, path in zip(rows, files, strict=True):
            row["id"] = str(path)


def _ranks(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
    """Return competition ranks (1 for the highest; equal values share a rank, the next rank
    skips: 1, 1, 3): numbering equal values 1 and 2 by name claimed an order they do not have."""
    ordered = sorted((r for r in rows if r[key] is not None), key=lambda r: (-r[key], r["id"]))
    ranks: dict[str, int] = {}
    for i, r in enumerate(ordered):
        tied = i and ordered[i - 1][key] == r[key]
        ranks[r["id"]] = ranks[ordered[i - 1]["id"]] if tied else i + 1
    return ranks


def _domain_view(rows: list[dict[str, Any]], tol: float, regrade: bool) -> dict[str, Any]:
    measures = MEASURES + (("regraded",) if regrade else ())
    ranks = {m: _ranks(rows, m) for m in measures}
    for r in rows:
        r["ranks"] = {m: ranks[m].get(r["id"]) for m in measures}
    comparisons = []
    for first, second in COMPARED + ((("recomputed", "regraded"),) if regrade else ()):
        vals = [{r["id"]: r[k] for r in rows if r[k] is not None} for k in (first, second)]
        comparisons.append({"first": first, "second": second,
                            **rank_reversals(vals[0], vals[1], tol)})
    return {"rows": rows, "comparisons": comparisons}


def leaderboard(paths: list[Path], evaluator: Evaluator | None = None,
                tol: float = TIE_TOLERANCE, regrade: bool = False) -> dict[str, Any]:
    """Return leaderboard.json: rows per submission and domain, rankings, reversals, inputs;
    with `regrade`, each file's pass^1 after re-grading (tau2_regrade) beside the others."""
    rows, inputs, files = [], [], results_files(paths)
    for path in files:
        try:
            row, read = _row(path, evaluator, regrade)
        except ArchiveFormatError as exc:
            # By its whole path: a leaderboard's folders each hold an `airline.json`.
            raise ArchiveFormatError(f"{path}: {str(exc).removeprefix(path.name + ': ')}"
                                     ) from exc
        row["id"] = f"{row['submission']}/{row['file']}"
        rows.append(row)
        for p in read:
            digest = file_digest(p)
            if digest not in inputs:  # one submission.json serves several results files
                inputs.append(digest)
    _distinct(rows, files)
    by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_domain[row["domain"]].append(row)
    doc = {"schema": SCHEMA, "package": {"name": "agentmetrology", "version": __version__},
           "tie_tolerance": tol, "inputs": inputs, "submissions": len(rows),
           "regraded": regrade,
           "domains": {d: _domain_view(rs, tol, regrade) for d, rs in sorted(by_domain.items())}}
    plain: dict[str, Any] = to_plain(doc)
    return plain
