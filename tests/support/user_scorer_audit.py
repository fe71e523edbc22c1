"""Audit an environment with a user's scorer written from source (the `--scorer` path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.audit.env_audit import audit_env
from agentmetrology.audit.scorer_override import load_scorer
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env


def audit_with_scorer(tmp_path: Path, env: str, body: str, seeds: int) -> dict[str, Any]:
    """Return audit.json of `env` on `seeds` seeds with `def score(...)` `body` as --scorer."""
    path = tmp_path / "user_scorer.py"
    path.write_text("def score(task_id, seed, submission):\n" + body)
    with load_scorer(f"{path}:score") as scorer:
        return audit_env(EnvTarget(get_env(env), seeds=seeds, scorer=scorer,
                                   scorer_label=scorer.label))
