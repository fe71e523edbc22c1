"""A program auditing with a user's scorer file gets the card `agm audit --scorer` writes.

The scorer's code identity was bound into the card by the CLI, after `audit_env` returned and
before `seal`: a library caller passing the same loaded scorer got a sealed card with no
`scorer_code`, whose digest covered no code at all. `audit_env` binds it now.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.scorer_override import load_scorer
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import digest, to_plain


def test_the_library_s_sealed_card_names_the_code_as_the_cli_s_does(tmp_path: Path) -> None:
    scorer = tmp_path / "mine.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1.0\n")
    with load_scorer(f"{scorer}:score", timeout=2.5) as user:
        doc = seal(audit_env(EnvTarget(get_env("permission"), seeds=1, scorer=user,
                                       scorer_label=user.label)))
    sha = hashlib.sha256(scorer.read_bytes()).hexdigest()
    card = to_plain(doc["card"])
    assert card["scorer_code"] == {"file": "mine.py", "function": "score", "sha256": sha,
                                   "timeout_s": 2.5}
    assert (doc["scorers"]["shipped"]["sha256"], doc["scorers"]["shipped"]["timeout_s"]) == (
        sha, 2.5)
    assert doc["digests"]["card"] == digest(card)  # sealed over the code's identity
    res = CliRunner().invoke(app, ["audit", "permission", "--seeds", "0-0", "--json",
                                   "--out", str(tmp_path / "o"), "--scorer", f"{scorer}:score",
                                   "--scorer-timeout", "2.5"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == card  # the same card, bound once, in audit_env


def test_without_a_scorer_file_the_card_names_no_code() -> None:
    doc = seal(audit_env(EnvTarget(get_env("permission"), seeds=1)))
    assert "scorer_code" not in doc["card"] and "sha256" not in doc["scorers"]["shipped"]
