"""Every kind picked by name resolves through its registry; an unknown name lists the known."""

from __future__ import annotations

import importlib.metadata
import json
import sys
import types
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentmetrology.agents.registry import (
    AGENT_FAMILIES,
    AGENT_PREFIX,
    UnknownAgentError,
    agent_family,
    make_agent,
)
from agentmetrology.archive.importers.detect import (
    FORMATS,
    detect_format,
    format_names,
    known_format,
    load_archive,
)
from agentmetrology.archive.importers.formats import ARCHIVE_FORMATS, ArchiveFormat, Claim
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.archive.model import Archive, ArchiveFormatError
from agentmetrology.audit.registry import AUDIT_TARGETS, NamedTarget
from agentmetrology.cli.lazy_commands import COMMANDS
from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env
from agentmetrology.mutations import MUTATIONS, UnknownMutationError, get_mutation
from agentmetrology.mutations.catalog import MUTATION_REGISTRY, Mutation
from agentmetrology.run.adhoc import run_request
from agentmetrology.run.request import make_request
from agentmetrology.runtime.registry import BadEntryPointError, UnknownNameError

COMTRADE = get_env("comtrade")


def _fake_points(monkeypatch: pytest.MonkeyPatch, group: str, **targets: object) -> None:
    """Install a fake distribution whose entry points in `group` lead to `targets`."""
    module = types.ModuleType("fake_plugin")
    for name, obj in targets.items():
        setattr(module, name, obj)
    monkeypatch.setitem(sys.modules, "fake_plugin", module)
    points = importlib.metadata.EntryPoints(
        importlib.metadata.EntryPoint(n, f"fake_plugin:{n}", group) for n in targets)
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda *, group: points.select(group=group))


def test_an_environment_agent_and_an_llm_agent_resolve_by_name() -> None:
    assert make_agent(COMTRADE, "rule").levels
    policy = make_agent(COMTRADE, "llm:qwen2.5:7b", base_url="http://127.0.0.1:9/v1")
    assert policy.target.model == "qwen2.5:7b"  # type: ignore[attr-defined]
    assert policy.target.name == "llm:qwen2.5:7b"  # type: ignore[attr-defined]
    assert AGENT_PREFIX == "llm:" and agent_family("llm:m") == "llm"
    assert agent_family("llm") is None and agent_family("rule") is None
    assert agent_family("scripted:careful") is None  # the environment's own name


def test_an_unknown_agent_lists_the_environment_s_and_the_families() -> None:
    with pytest.raises(UnknownAgentError) as info:
        make_agent(COMTRADE, "gpt")
    assert str(info.value) == ("unknown agent 'gpt' for environment 'comtrade'; known: "
                               f"{', '.join(COMTRADE.agents)} (and llm:MODEL)")
    with pytest.raises(ValueError, match="needs a model name"):
        make_agent(COMTRADE, "llm:")


def test_a_plugin_agent_family_is_found_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = COMTRADE.agents["rule"]
    _fake_points(monkeypatch, "agentmetrology.agents", echo=lambda arg: rule())
    monkeypatch.setattr(AGENT_FAMILIES, "_plugins", None)
    try:
        assert agent_family("echo:x") == "echo"
        assert make_agent(COMTRADE, "echo:anything").levels == rule().levels
        assert "echo:ARGUMENT" in AGENT_FAMILIES.names()
        request = make_request("comtrade", task="T1_single_page", agent="echo:x")
        rows = run_request(request).rows  # the row names the policy the family made
        assert not request.is_llm and [r["agent"] for r in rows] == ["rule"]
    finally:
        AGENT_FAMILIES.remove("echo")
        AGENT_FAMILIES.refresh()


def test_a_mutation_resolves_and_an_unknown_one_lists_the_catalog() -> None:
    assert get_mutation("alias") is MUTATIONS["alias"]
    with pytest.raises(UnknownMutationError) as info:
        get_mutation("nope")
    assert str(info.value) == f"unknown mutation 'nope'; known: {', '.join(MUTATIONS)}"


def test_a_plugin_mutation_must_be_a_mutation_of_its_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    extra = Mutation("tone", "1", "environment", "rewrite the task's tone", hook=True)
    _fake_points(monkeypatch, "agentmetrology.mutations", tone=extra, bad=extra)
    monkeypatch.setattr(MUTATION_REGISTRY, "_plugins", None)
    try:
        assert get_mutation("tone") is extra
        with pytest.raises(BadEntryPointError, match="not a Mutation of that name"):
            get_mutation("bad")
    finally:
        MUTATION_REGISTRY.remove("tone")
        MUTATION_REGISTRY.refresh()


def test_a_command_resolves_and_an_unknown_one_lists_the_commands() -> None:
    assert COMMANDS.get("audit").subcommands is not None
    with pytest.raises(UnknownNameError) as info:
        COMMANDS.get("nope")
    assert str(info.value).startswith("unknown command 'nope'; known: envs, tasks, truth, run")


def test_a_plugin_command_runs_and_is_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    def hello(who: str = typer.Option("world", "--who")) -> None:
        """Say hello."""
        print(f"hello {who}")

    _fake_points(monkeypatch, "agentmetrology.commands", hello=hello)
    monkeypatch.setattr(COMMANDS, "_plugins", None)
    try:
        res = CliRunner().invoke(app, ["hello", "--who", "you"])
        assert res.exit_code == 0 and res.stdout == "hello you\n"
        listing = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"})
        assert "hello" in listing.stdout.split("Commands:")[1].split()
    finally:
        COMMANDS.remove("hello")
        COMMANDS.refresh()


