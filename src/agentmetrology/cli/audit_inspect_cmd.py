"""`agm audit inspect TASK` and `agm audit census`: audit Inspect AI tasks' scorers.

The root group resolves `agm audit NAME ...` to this module's app when NAME is one of its
commands (`Lazy.subcommands` in cli/lazy_commands.py); every other `agm audit TARGET` is the
built-in auditor.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from agentmetrology.cli.audit_cmd import (
    check_writable,
    invalid_lines,
    print_card,
    stage_progress,
    write_rendered,
)
from agentmetrology.cli.console import err_console, make_console
from agentmetrology.cli.errors import fail
from agentmetrology.records.names import compact_slug
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.report.terminal.table_fit import Col, fit_table

PLACEHOLDER_KEY = "agm-no-key"  # a local judge ignores the key; never a real credential
REASON_CHARS = 160

inspect_app = typer.Typer(name="audit", no_args_is_help=True, add_completion=False,
                          pretty_exceptions_enable=False, rich_markup_mode=None,
                          help="Audit Inspect AI tasks' scorers.")


@inspect_app.callback()
def _group() -> None:
    """Audit Inspect AI tasks' scorers (`inspect TASK`) or many at once (`census`)."""


def _judge(model: str | None, base_url: str | None, key_env: str | None) -> Any:
    from agentmetrology.audit.targets.inspect_run import Judge

    if model is None:
        if base_url or key_env:
            fail("--base-url and --api-key-env need --judge-model")
        return None
    if key_env:
        key = os.environ.get(key_env)
        if not key:
            fail(f"the API key variable {key_env} is not set")
    elif base_url:
        key = PLACEHOLDER_KEY
    else:
        key = os.environ.get("OPENAI_API_KEY") or ""
        if not key:
            fail("--judge-model without --base-url needs OPENAI_API_KEY (or --api-key-env)")
    return Judge(model, base_url, key)


def emit(doc: dict[str, Any], out: Path, json_out: bool) -> None:
    """Write the four artifacts and print the card, do-nothing verdicts and INVALID reasons."""
    from agentmetrology.report.inspect_report import render_inspect_report

    paths = write_rendered(doc, out, json_out, render_inspect_report)
    if paths is None:
        return
    con = make_console()
    print_card(con, doc["card"])
    t = doc["target"]
    con.print(f"samples: {t['samples_audited']} audited of {t['dataset_samples']}, "
              f"{t['samples_without_target']} without a usable target", markup=False)
    if t.get("probed_without"):
        con.print(f"probed without its {t['probed_without']} sandbox: forged outputs only, "
                  "no do-nothing run", markup=False)
    for k in t["scorers"]:
        e = k.get("empty_trajectory")
        line = f"{k['scorer']}: {k['kind']} ({k['basis']})"
        if e:
            line += f"; do-nothing passes {e['passed']} of {e['scored']} scored"
            if e["invalid"]:
                line += f", {e['invalid']} INVALID"
        con.print(line, markup=False)
        for r in (e or {}).get("invalid_reasons", []):
            con.print(f"  empty trajectory: {r['cells']} × {_cut(r['reason'])}", markup=False)
    for line in invalid_lines(doc):
        con.print(line, markup=False)
    con.print(f"audit.json: {paths['audit']}", markup=False)
    con.print(f"HTML report: {paths['html'].resolve()}", markup=False)


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


