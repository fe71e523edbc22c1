"""`agm diagnose STORE --out DIR`: paired-mutation diagnostics of a store's campaigns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from agentmetrology.agents.llm.policy import target_from_spec
from agentmetrology.agents.registry import AGENT_PREFIX
from agentmetrology.archive.report_qualify import store_evidence
from agentmetrology.cli.args import plain_zero, seed_value
from agentmetrology.cli.console import make_console
from agentmetrology.cli.errors import fail, user_errors
from agentmetrology.cli.evidence_banner import print_banner
from agentmetrology.diagnose.run import diagnose_store
from agentmetrology.edges.files import refuse_non_directory
from agentmetrology.records.errors import UserError
from agentmetrology.report.analysis_files import write_diagnose
from agentmetrology.report.terminal.diagnose_summary import print_diagnose
from agentmetrology.store import LedgerError
from agentmetrology.store.enclosing import refuse_inside_store

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
    analysis_seed: int = typer.Option(0, "--analysis-seed", min=0, callback=seed_value,
                                      help="Seed of the bootstrap intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print diagnose.json."),
    tau: float = typer.Option(0.65, "--tau", callback=plain_zero,
                              help="Pass threshold of MSR/MTR (0-1 scale)."),
    judge_model: JudgeModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: ApiKeyEnvOpt = None,
    judge_calls: JudgeCallsOpt = 3,
    judge_episodes: JudgeEpisodesOpt = 20,
) -> None:
    """Tell agent, environment and scorer apart: gaps, rescored gaps, MSR/MTR, readings."""
    with user_errors():  # before any work (a judge's calls are paid for)
        refuse_inside_store(out, "report")
        refuse_non_directory(out)
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
    with user_errors():
        doc = write_diagnose(out, doc, evidence)
    if json_out:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return
    print_diagnose(make_console(), doc, store, out)
