"""The library checks of user input raise UserErrors, so `agm`'s one handler prints them.

The commands no longer catch these and print them themselves: a check that raised a bare
ValueError (or an OSError or RuntimeError) again would end in a traceback, not one line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.run.campaign.ray_cluster import check_address
from agentmetrology.run.episode import canonical_condition, make_policy
from agentmetrology.run.export_write import format_for
from agentmetrology.run.seeds import parse_seeds
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import open_ledger_readonly
from support.comtrade_runs import COMTRADE


@pytest.mark.parametrize(("check", "message"), [
    (lambda _: parse_seeds("3,3"), "seed list '3,3' repeats seed(s) 3; list each seed once"),
    (lambda _: COMTRADE.check_task("T99"), "unknown task 'T99' of environment"),
    (lambda _: COMTRADE.check_profile("nope"), "unknown profile 'nope' of environment"),
    (lambda _: COMTRADE.ownership_of("L9"), "environment 'comtrade' has no level 'L9'"),
    (lambda _: canonical_condition(COMTRADE, "stress:dose=abc"),
     "bad condition 'stress:dose=abc': the dose must be a number in [0, 1]"),
    (lambda _: make_policy(COMTRADE, "nobody"), "unknown agent 'nobody' for environment"),
    (lambda _: format_for("xml", None), "unknown format 'xml'; use one of: jsonl, csv, parquet"),
    (lambda _: check_address("not an address"), "--ray-address 'not an address' is not a Ray"),
    (lambda tmp: EvidenceStore.open(tmp / "none", create=False), "no evidence store at "),
    (lambda tmp: open_ledger_readonly(tmp), "is not an evidence store (no ledger.sqlite)"),
])
def test_a_bad_input_is_a_user_error(tmp_path: Path, check: Callable[[Path], object],
                                     message: str) -> None:
    with pytest.raises(UserError) as err:
        check(tmp_path)
    assert message in str(err.value)
