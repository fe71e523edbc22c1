"""The Ray backend on one local Ray instance: model-free tasks give the same bytes as inline; LLM
campaigns on Ray actors the same evidence as inline; a killed actor or a `kill -9` driver loses
nothing and duplicates nothing; keys never reach Ray's logs."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import ray

from agentmetrology.run.campaign import parse_campaign, ray_llm, run_campaign
from agentmetrology.run.campaign.execute import Progress
from agentmetrology.run.campaign.ray_cluster import BackendError, RayOptions
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import verify_store
from run.campaign.campaign_fixtures import (
    episode_digests,
    files_containing,
    kill_9_when,
    model_free,
    query,
    with_llm,
    write,
)
from run.campaign.ray_fixtures import (
    KEY,
    KEY_ENV,
    episodes,
    files_with,
    ledger_invariants,
    llm_campaign,
    ray_instance,
    scores,
)
from support.agm_runs import AGM
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply

__all__ = ["ray_instance"]  # the module-scoped fixture, used by name

PLANNED = 24  # 2 tasks x 6 seeds x 2 levels


def _slow(body: dict[str, Any]) -> Reply:
    return {**careful_model(body), "delay": 0.01}  # long enough a run to kill something in it


def test_ray_backend_matches_inline(ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    config = parse_campaign(model_free(tasks='["T3_duplicates"]'))
    with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
        run_campaign(config, st)
    with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
        result = run_campaign(config, st, backend="ray")
    assert result.status.complete and result.recorded == 12
    assert episode_digests(tmp_path / "ray") == episode_digests(tmp_path / "inline")


def test_model_free_tasks_and_llm_actors_in_one_ray_run(ray_instance: tuple[str, Path],
                                                        tmp_path: Path) -> None:
    text = model_free(name="mixed", tasks='["T3_duplicates"]', seeds="0-2")
    with FakeOpenAI(itertools.repeat(careful_model, 2000)) as srv:
        config = parse_campaign(with_llm(text, base_url=srv.base_url, key_env=KEY_ENV,
                                         concurrency=3))
        with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
            result = run_campaign(config, st, backend="ray", ray=RayOptions(actors=1))
        with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
            run_campaign(config, st)
    # 4 targets x 3 seeds x 2 levels; the LLM ones through one actor running 3 at once.
    assert result.status.complete and result.recorded == 24 and result.failed_attempts == 0
    assert result.status.targets["fake-llm"].submitted == 6
    ray_digests, inline_digests = episode_digests(tmp_path / "ray"), episode_digests(tmp_path /
                                                                                     "inline")
    model_free_keys = [k for k in inline_digests if k[1] != "fake-llm"]
    assert len(model_free_keys) == 18
    assert all(ray_digests[k] == inline_digests[k] for k in model_free_keys)
    counts = ledger_invariants(tmp_path / "ray")
    assert counts["billable"] == counts["billable_distinct"] == counts["recorded_requests"] \
        == counts["episode_requests"] > 6
    assert query(tmp_path / "ray", "SELECT COUNT(*) FROM billable_attempts b JOIN attempts t "
                                   "ON t.id = b.attempt WHERE t.backend != 'ray'") == [(0,)]
    # The store Ray recorded (model-free and LLM episodes) passes its own full verification.
    check = verify_store(tmp_path / "ray")
    assert check.qualified, [p.text() for p in check.problems]


def test_llm_campaign_on_ray_records_what_inline_records(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    _, ray_temp = ray_instance
    with FakeOpenAI(itertools.repeat(careful_model, 5000)) as srv:
        config = parse_campaign(llm_campaign(srv.base_url))
        with EvidenceStore.open(tmp_path / "inline", scrub_env=False) as st:
            inline = run_campaign(config, st)
        with EvidenceStore.open(tmp_path / "ray", scrub_env=False) as st:
            on_ray = run_campaign(config, st, backend="ray",
                                  ray=RayOptions(actors=2, concurrency=3))
    assert inline.status.complete and on_ray.status.complete
    assert on_ray.recorded == inline.recorded == PLANNED and on_ray.failed_attempts == 0
    # The same episodes, event by event (what the clock and the server's counter put in them
    # aside), the same scores, requests, tokens and cost.
    assert episodes(tmp_path / "ray") == episodes(tmp_path / "inline")
    assert scores(tmp_path / "ray") == scores(tmp_path / "inline")
    assert len(scores(tmp_path / "ray")) == 2 * PLANNED
    ray_counts = ledger_invariants(tmp_path / "ray")
    assert ray_counts == ledger_invariants(tmp_path / "inline")
    assert ray_counts["episodes"] == ray_counts["keys_with_episode"] == PLANNED
    # Every request of every episode was streamed to the driver and written once.
    assert ray_counts["billable"] == ray_counts["billable_distinct"] \
        == ray_counts["recorded_requests"] == ray_counts["episode_requests"] > PLANNED
    assert on_ray.status.total.cost == pytest.approx(inline.status.total.cost)
    assert query(tmp_path / "ray", "SELECT DISTINCT backend FROM attempts") == [("ray",)]
    # Recording order (as episodes finished on the actors) touches neither the plan digest nor
    # the idempotency keys: the same (key, ordinal, digests) rows as inline, one episode each
    # (the binding's registration id is per store).
    plan = "SELECT plan_digest, config_digest, planned FROM campaigns"
    adms = ("SELECT a.target, a.task, a.seed, a.condition, a.level, a.repeat, a.ordinal, "
            "a.task_spec_digest, a.target_config_digest, a.scorer_versions FROM administrations "
            "a JOIN episodes e ON e.administration = a.id ORDER BY a.ordinal")
    for sql in (plan, adms):
        assert query(tmp_path / "ray", sql) == query(tmp_path / "inline", sql)
    assert len(query(tmp_path / "ray", adms)) == PLANNED
    # The key reached the server, never the store, nor anything Ray wrote (logs, session).
    assert srv.headers[-1]["authorization"] == f"Bearer {KEY}"
    assert not files_containing(tmp_path / "ray", KEY.encode())
    assert not files_with(ray_temp, KEY.encode())


ACTOR_DIED = ("SELECT COUNT(*) FROM attempts WHERE status = 'failed' AND detail "
              "LIKE '%Ray actor running this episode died%'")


class _Gate:
    """Holds every reply while shut, counting the held requests that follow an answered one."""

    def __init__(self) -> None:
        self._cond, self._open, self.held_followups = threading.Condition(), True, 0

    def reply(self, body: dict[str, Any]) -> Reply:
        followup = any(m.get("role") == "assistant" for m in body.get("messages", []))
        with self._cond:
            # While open, wait_for returns at once under the lock: the count only ever shows
            # requests that are really held.
            self.held_followups += followup
            self._cond.wait_for(lambda: self._open, timeout=120)
            self.held_followups -= followup
        return _slow(body)

    def shut(self) -> None:
        with self._cond:
            self._open = False

    def open(self) -> None:
        with self._cond:
            self._open = True
            self._cond.notify_all()

    def holds(self, followups: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.held_followups >= followups, timeout)


def test_a_killed_actor_loses_nothing_and_the_resume_duplicates_nothing(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    killed: list[threading.Thread] = []
    store, gate = tmp_path / "s", _Gate()

    def kill_while_held() -> None:
        # Shut the gate until 4 episodes wait on a request that follows an answered one: each
        # actor runs at most 3 at once, so one of the 4 is actor 0's, and its answered request
        # reached the driver before it sent the next (the stream's backpressure). With every reply
        # held, none of actor 0's episodes can end before the kill; the gate opens once the
        # driver has recorded the dead actor's failed attempts. (Polling the ledger for answered
        # episodes in flight raced: one could end between the look and the kill.)
        actor, deadline = ray.get_actor("agm-llm-0.0"), time.monotonic() + 60
        while time.monotonic() < deadline:
            gate.shut()
            if gate.holds(4, timeout=1.0):
                break
            gate.open()
            time.sleep(0.02)
        ray.kill(actor, no_restart=True)
        while time.monotonic() < deadline + 60 and not query(store, ACTOR_DIED)[0][0]:
            time.sleep(0.01)
        gate.open()

    def kill_one(p: Progress) -> None:
        if p.done >= 4 and not killed:
            killed.append(threading.Thread(target=kill_while_held, daemon=True))
            killed[0].start()

    with FakeOpenAI(itertools.repeat(gate.reply, 5000)) as srv:
        config = parse_campaign(llm_campaign(srv.base_url, name="killed-actor"))
        with EvidenceStore.open(store, scrub_env=False) as st:
            first = run_campaign(config, st, backend="ray", progress=kill_one,
                                 ray=RayOptions(actors=2, concurrency=3))
        assert killed
        # The killed actor's episodes ended as failed attempts; the run went on with a
        # replacement actor and recorded every other administration.
        lost = query(store, ACTOR_DIED)[0][0]
        assert 1 <= lost <= 3 and first.failed_attempts == lost
        assert first.recorded == PLANNED - lost and first.stop_reason is None
        assert not first.status.complete
        # What the dead actor's episodes had been answered is in the ledger, once.
        mid = ledger_invariants(store)
        assert mid["billable"] == mid["billable_distinct"]
        assert mid["billable"] - mid["recorded_requests"] >= 1  # answered before the kill
        assert len(srv.requests) - mid["billable"] <= lost  # at most one in flight each
        with EvidenceStore.open(store, scrub_env=False) as st:
            resumed = run_campaign(config, st, backend="ray", ray=RayOptions(actors=2))
    assert resumed.status.complete and resumed.recorded == lost and resumed.duplicates == 0
    after = ledger_invariants(store)
    assert after["episodes"] == after["keys_with_episode"] == PLANNED and after["started"] == 0
    assert after["billable"] == after["billable_distinct"]
    # The lost attempts' requests are kept beside the recorded ones, counted once.
    assert after["billable"] - after["recorded_requests"] == mid["billable"] \
        - mid["recorded_requests"]


def test_an_actor_dying_past_its_replacements_stops_llm_launches_cleanly(
        ray_instance: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_llm, "REPLACEMENTS", 0)  # the first death breaks the pool
    killed: list[bool] = []

    def kill_one(p: Progress) -> None:
        if p.done >= 2 and not killed:
            ray.kill(ray.get_actor("agm-llm-0.0"), no_restart=True)
            killed.append(True)

    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(_slow, 5000)) as srv:
        config = parse_campaign(llm_campaign(srv.base_url, name="broken-pool"))
        with EvidenceStore.open(store, scrub_env=False) as st:
            result = run_campaign(config, st, backend="ray", progress=kill_one,
                                  ray=RayOptions(actors=2, concurrency=2))
    reason = "Ray actor slot 0 lost 1 actor(s) in this run; rerun the same command to resume"
    assert killed and result.stop_reason == reason
    assert result.not_launched > 0 and not result.status.complete
    assert result.status.not_launched_reasons == {reason: result.not_launched}
    counts = ledger_invariants(store)
    assert counts["started"] == 0 and counts["episodes"] == result.recorded
    assert result.recorded + result.failed_attempts + result.not_launched == PLANNED


def _cli(file: Path, store: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd", "run", str(file),
            "--store", str(store), "--quiet", "--backend", "ray", *extra]


def test_kill_9_of_the_driver_then_the_same_command_completes_exactly_once(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    address, _ = ray_instance
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(_slow, 5000)) as srv:
        file = write(tmp_path, llm_campaign(srv.base_url, name="killed-driver"))
        # The driver attaches to the module's instance (--ray-address): its actors die with it.
        cmd = _cli(file, store, "--ray-address", address, "--ray-actors", "2",
                   "--ray-concurrency", "2")
        kill_9_when(cmd, lambda: _recorded(store) >= 5)
        time.sleep(0.3)  # the actors die with their driver; the server answers what it had
        killed = ledger_invariants(store)
        running = killed["started"]
        assert killed["episodes"] < PLANNED and 1 <= running <= 4
        assert killed["billable"] == killed["billable_distinct"]
        # One unrecorded request per running episode (in flight), or two where the driver had
        # received an answered one but not yet written it when it died: released, the actor
        # sends its next request before its watchdog (5 ms) sees the driver gone. Seen once in
        # a fresh-clone CI run: 37 served, 32 billed, 4 running.
        assert len(srv.requests) - killed["billable"] <= 2 * running
        rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        served = len(srv.requests)
    after = ledger_invariants(store)
    assert after["episodes"] == after["keys_with_episode"] == PLANNED and after["started"] == 0
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'interrupted'") \
        == [(running,)]
    # Every request the server answered is billed at most once; the killed attempts' ones stay.
    assert after["billable"] == after["billable_distinct"]
    assert served - after["billable"] <= 2 * running  # as above
    assert after["billable"] - after["recorded_requests"] == killed["billable"] \
        - killed["recorded_requests"]


def _recorded(store: Path) -> int:
    try:
        return int(query(store, "SELECT COUNT(*) FROM episodes")[0][0])
    except Exception:  # the ledger is not created yet
        return 0


@pytest.mark.parametrize(("address", "message"), [
    ("127.0.0.1:1", "error: cannot connect to the Ray cluster at 127.0.0.1:1"),
    ("not an address", "error: --ray-address 'not an address' is not a Ray address"),
])
def test_a_bad_ray_address_is_refused_with_one_line_and_nothing_on_disk(
        tmp_path: Path, address: str, message: str) -> None:
    file = write(tmp_path, llm_campaign("http://127.0.0.1:9/v1"))
    env = {**os.environ, "AGM_RAY_TEST_KEY": KEY}
    # `agm` itself: its one handler prints the BackendError (a UserError) as one line.
    cmd = [*AGM, "campaign", *_cli(file, tmp_path / "s", "--ray-address", address)[3:]]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(message) and res.stderr.count("\n") == 1, res.stderr
    assert not (tmp_path / "s").exists()


def test_ray_flags_need_the_ray_backend(tmp_path: Path) -> None:
    file = write(tmp_path, llm_campaign("http://127.0.0.1:9/v1"))
    cmd = _cli(file, tmp_path / "s", "--ray-actors", "2")
    cmd[cmd.index("ray")] = "inline"
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "AGM_RAY_TEST_KEY": KEY})
    assert res.returncode == 2
    assert res.stderr == "error: --ray-address, --ray-actors and --ray-concurrency need " \
                         "--backend ray\n"
    assert not (tmp_path / "s").exists()


def test_ctrl_c_on_a_local_instance_ends_cleanly_with_attempts_interrupted(
        ray_instance: tuple[str, Path], tmp_path: Path) -> None:
    # The default: the run starts its own local instance, whose processes share the
    # terminal's process group and get the Ctrl-C too.
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(_slow, 5000)) as srv:
        file = write(tmp_path, llm_campaign(srv.base_url, name="ctrl-c"))
        proc = subprocess.Popen(_cli(file, store), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None and _recorded(store) < 3:
                time.sleep(0.02)
            assert proc.poll() is None
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 130
        assert err.splitlines()[-1] == (
            "error: interrupted: the episodes recorded so far are kept and are not run again "
            "(attempts in flight are recorded as interrupted); to resume, run the same command: "
            f"agm campaign run {file} --store {store} --backend ray --quiet")
        assert "Traceback" not in err
    # The attempts in flight ended interrupted (none left started), each answered request once;
    # resuming from here is what the kill -9 test checks.
    stopped = ledger_invariants(store)
    assert stopped["started"] == 0 and 3 <= stopped["episodes"] < PLANNED
    assert query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'interrupted'")[0][0] >= 1
    assert stopped["billable"] == stopped["billable_distinct"]


def test_workers_without_the_key_variable_refuse_the_run_before_the_store_changes(
        ray_instance: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Set in the driver only, after the instance started: its workers never had it (as on a
    # cluster whose nodes were started without it). Ray is never handed a key.
    monkeypatch.setenv("AGM_RAY_LATE_KEY", KEY)
    text = llm_campaign("http://127.0.0.1:9/v1").replace('"AGM_RAY_TEST_KEY"',
                                                           '"AGM_RAY_LATE_KEY"')
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st, \
            pytest.raises(BackendError) as err:
        run_campaign(parse_campaign(text), st, backend="ray", ray=RayOptions(actors=1))
    assert str(err.value) == ("the Ray workers do not have AGM_RAY_LATE_KEY in their "
                              "environment: export it where the Ray nodes were started (keys "
                              "are never sent through Ray)")
    assert query(tmp_path / "s", "SELECT (SELECT COUNT(*) FROM campaigns), (SELECT COUNT(*) "
                                 "FROM runs), (SELECT COUNT(*) FROM attempts)") == [(0, 0, 0)]
