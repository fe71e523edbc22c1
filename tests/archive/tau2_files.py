"""The shared tau2 results files (read in place) and small variants derived from them in tmp.

The three files live in ../shared/data/tau2 relative to the repository root (AGM_SHARED_DATA
names another data folder, for a checkout elsewhere); a test that needs one skips visibly when
it is absent. Variants are written to a test's tmp_path, never into the repository.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("AGM_SHARED_DATA") or (REPO / "../shared/data")).resolve() / "tau2"
GPT_AIRLINE = "gpt-4.1-airline-1trial.json"
GPT_TELECOM = "gpt-4.1-telecom-1trial.json"
QWEN_AIRLINE = "qwen2.5-7b-airline-1trial.json"
# airline tools that write nothing: a task whose gold actions are all among them and that
# requires no output leaves the database as a do-nothing agent does (the README's reading)
READS = frozenset({"get_user_details", "get_reservation_details", "search_direct_flight",
                   "search_onestop_flight", "list_all_airports", "calculate",
                   "transfer_to_human_agents", "get_flight_status"})


def writes_nothing_and_says_nothing(task: dict[str, Any]) -> bool:
    """Return True when a task's gold actions only read and it requires no output."""
    crit = task["evaluation_criteria"]
    return (all(a["name"] in READS for a in crit["actions"] or [])
            and not crit.get("communicate_info"))


def shared(name: str) -> Path:
    """Return the path of a shared tau2 file, or skip when the shared folder is absent."""
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"shared tau2 data not found at {path}")
    return path


def raw(name: str) -> dict[str, Any]:
    """Return a shared file's parsed JSON (plain json, for by-hand recomputations)."""
    data: dict[str, Any] = json.loads(shared(name).read_text(encoding="utf-8"))
    return data


def write(tmp: Path, name: str, data: Any) -> Path:
    """Write a variant as JSON under tmp and return its path."""
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def two_trials(name: str, num_trials: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return a copy of a shared file declaring `num_trials` whose simulations are repeated as
    trial 1, and the list of those trial-1 simulations (to edit before writing)."""
    data = copy.deepcopy(raw(name))
    data["info"]["num_trials"] = num_trials
    second = copy.deepcopy(data["simulations"])
    for s in second:  # a simulation of its own: its own id (a shared one is a load problem)
        s["trial"] = 1
        s["id"] = f"{s['id']}-trial-1"
    data["simulations"] += second
    return data, second


def stated_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the do-nothing evaluator by the README's reading of the task definitions (the
    real evaluator runs in test_tau2_do_nothing.py), with the memo off."""
    from agentmetrology.archive import tau2_donothing as dn

    def verdicts(domain: str, defs: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {t: {"passed": writes_nothing_and_says_nothing(d), "decided_by": "stated"}
                for t, d in defs.items()}

    monkeypatch.setenv(dn.MEMO_ENV, "")
    monkeypatch.setattr(dn, "run_evaluator", verdicts)