@inspect_app.command("inspect")
def inspect_cmd(
    task: str = typer.Argument(..., help="An Inspect task: package/task or file.py@task."),
    task_arg: list[str] = typer.Option([], "-T", "--task-arg", help="Task argument key=value "
                                                                  "(repeatable)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Audit the first N samples."),
    judge_model: str = typer.Option(None, "--judge-model", help="Judge model for scorers that "
                                    "call a model (OpenAI-compatible)."),
    base_url: str = typer.Option(None, "--base-url", help="The judge's OpenAI-compatible URL."),
    api_key_env: str = typer.Option(None, "--api-key-env", help="Variable holding the judge's "
                                    "key (default: none for --base-url)."),
    scorer_timeout: float = typer.Option(10.0, "--scorer-timeout", min=0.001, max=86400.0,
                                         help="Seconds one scorer call may take; a slower "
                                              "call is INVALID."),
    no_empty: bool = typer.Option(False, "--no-empty-trajectory",
                                  help="Skip the do-nothing run of the task's own solver."),
    out: Path = typer.Option(None, "--out", help="Output directory "
                             "(default out/audit-inspect-TASK)."),
    json_out: bool = typer.Option(False, "--json", help="Print the card as JSON."),
    no_sandbox: bool = typer.Option(False, "--without-sandbox",
                                    help="A task that runs in docker or a sandbox: probe its "
                                         "scorers with forged outputs and no sandbox (no "
                                         "do-nothing run)."),
) -> None:
    """Probe an Inspect task's own scorers with forged outputs; write a validity card."""
    from agentmetrology.audit.targets.inspect_load import (
        InspectLoadError,
        load_task,
        parse_task_args,
        without_sandbox,
    )
    from agentmetrology.audit.targets.inspect_target import audit_inspect

    try:
        args = parse_task_args(task_arg)
    except ValueError as exc:
        fail(str(exc))
    out = out or Path(f"out/audit-inspect-{compact_slug(task, 'task')}")
    check_writable(out)
    judge = _judge(judge_model, base_url, api_key_env)
    with stage_progress(err_console) as progress:
        if progress is not None:
            err_console.print(f"auditing {task}", markup=False, soft_wrap=True)
            progress("loading the task", 0, 0)
        try:
            loaded = load_task(task, args, limit)
        except InspectLoadError as exc:
            fail(str(exc) + (f" (needs {exc.needs})" if exc.needs else ""))
        if loaded.needs and not no_sandbox:
            fail(f"not probed: {task} needs {loaded.needs} (--without-sandbox probes its "
                 "scorers with forged outputs alone)")
        if loaded.needs:
            loaded, no_empty = without_sandbox(loaded), True
        doc = audit_inspect(loaded, task_args=args, timeout=scorer_timeout, judge=judge,
                            empty_trajectory=not no_empty, progress=progress)
    emit(doc, out, json_out)


@inspect_app.command("census")
def census_cmd(
    tasks: str = typer.Option(None, "--tasks", help="Comma-separated benchmarks: Inspect task "
                              "specs, builtin:comtrade, builtin:bfcl (default: the census "
                              "list in docs/inspect.md)."),
    limit: int = typer.Option(5, "--limit", min=1, help="Samples per Inspect task."),
    scorer_timeout: float = typer.Option(10.0, "--scorer-timeout", min=0.001, max=86400.0,
                                         help="Seconds one scorer call may take."),
    worker_timeout: float = typer.Option(900.0, "--task-timeout", min=1.0, max=86400.0,
                                         help="Seconds one benchmark's whole audit may take."),
    taubench_archive: Path = typer.Option(None, "--taubench-archive", help="A tau-bench run "
                                          "archive (JSON rows) for the do-nothing count."),
    out: Path = typer.Option(Path("out/audit-census"), "--out", help="Output directory."),
) -> None:
    """Audit many benchmarks' scorers; write census.json, report.md/html and census.svg."""
    from agentmetrology.audit.census import DEFAULT_TASKS, run_census
    from agentmetrology.audit.census_tau2 import archive_census

    specs = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else list(DEFAULT_TASKS)
    if not specs:
        fail("--tasks names no benchmark")
    check_writable(out)
    archive = None
    if taubench_archive is not None:
        try:
            archive = archive_census(taubench_archive)
        except (ValueError, KeyError, TypeError) as exc:
            fail(str(exc))
    con = make_console()
    with stage_progress(err_console) as bar:

        def progress(spec: str, done: int, total: int) -> None:
            if bar is not None:  # a terminal: one bar, benchmarks done of total, elapsed
                bar(f"census {spec}" if spec != "done" else "census done", done, total)
            elif spec != "done":
                con.print(f"census {done + 1}/{total}: {spec}", markup=False)

        doc = run_census(specs, limit, scorer_timeout, worker_timeout, progress)
    tau2 = doc["tau2"]
    doc["taubench_archive"] = archive
    _write_census(doc, out)
    _print_census(con, doc, tau2, out)


