"""Execution: resumable, exactly once per key, byte-identical across backends, within budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records.clock import Clock
from agentmetrology.run.campaign import execute, parse_campaign, plan_campaign, run_campaign
from agentmetrology.run.campaign import worker as worker_module
from agentmetrology.run.campaign.backends import BackendError
from agentmetrology.run.campaign.ray_cluster import RayOptions
from agentmetrology.store import CampaignMismatchError, DuplicateEpisodeError, EvidenceStore
from run.campaign.campaign_fixtures import (
    AsyncScripted,
    episode_digests,
    files_containing,
    model_free,
    query,
    with_llm,
)

KEY = "test-secret-value-0123456789-not-a-pattern"


def _open(path: Path) -> EvidenceStore:
    return EvidenceStore.open(path, scrub_env=False)


def test_inline_run_completes_and_rerun_is_a_no_op(tmp_path: Path) -> None:
    config = parse_campaign(model_free())
    with _open(tmp_path / "s") as st:
        first = run_campaign(config, st)
        assert first.status.complete and first.recorded == first.status.total.planned == 24
        again = run_campaign(config, st)
    assert (again.launched, again.recorded, again.recovered) == (0, 0, 0)
    assert query(tmp_path / "s", "SELECT COUNT(*) FROM attempts")[0][0] == 24
    assert query(tmp_path / "s", "SELECT COUNT(DISTINCT outcome) FROM runs")[0][0] == 1


def test_a_finished_campaign_resumed_on_ray_starts_no_cluster(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_campaign(model_free())
    with _open(tmp_path / "s") as st:
        assert run_campaign(config, st).status.complete
        # Nothing is left to run: Ray is never started (nor reached), the run is recorded.
        monkeypatch.setattr(execute, "connect", _no_ray)
        again = run_campaign(config, st, backend="ray", ray=RayOptions(address="127.0.0.1:1"))
        assert (again.launched, again.recorded, again.backend) == (0, 0, "ray")
        assert again.status.complete
        # An address that cannot be one is refused all the same.
        with pytest.raises(BackendError, match="'nowhere' is not a Ray address"):
            run_campaign(config, st, backend="ray", ray=RayOptions(address="nowhere"))
        # Something to re-measure (or to run) starts Ray before the store is written.
        with pytest.raises(AssertionError, match="Ray was started"):
            run_campaign(config, st, backend="ray", retry_measurement_failures=True)
    runs = query(tmp_path / "s", "SELECT backend, outcome FROM runs ORDER BY id")
    assert runs == [("inline", "finished"), ("ray", "finished")]


def _no_ray(options: RayOptions) -> bool:
    raise AssertionError("Ray was started")


def test_inline_and_process_backends_write_identical_blobs(tmp_path: Path) -> None:
    config = parse_campaign(model_free())
    with _open(tmp_path / "inline") as st:
        run_campaign(config, st, backend="inline")
    with _open(tmp_path / "process") as st:
        result = run_campaign(config, st, backend="process", workers=2)
        assert result.status.complete
    a, b = episode_digests(tmp_path / "inline"), episode_digests(tmp_path / "process")
    assert a == b and len(a) == 24
    some = next(iter(a.values()))
    path = Path(some[:2]) / some[2:]
    assert (tmp_path / "inline/blobs" / path).read_bytes() == \
        (tmp_path / "process/blobs" / path).read_bytes()


def test_resume_keeps_interrupted_attempts_and_records_each_key_once(tmp_path: Path) -> None:
    config = parse_campaign(model_free())
    plan = plan_campaign(config)
    with _open(tmp_path / "s") as st:
        st.register_campaign(config.name, plan.digest, config.to_json(), plan.bindings)
        crashed = st.pending(config.name)[:2]
        for adm in crashed:  # a run that died mid-attempt leaves them `started`
            st.start_attempt(adm, None, "process")
        result = run_campaign(config, st)
        assert result.recovered == 2 and result.status.complete
        for adm in crashed:
            assert [a["status"] for a in st.attempts(adm.key)] == ["interrupted", "finished"]
        assert result.status.total.interrupted_attempts == 2
    per_key = query(tmp_path / "s", "SELECT administration, COUNT(*) FROM episodes "
                                    "GROUP BY administration")
    assert len(per_key) == 24 and {n for _, n in per_key} == {1}


def test_execution_errors_are_infrastructure_failures_and_retried_next_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_campaign(model_free())
    real = worker_module.run_job

    def flaky(job):  # type: ignore[no-untyped-def]
        if job.key.target == "careful" and job.key.seed == 1:
            raise OSError(f"worker lost its disk (key {KEY})")
        return real(job)

    monkeypatch.setattr(worker_module, "run_job", flaky)
    with _open(tmp_path / "s") as st:
        st.add_secrets([KEY])
        first = run_campaign(config, st)
        t = first.status.total
        assert (first.failed_attempts, t.errored, t.failed_agent, t.remaining) == (4, 4, 0, 4)
        assert first.status.targets["careful"].errored == 4
        monkeypatch.setattr(worker_module, "run_job", real)
        second = run_campaign(config, st)
        assert second.status.complete and second.launched == 4
        assert second.status.total.failed_attempts == 4  # history is kept
    details = query(tmp_path / "s", "SELECT detail FROM attempts WHERE status='failed'")
    assert all("worker lost its disk" in d and KEY not in d for (d,) in details)


def test_same_name_with_another_plan_is_refused(tmp_path: Path) -> None:
    with _open(tmp_path / "s") as st:
        run_campaign(parse_campaign(model_free(seeds="0")), st)
        with pytest.raises(CampaignMismatchError, match="different plan"):
            run_campaign(parse_campaign(model_free(seeds="0-1")), st)


def test_recording_a_done_key_again_is_rejected(tmp_path: Path) -> None:
    config = parse_campaign(model_free(seeds="0"))
    with _open(tmp_path / "s") as st:
        run_campaign(config, st)
        key = plan_campaign(config).administrations[0].key
        adm = st.ledger.administration(key)
        assert adm is not None
        attempt = st.start_attempt(adm, None, "inline")
        ev = worker_module.run_job(worker_module.Job(attempt, key, "rule", "seeded", 30))
        with pytest.raises(DuplicateEpisodeError, match="recorded exactly once"):
            st.record(attempt, ev)


def _factory(leak: str | None = None, fail_seed: int | None = None):  # type: ignore[no-untyped-def]
    def make(target: LLMTarget, clock: Clock) -> AsyncScripted:
        return AsyncScripted(target, clock, leak=leak)

    return make


def test_llm_episodes_run_concurrently_with_costs_and_no_key_in_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    # No faulting tasks here: an LLM episode's L0 backoff waits on a real clock.
    tasks = '["T3_duplicates", "T6_page_drift"]'
    config = parse_campaign(with_llm(model_free(tasks=tasks), concurrency=3))
    with _open(tmp_path / "s") as st:
        result = run_campaign(config, st, policy_factory=_factory(leak=f"id-{KEY}"))
    s = result.status
    assert s.complete and s.targets["fake-llm"].done == 8
    llm = s.targets["fake-llm"]
    assert llm.cost > 0 and llm.cost_unknown == 0 and llm.input_tokens > 0
    assert s.targets["rule"].cost == 0.0
    assert not files_containing(tmp_path / "s", KEY.encode())
    assert files_containing(tmp_path / "s", b"id-[redacted]")  # the leak was caught, not lost


def test_budget_stops_llm_launches_and_says_why(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    config = parse_campaign(with_llm(model_free(), concurrency=1, limits="max_cost = 0.001"))
    with _open(tmp_path / "s") as st:
        result = run_campaign(config, st, policy_factory=_factory())
        s = result.status
        assert result.stop_reason is not None and result.stop_reason.startswith(
            "budget: max_cost 0.001 reached")
        assert s.targets["fake-llm"].done == 1 and s.targets["fake-llm"].not_launched == 7
        assert s.targets["rule"].done == 8  # model-free episodes spend nothing and still run
        assert list(s.not_launched_reasons.values()) == [7]
        again = run_campaign(config, st, policy_factory=_factory())
        assert again.launched == 0 and again.status.total.not_launched == 7


def test_agent_errors_and_their_text_are_recorded_redacted(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    config = parse_campaign(with_llm(model_free(seeds="0")))

    def make(target: LLMTarget, clock: Clock) -> AsyncScripted:
        return AsyncScripted(target, clock, fail_with=f"provider said: bad key {KEY}")

    with _open(tmp_path / "s") as st:
        result = run_campaign(config, st, policy_factory=make)
    llm = result.status.targets["fake-llm"]
    assert llm.done == 4 and llm.failed_agent + llm.submitted == 4
    details = query(tmp_path / "s", "SELECT termination_detail FROM episodes "
                                    "WHERE termination = 'agent_error'")
    assert details and all("[redacted]" in d for (d,) in details)
    assert not files_containing(tmp_path / "s", KEY.encode())


def test_deadline_ends_episodes_on_the_episode_clock(tmp_path: Path) -> None:
    # The rule agent waits 3 s (fake clock) before re-fetching a 429: past a 1 s deadline.
    text = model_free(tasks='["T3_duplicates", "T4_rate_limit_429"]', seeds="0")
    config = parse_campaign(text.replace("max_steps = 30", "max_steps = 30\ndeadline_s = 1"))
    with _open(tmp_path / "s") as st:
        result = run_campaign(config, st)
        key = next(p.key for p in plan_campaign(config).administrations
                   if p.key.target == "rule" and p.key.task == "T4_rate_limit_429"
                   and p.key.level == "L2")
        episode = st.load_episode(key)
        fine = st.load_episode(key.__class__(*(key.campaign, "rule", "T3_duplicates", 0,
                                               "clean", "L2", 0)))
    assert episode["termination"]["kind"] == "deadline"
    assert episode["meta"]["deadline_reached"] is True
    assert fine["termination"]["kind"] == "submitted"
    assert result.status.targets["rule"].failed_agent >= 1


def test_progress_counts_every_llm_episode_in_flight(tmp_path: Path) -> None:
    # A launch was not reported until an episode ended, after the decrement: with two
    # episodes in flight most of the time, the bar said `running 1`.
    from run.campaign.test_campaign_faults import llm_only

    text = llm_only("http://127.0.0.1:9/v1").replace("concurrency = 1", "concurrency = 2")
    snaps: list[execute.Progress] = []
    with _open(tmp_path / "s") as st:
        run_campaign(parse_campaign(text), st, policy_factory=_factory(), progress=snaps.append)
    running = [s.running for s in snaps]
    assert max(running) == 2 and running[-1] == 0
    assert running[:3] == [0, 1, 2]  # the start, then each consumer's first launch
