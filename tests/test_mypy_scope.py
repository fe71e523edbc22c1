"""mypy skips openai's API families the package never uses (pyproject.toml); a use of one fails."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "agentmetrology"


def skipped_families() -> set[str]:
    """Return the openai API families (e.g. "responses") whose modules mypy does not follow."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    out: set[str] = set()
    for override in config["tool"]["mypy"]["overrides"]:
        if override.get("follow_imports") != "skip":
            continue
        for module in override["module"]:
            found = re.fullmatch(r"openai\.(?:types|resources)\.(\w+)\.\*", module)
            if found:
                out.add(found.group(1))
    return out


def uses(source: str) -> set[str]:
    """Return the openai modules a source imports and the attribute names it reads anywhere."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("openai"):
            names.update(node.module.split("."))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("openai"):
                    names.update(alias.name.split("."))
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def test_the_skipped_families_are_the_big_unused_ones() -> None:
    families = skipped_families()
    assert {"beta", "responses", "realtime", "admin"} <= families
    assert not families & {"chat", "shared", "shared_params"}  # what client.py types against


def test_no_module_that_imports_openai_touches_a_skipped_family() -> None:
    families = skipped_families()
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        if "openai" not in text:
            continue
        names = uses(text)
        if "openai" not in names:
            continue  # the word only, in a string or a comment
        assert not names & families, (
            f"{path.relative_to(ROOT)} uses openai's {sorted(names & families)}: mypy does not "
            "follow it (pyproject.toml); take the family off the skip list")


def test_the_check_sees_a_use() -> None:
    assert uses("from openai.types.responses import Response\n") & skipped_families()
    assert uses("import openai\nc = openai.OpenAI()\nc.beta.threads\n") & skipped_families()
    assert not uses("from openai.types.chat import ChatCompletion\n") & skipped_families()
