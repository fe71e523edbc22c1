"""The options of `agm run`, in the spellings other evaluation tools use: `-T key=value` task
arguments, `--model provider/name`, `--limit N` and `--epochs K` (as in Inspect AI); their
values are checked by `run.task_args` and `run.request`."""

from __future__ import annotations

import typer

# The options of `agm run`, declared here so that the command reads as what it does.
ENV = typer.Argument(..., help="Environment, e.g. comtrade (agm envs).")
TASK = typer.Option(None, "--task", help="Task id, comma-separated ids, or 'all' "
                                         "(or -T task=...).")
SEEDS = typer.Option(None, "--seeds", help="Episode seeds: 0-9, 3 or 1,4,7 (default 0).")
AGENT = typer.Option(None, "--agent", help="A model-free agent of the environment (e.g. rule, "
                                           "scripted:careful; default rule) or llm:MODEL.")
MODEL = typer.Option(None, "--model", metavar="PROVIDER/MODEL",
                     help="An LLM as Inspect names it (openai/gpt-4o-mini, anthropic/..., "
                          "ollama/..., openai-api/SERVICE/...): llm:MODEL on the provider's "
                          "OpenAI-compatible endpoint.")
LEVEL = typer.Option(None, "--level", help="Scaffold level: L0 | L1 | L2 (default L2).")
PROFILE = typer.Option(None, "--profile", help="Data profile (default: the first).")
CONDITION = typer.Option(None, "--condition",
                         help="clean (default), a stress condition (stress:escalating, "
                              "stress:constant, stress:dose=X), or either under a mutation: "
                              "mut:alias, stress:constant+mut:format.")
TASK_ARG = typer.Option([], "-T", "--task-arg", metavar="KEY=VALUE",
                         help="Task argument, repeatable: task, seeds (or seed), level, "
                              "profile, condition.")
LIMIT = typer.Option(None, "--limit", min=1, metavar="N",
                     help="Run only the first N samples, (task, seed) in task order, as "
                          "Inspect's --limit (each runs --epochs times).")
EPOCHS = typer.Option(1, "--epochs", min=1, max=1000, metavar="K",
                      help="Run each (task, seed) K times, recorded as repeat 0..K-1.")
JSON_OUT = typer.Option(False, "--json", help="One JSON line per episode.")
BASE_URL = typer.Option(None, "--base-url", help="llm: OpenAI-compatible endpoint.")
API_KEY_ENV = typer.Option(None, "--api-key-env",
                           help="llm: environment variable holding the key.")
MAX_RETRIES = typer.Option(4, "--max-retries", min=0, max=20,
                           help="llm: retries per request on 429/5xx/timeouts.")
STORE = typer.Option(None, "--store", help="llm: evidence store (default ./.agm/store).")
RETRY_FAILURES = typer.Option(False, "--retry-measurement-failures",
                              help="llm: measure again the episodes recorded as measurement "
                                   "failures.")
PRICE = typer.Option(None, "--price", help="llm: INPUT_PER_M,OUTPUT_PER_M[,CACHED_PER_M] per "
                                           "million tokens.")
