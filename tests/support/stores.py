"""The one place tests build evidence stores and episodes.

Hand-built records (no agent, no environment): an administration's key, bindings, a provider's
billable attempts, an episode with a given ending, assessments, and `make_episode`, the small
scored episode most store tests record. Stores recorded for real: `record_into`, a campaign run
in-process into a store that does not scrub this machine's environment (tests set secrets), and
`record_campaign`, the same through `agm campaign run`. The fixture modules of one package
(tests/store/verify_fixtures.py, tests/view/view_fixtures.py, tests/audit/store_fixtures.py, ...)
say what their store holds and build it with these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.records import (
    Assessment,
    BillableAttempt,
    Episode,
    EpisodeKey,
    Event,
    Termination,
    Usage,
)
from agentmetrology.run.campaign import CampaignConfig, RunResult, parse_campaign, run_campaign
from agentmetrology.store import Binding, EvidenceStore

VERSIONS = {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}
EVIDENCE = "d" * 64


def episode_key(seed: int = 0, campaign: str = "c1", target: str = "t1", *,
                task: str = "T3_duplicates", condition: str = "clean", level: str = "L2",
                repeat: int = 0) -> EpisodeKey:
    """Return the key of one administration of a small test campaign."""
    return EpisodeKey(campaign, target, task, seed, condition, level, repeat)


def bindings(keys: Sequence[EpisodeKey], spec: str = "a" * 64, target: str = "b" * 64,
             versions: Mapping[str, str] = VERSIONS,
             details: Mapping[str, object] | None = None) -> list[Binding]:
    """Return one binding per key, numbered in order, with fixed digests."""
    if details is None:
        return [Binding(k, i, spec, target, dict(versions)) for i, k in enumerate(keys)]
    return [Binding(k, i, spec, target, dict(versions), dict(details))
            for i, k in enumerate(keys)]


def attempts(costs: Sequence[float | None], step: int = 0) -> list[BillableAttempt]:
    """Return one successful provider request per cost (tokens 100 and 10, plus `step` each)."""
    return [BillableAttempt(f"a{j}", "fake", "m", f"req{j}", 100 + step * j, 10 + step * j, 0, c,
                            0.01, "ok") for j, c in enumerate(costs)]


def submission(run_log: str = "") -> dict[str, str]:
    """Return a comtrade-shaped submission with no data rows."""
    return {"data_jsonl": "", "metadata_json": "{}", "run_log": run_log}


def episode(k: EpisodeKey, kind: str = "submitted", *, events: Sequence[Event] = (),
            sub: dict[str, str] | None = None, detail: str = "",
            usage: Usage | None = None, digests: dict[str, str] | None = None,
            meta: dict[str, Any] | None = None) -> Episode:
    """Return an episode of key k ending with `kind` (who, task, seed, ... read from the key)."""
    return Episode(k, k.target, k.task, k.seed, k.condition, k.level, list(events), sub,
                   Termination(kind, detail), usage or Usage(),  # type: ignore[arg-type]
                   digests=dict(digests or {}), meta=dict(meta or {}))


def assessment(scorer: str, status: str, score: float | None, *, version: str = "1.0.0",
               evidence: str = EVIDENCE, reasons: tuple[str, ...] = (),
               detail: dict[str, Any] | None = None) -> Assessment:
    """Return one scorer's assessment."""
    return Assessment(scorer, version, status, score, dict(detail or {}),  # type: ignore[arg-type]
                      reasons, evidence)


def make_episode(k: EpisodeKey, kind: str = "submitted", costs: tuple[float | None, ...] = (),
                 text: str = "ok", version: str = "1.0.0") -> tuple[Episode, list[Assessment]]:
    """Return an episode of key k ending with `kind`, one billable attempt per cost, and its
    two assessments (ground_truth_f1 at `version` PASS, shape_judge PARTIAL)."""
    ep = episode(k, kind, events=[Event(0, "agent", "message", "note", {}, text, 0.0)],
                 sub=submission(text) if kind == "submitted" else None, detail=text,
                 usage=Usage(1, 1, attempts(costs)))
    return ep, [assessment("ground_truth_f1", "PASS", 1.0, version=version),
                assessment("shape_judge", "PARTIAL", 50.0)]


def register(st: EvidenceStore, n: int, campaign: str = "c1", plan: str = "p" * 64) -> str:
    """Register a campaign of n administrations and return its registration id."""
    keys = [episode_key(i, campaign) for i in range(n)]
    return st.register_campaign(campaign, plan, {"name": campaign}, bindings(keys))


def open_store(root: Path) -> EvidenceStore:
    """Open (or create) a store that does not scrub this machine's environment."""
    return EvidenceStore.open(root, scrub_env=False)


def record_into(root: Path, campaign: str | CampaignConfig, **options: Any) -> RunResult:
    """Run a campaign (TOML text or a parsed config) into the store at `root`, in-process;
    nothing of it may be left to run."""
    config = parse_campaign(campaign) if isinstance(campaign, str) else campaign
    with open_store(root) as st:
        result = run_campaign(config, st, **options)
    assert result.status.to_json()["total"]["remaining"] == 0
    return result


def record_campaign(root: Path, toml: str, store: str = "store") -> Path:
    """Write `toml` as root/c.toml, run `agm campaign run` on it (in-process) into root/STORE;
    return that."""
    (root / "c.toml").write_text(toml)
    res = CliRunner().invoke(app, ["campaign", "run", str(root / "c.toml"), "--store",
                                   str(root / store), "--quiet"])
    assert res.exit_code == 0, res.output
    return root / store
