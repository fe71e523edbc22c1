"""Campaigns honest under faults: a refusing endpoint, unknown prices, bad directories, markup."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from typer.testing import CliRunner

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.records import BillableAttempt, EpisodeKey
from agentmetrology.records.clock import Clock
from agentmetrology.records.errors import InfraError
from agentmetrology.records.policy import Move
from agentmetrology.records.tools import Observation
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.execute import INFRA_STOP_AFTER, Budget, Progress
from agentmetrology.run.campaign.spec import Limits
from agentmetrology.store import Counts, EpisodeEvidence, EvidenceStore
from run.campaign.campaign_fixtures import AsyncScripted, model_free, write
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

runner = CliRunner()

LLM_ONLY = """
[campaign]
name = "{name}"
tasks = ["T1_single_page"]
seeds = "0-9"
levels = ["L2"]
concurrency = 1

[limits]
max_steps = 30
max_cost = 5

[[targets]]
name = "m"
kind = "llm"
model = "fake-model"
base_url = "{base_url}"
max_retries = 0
{price}
"""
PRICE = "price = { input_per_m = 1.0, output_per_m = 2.0, cached_per_m = 0.5 }"


def llm_only(base_url: str, *, name: str = "llm", price: str = PRICE) -> str:
    """Return a campaign of ten L2 episodes of one llm target at `base_url`."""
    return LLM_ONLY.format(name=name, base_url=base_url, price=price)


def test_a_refusing_endpoint_stops_the_run_with_that_reason(tmp_path: Path,
                                                            refusing_port: int) -> None:
    file = write(tmp_path, llm_only(f"http://127.0.0.1:{refusing_port}/v1"))
    store = tmp_path / "s"
    res = runner.invoke(campaign_app, ["run", str(file), "--store", str(store)])
    reason = (f"target m: connection refused by 127.0.0.1:{refusing_port} (3 LLM episodes in a "
              "row failed this way and none succeeded; fix it and run again to resume)")
    assert res.exit_code == 1, res.output
    assert [line for line in res.stderr.splitlines() if "stopped launching" in line] == \
        [f"stopped launching: {reason}"]
    assert "cannot be checked" not in res.output and "Traceback" not in res.output
    assert "failed 0 agent / 3 infra" in res.stderr  # the progress bar counts them
    assert f"not launched (7): {reason}" in res.stdout
    doc = json.loads(runner.invoke(campaign_app, ["status", "--store", str(store),
                                                  "--json"]).stdout)["campaigns"][0]
    total = doc["total"]
    # Refused connections reached no provider: a known cost of 0, not an unknown one.
    assert (total["cost"], total["cost_unknown"], total["failed_infrastructure"]) == (0.0, 0, 3)
    assert doc["not_launched_reasons"] == {reason: 7}
    again = runner.invoke(campaign_app, ["run", str(file), "--store", str(store), "--quiet"])
    assert again.exit_code == 1  # resumes the ones not launched, and stops again
    assert "3 recorded this run (3 launched" in again.stdout
    assert f"not launched (4): {reason}" in again.stdout


def test_a_complete_campaign_that_measured_nothing_of_a_target_exits_1(
        tmp_path: Path, refusing_port: int) -> None:
    # Two episodes: fewer than INFRA_STOP_AFTER, so both run and the campaign completes with
    # nothing measured of its only target. Complete is not success: exit 1, with the reason.
    text = llm_only(f"http://127.0.0.1:{refusing_port}/v1").replace('"0-9"', '"0-1"')
    file = write(tmp_path, text)
    store = tmp_path / "s"
    refused = f"connection refused by 127.0.0.1:{refusing_port}"
    for run in ("first", "resumed"):  # resuming records nothing new and still says so
        res = runner.invoke(campaign_app, ["run", str(file), "--store", str(store), "--quiet"])
        assert res.exit_code == 1, (run, res.output)
        assert "llm (complete): planned 2, done 2, failed 0 agent / 2 infrastructure" \
            in res.stdout.replace("\n", " ")
        notice = [line for line in res.stderr.splitlines() if "could be measured" in line]
        assert len(notice) == 1 and notice[0].startswith(
            "error: target m: none of its 2 recorded episode(s) could be measured "
            f"(measurement failures: 2 episodes: {refused}")
        assert notice[0].endswith("; fix the cause and run again with "
                                  "--retry-measurement-failures")
        assert "Traceback" not in res.output


def test_a_target_with_one_measured_episode_is_not_flagged(tmp_path: Path) -> None:
    _Down.succeed, _Down.made = {1}, itertools.count()
    text = llm_only("http://127.0.0.1:9/v1", name="one").replace('"0-9"', '"0-1"')
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        result = run_campaign(parse_campaign(text), st, policy_factory=_Down)
        assert result.status.complete and result.status.targets["m"].failed_infra == 1
        assert result.unmeasured == {}  # one of two measured: the target has numbers
        _Down.succeed, _Down.made = set(), itertools.count()
        none = run_campaign(parse_campaign(text.replace('"one"', '"none"')), st,
                            policy_factory=_Down)
        assert none.unmeasured == {"m": [("HTTP 503 from the endpoint", 2)]}


class _Down(AsyncScripted):
    """Bills a request, then fails like an endpoint that is down (unless told to succeed)."""

    succeed: ClassVar[set[int]] = set()
    made: ClassVar[Iterator[int]] = itertools.count()

    def __init__(self, target: LLMTarget, clock: Clock) -> None:
        super().__init__(target, clock)
        self.n = next(_Down.made)

    async def act(self, observation: Observation | None) -> Move:
        """Fail every episode except the chosen ones."""
        if self.n in _Down.succeed:
            return await super().act(observation)
        self._bill()
        raise InfraError("HTTP 503 from the endpoint")


class _EchoesKey(_Down):
    """Fails as a provider does that quotes the key it refused."""

    async def act(self, observation: Observation | None) -> Move:
        """Fail every episode with an error that echoes a credential."""
        self._bill()
        raise InfraError(f"HTTP 401: Incorrect API key provided: {ECHOED}")


ECHOED = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"


def test_a_stop_reason_that_quotes_a_key_is_redacted(tmp_path: Path) -> None:
    # The reason is printed on stderr ('stopped launching: ...') from memory, not from the
    # ledger (redacted there): it printed the key as the provider echoed it.
    config = parse_campaign(llm_only("http://127.0.0.1:9/v1", name="echo"))
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        result = run_campaign(config, st, policy_factory=_EchoesKey)
    assert result.stop_reason == ("target m: HTTP 401: Incorrect API key provided: [redacted] "
                                  "(3 LLM episodes in a row failed this way and none "
                                  "succeeded; fix it and run again to resume)")


def _run_down(tmp_path: Path, succeed: set[int]) -> tuple[int, str | None, list[Progress]]:
    _Down.succeed, _Down.made = succeed, itertools.count()
    config = parse_campaign(llm_only("http://127.0.0.1:9/v1", name=f"down{len(succeed)}"))
    snaps: list[Progress] = []
    with EvidenceStore.open(tmp_path / f"s{len(succeed)}", scrub_env=False) as st:
        result = run_campaign(config, st, policy_factory=_Down, progress=snaps.append)
    return result.launched, result.stop_reason, snaps


def test_identical_infra_failures_stop_after_k_without_a_success(tmp_path: Path) -> None:
    launched, reason, snaps = _run_down(tmp_path, set())
    assert INFRA_STOP_AFTER == 3 and launched == 3
    assert reason is not None and reason.startswith("target m: HTTP 503 from the endpoint (3 ")
    # the snapshots between episodes (each launch has one too, with `running 1`)
    assert [p.failed_infra for p in snaps if p.running == 0] == [0, 1, 2, 3]


def test_one_success_means_the_endpoint_works_and_the_run_goes_on(tmp_path: Path) -> None:
    launched, reason, snaps = _run_down(tmp_path, {0})
    assert (launched, reason) == (10, None)
    assert (snaps[-1].failed_agent, snaps[-1].failed_infra) == (0, 9)


def test_the_budget_counts_requests_as_they_arrive_and_episodes_once() -> None:
    budget = Budget(Limits(max_cost=1.0), Counts(cost=0.25, input_tokens=10))
    request = BillableAttempt("r1", "p", "m", None, 100, 10, 0, 0.5, 0.1, "ok")
    budget.bill(7, request)
    assert (budget.cost, budget.tokens) == (0.75, 120) and budget.exceeded() is None
    budget.bill(7, BillableAttempt("r2", "p", "m", None, None, None, None, None, 0.1, "timeout"))
    assert budget.cost_unknown == 1 and "cannot be checked" in (budget.exceeded() or "")
    ev = EpisodeEvidence(EpisodeKey("c", "m", "T", 0, "clean", "L2", 0), b"{}", None,
                         "submitted", "", 0.5, 100, 10, 2, 1, 1)
    budget.add(7, ev)  # the recorded episode replaces what its requests added
    assert (budget.cost, budget.cost_unknown, budget.tokens) == (0.75, 0, 120)
    budget.bill(8, request)
    # six decimals, as every cost prints (before: "spent 1.25", and "spent 5e-05" beside
    # tables printing "0.000050")
    assert budget.exceeded() == "budget: max_cost 1 reached (spent 1.250000)"


def test_unknown_cost_prints_as_unknown_with_one_notice(tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        text = llm_only(srv.base_url, price="").replace('seeds = "0-9"', 'seeds = "0-1"')
        file = write(tmp_path, text.replace("max_cost = 5\n", ""))
        res = runner.invoke(campaign_app, ["run", str(file), "--store", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert "cost unknown (2 without a cost)" in res.stderr  # the progress bar
    assert "0.0000" not in res.output
    row = [line for line in res.stdout.splitlines() if line.strip().startswith("m ")]
    assert row and "unknown (2)" in row[0]
    assert "cost unknown (2 without a cost)" in res.stdout  # the campaign's line
    notices = [line for line in res.stderr.splitlines() if line.startswith("note:")]
    assert notices == ["note: target m: cost unknown for 2 episode(s) or unfinished "
                       "attempt(s): no complete price table (add price = { input_per_m = ..., "
                       "output_per_m = ... } to the target)"]
    assert "Warning" not in res.output
    doc = json.loads(runner.invoke(campaign_app, ["status", "--store", str(tmp_path / "s"),
                                                  "--json"]).stdout)["campaigns"][0]
    assert doc["targets"]["m"]["cost"] is None and doc["targets"]["m"]["cost_unknown"] == 2


def test_validation_messages_print_toml_brackets_literally(tmp_path: Path) -> None:
    text = model_free().split("[[targets]]")[0]  # no targets at all
    res = runner.invoke(campaign_app, ["validate", str(write(tmp_path, text))])
    assert res.exit_code == 2
    assert "targets: missing: add at least one [[targets]] table" in res.stderr
    run = runner.invoke(campaign_app, ["run", str(write(tmp_path, text)), "--store",
                                       str(tmp_path / "s")])
    assert "add at least one [[targets]] table" in run.stderr


def test_a_non_empty_directory_is_not_adopted_as_a_store(tmp_path: Path) -> None:
    out = tmp_path / "audit-out"
    out.mkdir()
    (out / "report.html").write_text("<html></html>", encoding="utf-8")
    file = write(tmp_path, model_free(seeds="0"))
    res = runner.invoke(campaign_app, ["run", str(file), "--store", str(out)])
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [
        f"error: cannot open the evidence store at {out}: {out} is not an evidence store (no "
        "ledger.sqlite) and is not empty; give a new or empty directory, or an existing store"]
    assert [p.name for p in out.iterdir()] == ["report.html"]


def test_the_unknown_cost_notice_names_cancelled_requests() -> None:
    # After Ctrl-C, the unknown costs are the requests the interrupted run cancelled: the note
    # named only timeouts, dropped connections and answers without usage. A server reporting
    # negative or huge counts was said to have reported none (llm47).
    from agentmetrology.agents.llm.target import Prices
    from agentmetrology.report.terminal.campaign_text import unknown_cost_notice

    note = unknown_cost_notice("m", 3, Prices(1.0, 2.0), "-")
    assert note == ("note: target m: cost unknown for 3 episode(s) or unfinished attempt(s): "
                    "the server reported no token counts for some requests (timeouts, dropped "
                    "connections, requests cancelled when a run was interrupted, or answers "
                    "without a usage block), or counts no bill can have (negative, past a billion, "
                    "or not integers), and they may have been billed")
