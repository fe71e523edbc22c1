"""`agm diagnose STORE --out DIR`: paired-mutation diagnostics of a store's campaigns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from agentmetrology.agents.llm.policy import target_from_spec
from agentmetrology.agents.registry import AGENT_PREFIX
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail
from agentmetrology.cli.evidence_banner import print_banner, store_evidence
from agentmetrology.cli.report_binding import write_binding
from agentmetrology.diagnose.run import diagnose_store
from agentmetrology.records.errors import UserError
from agentmetrology.report.diagnose_report import render_diagnose_report, said
from agentmetrology.report.numberguard import NumberGuardError
from agentmetrology.report.terminal.glossary import glossary_line
from agentmetrology.report.terminal.table_fit import Col, fit_table
from agentmetrology.store import LedgerError

# The LLM-judge audit's options (used only with --judge-model).
JudgeModelOpt = Annotated[list[str] | None, typer.Option(
    "--judge-model", help="Also audit an LLM judge (repeat for two judges): saved trajectories "
                          "in four views.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url",
                                                help="judge: OpenAI-compatible endpoint.")]
ApiKeyEnvOpt = Annotated[str | None, typer.Option("--api-key-env", help="judge: key variable.")]
JudgeCallsOpt = Annotated[int, typer.Option("--judge-calls", min=1, max=20,
                                            help="judge: calls per episode and view.")]
JudgeEpisodesOpt = Annotated[int, typer.Option("--judge-episodes", min=1, max=10_000,
                                               help="judge: original episodes shown.")]


def diagnose_cmd(
    store: Path = typer.Argument(..., help="Evidence store of a campaign with mutations."),
    out: Path = typer.Option(Path("out/diagnose"), "--out", help="Output directory."),
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0,
                                      help="Seed of the bootstrap intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print diagnose.json."),
    tau: float = typer.Option(0.65, "--tau", help="Pass threshold of MSR/MTR (0-1 scale)."),
    judge_model: JudgeModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    judge_calls: JudgeCallsOpt = 3,
    judge_episodes: JudgeEpisodesOpt = 20,
) -> None:
    """Tell agent, environment and scorer apart: gaps, rescored gaps, MSR/MTR, readings."""
    judges = [target_from_spec(f"{AGENT_PREFIX}{m}", base_url=base_url, api_key_env=api_key_env,
                               max_retries=1) for m in judge_model or []]
    try:
        doc = diagnose_store(store, analysis_seed, judges, judge_calls, judge_episodes, tau=tau)
    except UserError:
        raise  # no mutated administrations, no original to show a judge: the one handler
    except (ValueError, LedgerError, OSError) as exc:  # a damaged store: its first line
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    evidence = store_evidence(store)
    if not evidence["qualified"]:  # a qualified analysis stays byte-identical across stores
        doc["evidence"] = evidence
    print_banner(evidence)
    _write(doc, out)
    try:
        write_binding(out, evidence)  # what `agm evidence qualify` checks
    except OSError as exc:
        fail(f"cannot write into {out}: {exc.strerror or exc}")
    if json_out:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return
    _print_summary(doc, store, out)


def _write(doc: dict[str, Any], out: Path) -> None:
    """Render the report and write diagnose.json, report.md and report.html into `out`."""
    try:
        markdown, html = render_diagnose_report(doc)
    except NumberGuardError as exc:
        fail(f"report refused by the number guard: {exc}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "diagnose.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        (out / "report.md").write_text(markdown)
        (out / "report.html").write_text(html)
    except OSError as exc:
        fail(f"cannot write into {out}: {exc.strerror or exc}")


def _print_summary(doc: dict[str, Any], store: Path, out: Path) -> None:
    """Print the groups' table, the pair counts, the controls and the judge audit's lines."""
    console = make_console()
    rows = [[g["target"], g["mutation"], str(g["complete"]),
             "n/a" if not g.get("vrg") else f"{g['vrg']['value']:.3f}",
             "n/a" if not g.get("rescored_gap") else f"{g['rescored_gap']['value']:.3f}",
             "n/a" if g.get("msr") is None else f"{g['msr']:.3f}", said(g)]
            for g in doc["groups"].values()]
    # the reading column is the verdict's text: never a reading without its n
    cols = [Col("policy", 9), Col("mutation", 9), Col("pairs", 4, True), Col("VRG", 8, True),
            Col("rescored", 7, True), Col("MSR", 6, True), Col("reading (n)", 9, wrap=True)]
    table = fit_table(console, f"Diagnose {store}", cols, rows)
    console.print(table)
    console.print(glossary_line(str(c.header) for c in table.columns), markup=False)
    pairs = doc["pairs"]
    console.print(f"pairs: {pairs['complete']} complete of {pairs['total']}; half-finished "
                  f"{pairs['half_finished']}, unmeasured {pairs['unmeasured']} (counted, never "
                  "scored)", markup=False)
    pc = doc["positive_control"]
    console.print(f"positive control (misleading): {pc['status']}", markup=False)
    ja = doc.get("judge_audit") or {}
    if ja.get("unknown_cells"):
        top = next(iter(ja["unknown_reasons"]), "")
        console.print(f"judge calls without a verdict (UNKNOWN, excluded): {ja['unknown_cells']} "
                      f"of {ja['cells']}; most common: {top}", markup=False)
    if ja:
        _judge_lines(console, ja)
    if doc["gap_only_ranking"]["warning"]:
        console.print(f"warning: {doc['gap_only_ranking']['warning']}", markup=False)
    console.print(f"report: {(out / 'report.html').resolve()}", markup=False)


def _judge_lines(console: Console, ja: dict[str, Any]) -> None:
    """Print what the judge was shown, then per judge its verdicts, view disagreement,
    agreement with the native reward and what its calls cost."""
    console.print("judge shown: task statement, success criteria, tools, trajectory as "
                  "recorded; INSUFFICIENT allowed (counted apart, never a verdict)",
                  markup=False)
    spent = ja.get("billable_attempts") or {}
    for name, j in (ja.get("judges") or {}).items():
        v, nat = j["views"], j["with_native_reward"]
        counts = v["original"]["verdicts"]
        console.print(f"judge {name}: original view PASS {counts['PASS']}, FAIL "
                      f"{counts['FAIL']}, INSUFFICIENT {counts['INSUFFICIENT']}, UNKNOWN "
                      f"{counts['UNKNOWN']}", markup=False)
        console.print(f"judge {name}: disagreement with its own original view: repeat "
                      f"{v['repeat']['disagreement']}, alias {v['alias']['disagreement']}, "
                      f"format {v['format']['disagreement']}", markup=False)
        interval = nat.get("interval")
        shown = "" if not interval else f" [{interval[0]:.3f}, {interval[1]:.3f}]"
        agree = "n/a" if nat["raw_agreement"] is None else f"{nat['raw_agreement']:.3f}"
        console.print(f"judge {name}: agreement with the native reward {agree}{shown} "
                      f"(n = {nat['n']}), kappa {nat['kappa']}", markup=False)
        if name in spent:
            a = spent[name]
            cost = "unknown" if a["cost"] is None else f"{a['cost']:.4f}"
            console.print(f"judge {name}: {a['attempts']} billable attempt(s), {a['failed']} "
                          f"failed, {a['input_tokens']}+{a['output_tokens']} tokens, cost "
                          f"{cost}", markup=False)
    console.print(in_store_line(ja.get("recorded_in_store") or {}), markup=False)


def in_store_line(kept: dict[str, Any]) -> str:
    """Return where the judges' requests were kept: the store's grader calls, or why not."""
    if kept.get("reason"):
        return (f"judge requests: {kept['recorded']} kept in the store, "
                f"{kept['not_recorded']} not ({kept['reason']})")
    return (f"judge requests: {kept.get('recorded', 0)} kept in the store (grader calls, "
            "never an agent's cost; agm campaign status sums them apart)")