def _write_census(doc: dict[str, Any], out: Path) -> None:
    """Write census.json, report.md, report.html and census.svg into `out` (one line if not)."""
    from agentmetrology.audit.output import write_json
    from agentmetrology.report.census_report import render_census_report

    try:
        markdown, html, svg = render_census_report(doc)
    except NumberGuardError as exc:
        fail(f"report refused by the number guard: {exc}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "census.json", doc)
        for name, text in (("report.md", markdown), ("report.html", html),
                           ("census.svg", svg)):
            (out / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write the census into {out}: {exc.strerror or exc}")


def _scorer_name(benchmark: str, scorer: str) -> str:
    """Return a scorer's name without the namespace it shares with its benchmark (never cut)."""
    space = benchmark.rsplit("/", 1)[0] + "/" if "/" in benchmark else ""
    return scorer[len(space):] if space and scorer.startswith(space) else scorer


def census_rows(doc: dict[str, Any]) -> list[list[str]]:
    """Return one table row per benchmark scorer (one per benchmark not probed)."""
    out = []
    for r in doc["rows"]:
        if r["status"] != "probed":
            out.append([r["benchmark"], "-", "-", "not probed", "-", "-"])
            continue
        for s in r["scorers"]:
            scored = s.get("empty_scored")
            v = s.get("criterion_verdict")
            crit = v["text"] if v else s["criterion"] + (
                f" (n={r['samples']})" if r.get("samples") else
                f" (n={s['criterion_pairs']})" if s.get("criterion_pairs") else "")
            if s.get("stability", "").find("unstable") >= 0:
                crit += ", unstable"
            out.append([r["benchmark"], _scorer_name(r["benchmark"], s["scorer"]), s["kind"],
                        crit, f"{s['empty_passed']}/{scored}" if scored else "-",
                        s["claim"] or "none"])
    return out


def census_reasons(doc: dict[str, Any]) -> list[str]:
    """Return one line per benchmark or scorer not probed (or not passing), saying why."""
    out = []
    for r in doc["rows"]:
        if r["status"] != "probed":
            why = f": {r['reason']}" if r.get("reason") else ""
            out.append(f"not probed: {r['benchmark']} needs {r['needs']}{why}")
            continue
        for s in r["scorers"]:
            if s["criterion"] != "pass" and s.get("criterion_reason"):
                out.append(f"criterion {s['criterion']}: {r['benchmark']} "
                           f"{_scorer_name(r['benchmark'], s['scorer'])}: "
                           f"{s['criterion_reason']}")
    return out


# At 80 columns the benchmark, the criterion and the claim stay; the reasons follow the table.
CENSUS_COLS = (Col("benchmark", 9), Col("scorer", 4), Col("kind", 6), Col("criterion", 8),
               Col("do-nothing", 5, numeric=True), Col("licensed claim", 7))


def _print_census(con: Any, doc: dict[str, Any], tau2: list[dict[str, Any]], out: Path) -> None:
    """Print the census table (every benchmark's scorers, what was not probed and why), the
    totals and the tau2 do-nothing counts."""
    s = doc["summary"]
    con.print(fit_table(con, "census", CENSUS_COLS, census_rows(doc), full="census.json"))
    for line in census_reasons(doc):
        con.print(line, markup=False)
    kinds = ", ".join(f"{k} {n}" for k, n in s["by_kind"].items()) or "none"
    crit = ", ".join(f"{k} {n}" for k, n in s["by_criterion"].items()) or "none"
    con.print(f"{s['probed']} of {s['benchmarks']} benchmarks probed, {s['scorers']} scorers; "
              f"kinds: {kinds}; criterion: {crit}", markup=False)
    con.print("criterion: does the scorer rank correct work above degraded work (n = samples "
              "probed; probe pairs for built-in targets); do-nothing: samples an empty "
              "trajectory passes / samples scored",
              markup=False)
    for t in tau2:
        line = f"{t['spec']}: do-nothing passes {t['shipped']['passed']} of " \
               f"{t['shipped']['scored']}"
        if "database_unchanged" in t:
            line += (f" (database unchanged {t['database_unchanged']['passed']}, required "
                     f"outputs {t['required_outputs']['passed']}, both {t['both']})")
        con.print(line, markup=False)
    con.print(f"census.json: {out / 'census.json'}", markup=False)
    con.print(f"HTML report: {(out / 'report.html').resolve()}", markup=False)


def _propose_probes(ep: Any, items: list[str], limit: int,
                    passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return forged outputs a model proposes for one Inspect task, executed on its scorer."""
    from agentmetrology.audit.proposals import execute_proposed_probes, propose_probes
    from agentmetrology.audit.targets.inspect_load import InspectLoadError, load_task

    if len(items) != 1:
        fail("propose probes takes one Inspect task")
    try:
        loaded = load_task(items[0], {}, limit)
    except InspectLoadError as exc:
        fail(str(exc))
    shown = [{"id": i.sample_id, "input": str(s.input)[:2000],
              "target": list(i.targets)} for s, i in zip(loaded.samples, loaded.infos,
                                                         strict=True)
             if i.unusable is None]
    if not shown:
        fail(f"{items[0]}: no sample has a usable target to design probes for")
    return execute_proposed_probes(loaded, propose_probes(ep, shown, passes))


def _endpoint(model: str, base_url: str | None, key_env: str | None) -> Any:
    from agentmetrology.audit.proposals import Endpoint

    judge = _judge(model, base_url, key_env)
    return Endpoint(judge.model, judge.base_url, judge.api_key)


@inspect_app.command("propose")
def propose_cmd(
    what: str = typer.Argument(..., help="ownership (from harness source files) or probes "
                                         "(for an Inspect task, executed against its scorer)."),
    items: list[str] = typer.Argument(..., help="ownership: source files; probes: one task."),
    model: str = typer.Option(..., "--model", help="The proposing model."),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint URL."),
    api_key_env: str = typer.Option(None, "--api-key-env", help="Variable holding its key."),
    limit: int = typer.Option(3, "--limit", min=1, help="probes: samples shown to the model."),
    out: Path = typer.Option(Path("out/audit-proposal.json"), "--out", help="Output JSON."),
) -> None:
    """Ask a model for proposals (ownership map, forged outputs); never a verdict."""
    from agentmetrology.audit.output import write_json
    from agentmetrology.audit.proposals import (
        ProposalError,
        propose_ownership,
    )
    from agentmetrology.report.proposal_guard import passes

    ep = _endpoint(model, base_url, api_key_env)
    try:
        if what == "ownership":
            files = [Path(f) for f in items]
            missing = [str(f) for f in files if not f.is_file()]
            if missing:
                fail(f"no such file: {', '.join(missing)}")
            doc = propose_ownership(ep, files, passes)
        elif what == "probes":
            doc = _propose_probes(ep, items, limit, passes)
        else:
            fail(f"propose {what!r}: use ownership or probes")
    except ProposalError as exc:
        fail(str(exc))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_json(out, doc)
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    con = make_console()
    if what == "ownership":
        for name, d in doc["decisions"].items():
            where = ", ".join(f"{e['file']}:{e['line']}" for e in d["evidence"]) or "no evidence"
            con.print(f"proposal: {name} owned by {d['owner'] or '?'} ({where})", markup=False)
    else:
        for p in doc["probes"]:
            con.print(f"proposal: {p['sample']}/{p['name']} degraded={p['degraded']}: "
                      f"{p['finding']}", markup=False)
    con.print(f"proposals (labelled, no verdict changed): {out}", markup=False)
