"""Names from elsewhere (targets, tasks, scorers, reasons) cannot forge a report's Markdown.

An audited scorer, task or target is named by its author, and an INVALID reason is the text of
the scorer's exception: a newline in one broke the table's row and a blank line ended the
paragraph, so what followed (a heading, an `<img>` tag, a forged row) was the report's own
Markdown; a backtick closed the code span around it. Each hostile name is fed through a real
report and the Markdown is read back with a CommonMark + GFM-table parser.
"""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.blocks import Doc, code, to_html, to_markdown
from agentmetrology.report.numberguard import NumberGuard

TASKS = Path(__file__).parents[1] / "inspect_ext" / "audit" / "tasks" / "toy_tasks.py"
# No digits: the number guard refuses a number audit.json does not hold.
HOSTILE = ("x|y `b` ``c`` <img src=x onerror=alert(y)> [go](http://evilhost)"
           "\n\n# injectedheading\n| injectedrow |")


def hostile(tag: str) -> str:
    """Return a distinct hostile name (the tag keeps table rows distinct)."""
    return f"{tag} {HOSTILE}"


def rename(value: Any, names: dict[str, str]) -> Any:
    """Return `value` with every string (value or key) equal to a key of `names` replaced."""
    if isinstance(value, dict):
        return {names.get(k, k): rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [rename(v, names) for v in value]
    if isinstance(value, str):
        return names.get(value, value)
    return value


def _walk(tokens: list[Token]) -> list[Token]:
    out = []
    for t in tokens:
        out.append(t)
        out += _walk(t.children or [])
    return out


def assert_safe_markdown(md: str, names: list[str]) -> None:
    """Every table keeps its columns; nothing of a hostile name is Markdown outside code."""
    lines = md.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| ") and i + 1 < len(lines) and set(lines[i + 1]) <= set("|- "):
            width = len(re.split(r"(?<!\\)\|", line))
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                assert len(re.split(r"(?<!\\)\|", lines[j])) == width, lines[j]
                j += 1
    tokens = _walk(MarkdownIt("commonmark").enable("table").parse(md))
    kinds = {t.type for t in tokens}
    assert not kinds & {"html_inline", "html_block", "image", "link_open", "softbreak",
                        "hardbreak"}, kinds
    assert not any(line.startswith(("# injected", "| injected")) for line in lines)
    prose = " ".join(t.content for t in tokens if t.type == "text")
    for word in ("img", "injected", "evilhost"):
        assert word not in prose, (word, prose)
    spans = {t.content for t in tokens if t.type == "code_inline"}
    for name in names:  # each name whole, line breaks shown as \n, in one code span
        assert name.replace("\n", "\\n") in spans, name


def assert_safe_html(html: str) -> None:
    assert "<img" not in html and "&lt;img src=x" in html
    assert "<a " not in html and "<h1>injected" not in html


def test_code_span_fence_is_longer_than_any_backtick_run_inside() -> None:
    assert code("plain_name") == "`plain_name`"
    assert code("a`b") == "``a`b``"
    assert code("a``b`c") == "```a``b`c```"
    assert code("`edge`") == "`` `edge` ``"
    assert code("") == "``"


def test_a_cell_is_one_line_with_its_pipes_escaped() -> None:
    d = Doc(NumberGuard({}))
    d.table(["name", "note"], [[code("a\nb|c"), "d\n\n# heading|e"]])
    md = to_markdown(d.blocks)
    assert "| `a\\nb\\|c` | d\\n\\n# heading\\|e |" in md
    d2 = Doc(NumberGuard({}))
    d2.p("ordinary `span` | text")
    assert to_markdown(d2.blocks) == "ordinary `span` | text\n"


@pytest.fixture(scope="module")
def env_doc() -> dict[str, Any]:
    return seal(audit_env(partial(EnvTarget, get_env("comtrade"))(seeds=1)))


def test_hostile_names_in_the_environment_audit(env_doc: dict[str, Any]) -> None:
    targets = env_doc["stages"]["reliability"]["targets"] if "targets" in env_doc["stages"][
        "reliability"] else [r["target"] for r in env_doc["stages"]["reliability"]["rows"]]
    tasks = env_doc["stages"]["reliability"]["tasks"]
    names = {t: hostile(f"target{chr(97 + i)}") for i, t in enumerate(targets)}
    names |= {t: hostile(f"task{chr(97 + i)}") for i, t in enumerate(tasks)}
    names[env_doc["stages"]["probes"]["shipped"]["scorer"]] = hostile("scorer")
    doc = rename(json.loads(json.dumps(env_doc)), names)
    doc["stages"]["probes"]["shipped"]["invalid_reasons"] = [
        {"reason": hostile("reason"), "cells": 1}]
    md, html = render_audit_report(doc)
    assert_safe_markdown(md, [*names.values(), hostile("reason")])
    assert_safe_html(html)


def test_an_ordinary_reason_stays_prose(env_doc: dict[str, Any]) -> None:
    doc = json.loads(json.dumps(env_doc))
    doc["stages"]["probes"]["shipped"]["invalid_reasons"] = [
        {"reason": "scorer raised ValueError: no_answer given", "cells": 1}]
    md, _ = render_audit_report(doc)
    assert "1 × scorer raised ValueError: no_answer given\n" in md


def test_hostile_names_in_the_inspect_audit() -> None:
    pytest.importorskip("inspect_ai", reason="needs the `inspect` extra (inspect-ai)")
    from agentmetrology.inspect_ext.audit.load import load_task
    from agentmetrology.inspect_ext.audit.target import audit_inspect
    from agentmetrology.report.inspect_report import render_inspect_report

    doc = json.loads(json.dumps(audit_inspect(load_task(f"{TASKS}@faulty_task"))))
    reason = doc["stages"]["probes"]["shipped"]["invalid_reasons"][0]["reason"]
    names = {s["scorer"]: hostile(f"scorer{chr(97 + i)}")
             for i, s in enumerate(doc["target"]["scorers"])}
    names |= {reason: hostile("reason"), doc["target"]["spec"]: hostile("spec")}
    doc = rename(doc, names)
    doc["target"]["samples_without_target_by_reason"] = {hostile("sample"): 1}
    md, html = render_inspect_report(doc)
    assert_safe_markdown(md, [*names.values(), hostile("sample")])
    assert_safe_html(html)


def test_html_reads_a_long_fence_as_one_code_span() -> None:
    d = Doc(NumberGuard({}))
    d.p("scorer " + code("a`b") + " and " + code("`edge`") + " and " + code(""))
    html = to_html(d.blocks, "t")
    assert "scorer <code>a`b</code> and <code>`edge`</code> and <code></code>" in html


def test_hostile_target_and_mutation_in_the_diagnose_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app
    from agentmetrology.report.diagnose_report import render_diagnose_report
    from support.stores import record_campaign

    record_campaign(tmp_path, """
[campaign]
name = "diag"
tasks = ["T2_multi_page", "T3_duplicates", "T4_rate_limit_429"]
seeds = "0-1"
levels = ["L2"]
mutations = ["alias", "repeat"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"
""")
    res = CliRunner().invoke(app, ["diagnose", str(tmp_path / "store"), "--out",
                                   str(tmp_path / "out")])
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "out" / "diagnose.json").read_text())
    # the target and a mutation as a store could name them, also inside the groups' keys
    # (environment|target|level|mutation), where the name's own `|` must not split a field
    target, mutation = hostile("target"), hostile("mutation")
    names = {"rule": target, "alias": mutation}
    keys = {k: "|".join(names.get(x, x) for x in k.split("|"))
            for part in ("readings", "groups") for k in doc[part]}
    md, html = render_diagnose_report(rename(doc, {**names, **keys}))
    assert_safe_markdown(md, [target, mutation])
    assert_safe_html(html)