def test_audit_subcommands_resolve_to_their_own_app() -> None:
    res = CliRunner().invoke(app, ["audit", "census", "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0 and "agm audit census [OPTIONS]" in res.stdout
    res = CliRunner().invoke(app, ["audit", "--help"], env={"COLUMNS": "80"})
    assert res.exit_code == 0 and "agm audit [OPTIONS] {TARGET}" in res.stdout


def test_an_archive_format_resolves_and_an_unknown_one_lists_the_formats(
        tmp_path: Path) -> None:
    assert ARCHIVE_FORMATS.get("taubench").name == "taubench"
    assert FORMATS == ("auto", "agm", "taubench", "tau2", "inspect", "jsonl")
    with pytest.raises(UnknownNameError, match="unknown archive format 'xml'; known: agm, "
                                               "taubench, tau2, inspect, jsonl"):
        ARCHIVE_FORMATS.get("xml")
    with pytest.raises(ArchiveFormatError, match="unknown format 'xml'; choose one of auto, "
                                                 "agm, taubench, tau2, inspect, jsonl"):
        load_archive(tmp_path, "xml")


def test_a_plugin_archive_format_is_detected_and_chosen(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    def sniff(path: Path) -> Claim | None:
        return Claim("csv rows") if path.suffix == ".csv" else None

    def load(path: Path, data: object, max_member_bytes: int) -> Archive:
        loaded = load_jsonl(path.with_suffix(".jsonl"))
        loaded.notes["sniffed"] = data
        return loaded

    (tmp_path / "run.jsonl").write_text(json.dumps({
        "episode_id": "e1", "task": "t1", "model": "m", "score": 1.0}) + "\n")
    (tmp_path / "run.csv").write_text("episode_id,task\n")
    _fake_points(monkeypatch, "agentmetrology.archive_formats",
                 csvish=ArchiveFormat("csvish", sniff, load))
    monkeypatch.setattr(ARCHIVE_FORMATS, "_plugins", None)
    try:
        assert format_names()[-1] == "csvish" and detect_format(tmp_path / "run.csv") == "csvish"
        archive = load_archive(tmp_path / "run.csv")
        assert archive.notes["sniffed"] == "csv rows" and len(archive.episodes) == 1
        assert load_archive(tmp_path / "run.csv", "csvish").notes["sniffed"] is None
        assert known_format("csvish") and not known_format("csvy")
    finally:
        ARCHIVE_FORMATS.remove("csvish")
        ARCHIVE_FORMATS.refresh()


def test_a_built_in_format_is_known_without_reading_the_entry_points(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `agm archive audit S --format agm` read every installed package's entry points (and
    # imported importlib.metadata) before it could start its other processes.
    def refuse() -> dict[str, object]:
        raise AssertionError("entry points read")

    monkeypatch.setattr(ARCHIVE_FORMATS, "_plugin_points", refuse)
    assert all(known_format(f) for f in ("auto", "agm", "taubench", "tau2", "inspect", "jsonl"))


def test_an_audit_target_resolves_and_an_unknown_one_lists_the_targets() -> None:
    from agentmetrology.audit.targets.bfcl import bfcl_target
    from agentmetrology.inspect_ext.audit.census import _builtin_row

    assert AUDIT_TARGETS.get("bfcl") is bfcl_target and "comtrade" not in AUDIT_TARGETS
    with pytest.raises(UnknownNameError, match=r"^unknown audit target 'nope'; known: bfcl$"):
        AUDIT_TARGETS.get("nope")
    row = _builtin_row("nope", 1)
    assert row["status"] != "probed" and row["reason"] == (
        "no built-in target 'nope' (comtrade, researchops, permission, transaction, "
        "clarification, bfcl)")


def test_a_plugin_audit_target_is_audited_by_name(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    calls: list[dict[str, object]] = []

    def toy(**options: object) -> NamedTarget:
        calls.append(options)
        raise ValueError("toy target: nothing to audit")

    _fake_points(monkeypatch, "agentmetrology.audit_targets", toy=toy)
    monkeypatch.setattr(AUDIT_TARGETS, "_plugins", None)
    try:
        res = CliRunner().invoke(app, ["audit", "toy", "--limit", "3", "--out", str(tmp_path)])
        assert calls == [{"category": "simple_python", "limit": 3}]
        assert res.exit_code == 2 and "toy target: nothing to audit" in res.output
    finally:
        AUDIT_TARGETS.remove("toy")
        AUDIT_TARGETS.refresh()


def test_an_environment_resolves_and_a_bad_plugin_says_which_target(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmetrology.envs.registry import (
        ENV_REGISTRY,
        BadEnvironmentError,
        UnknownEnvironmentError,
        env_names,
    )

    assert get_env("comtrade") is COMTRADE and env_names()[:2] == ["comtrade", "researchops"]
    _fake_points(monkeypatch, "agentmetrology.environments", toy=42, other=lambda: COMTRADE)
    monkeypatch.setattr(ENV_REGISTRY, "_plugins", None)
    try:
        with pytest.raises(UnknownEnvironmentError, match=r"unknown environment 'nope'; known: "
                                                          r".*, other, toy \(run `agm envs`\)"):
            get_env("nope")
        with pytest.raises(BadEnvironmentError, match=r"environment 'toy' \(fake_plugin:toy\) "
                                                      "is a int, not an EnvSpec"):
            get_env("toy")
        with pytest.raises(BadEnvironmentError, match="leads to an environment named "
                                                      "'comtrade'; the names must match"):
            get_env("other")
    finally:
        ENV_REGISTRY.refresh()
