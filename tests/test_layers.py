"""Imports point downward only (DESIGN.md "Layers"); records and stats import nothing else."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "agentmetrology"
RANK = {
    "records": 0, "stats": 0,
    "store": 1,
    "envs": 2, "stress": 2, "scoring": 2, "mutations": 2,
    "agents": 3,
    "run": 4, "serve": 4,
    "audit": 5, "archive": 5, "diagnose": 5, "assess": 5, "experiment": 5,
    "inspect_ext": 5,
    "results": 5,
    "report": 6, "view": 6, "adapters": 6,
    "cli": 7,
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("agentmetrology.")}


def _package(module_path: Path) -> str:
    return module_path.relative_to(ROOT).parts[0].removesuffix(".py")


def test_every_package_has_a_rank() -> None:
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert packages <= set(RANK), packages - set(RANK)


def test_imports_point_downward() -> None:
    bad = []
    for path in ROOT.rglob("*.py"):
        here = _package(path)
        if here not in RANK:
            continue  # the package root (__init__.py)
        for module in _imports(path):
            there = module.split(".")[1]
            if there not in RANK:
                continue  # e.g. agentmetrology.__version__
            if RANK[there] > RANK[here]:
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
            if RANK[here] == 0 and there != here:
                bad.append(f"{path.relative_to(ROOT)} ({here}) must not import {module}")
    assert bad == []


def test_stress_does_not_import_envs() -> None:
    # envs builds on the stress engine; the engine stays domain-agnostic.
    for path in (ROOT / "stress").rglob("*.py"):
        assert not any(m.startswith("agentmetrology.envs") for m in _imports(path)), path


def test_only_an_environment_imports_its_own_package() -> None:
    # Environments are plug-ins (DESIGN.md): everything else reaches them through the registry.
    envs = ROOT / "envs"
    names = {p.name for p in envs.iterdir() if p.is_dir() and not p.name.startswith("_")}
    bad = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).parts
        for module in _imports(path):
            parts = module.split(".")
            if len(parts) >= 3 and parts[1] == "envs" and parts[2] in names \
                    and rel[:2] != ("envs", parts[2]):
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
    assert bad == []


def test_environment_plugins_import_only_records() -> None:
    # A plug-in implements protocols that live in `records`; it never imports agents or run.
    names = [p.name for p in (ROOT / "envs").iterdir() if p.is_dir() and p.name[0] != "_"]
    for name in names:
        for path in (ROOT / "envs" / name).rglob("*.py"):
            for module in _imports(path):
                layer = module.split(".")[1]
                assert layer in ("records", "envs", "stress"), f"{path}: {module}"
                if layer == "envs":
                    assert module.startswith(f"agentmetrology.envs.{name}"), f"{path}: {module}"


def test_the_test_plugin_imports_only_records() -> None:
    path = ROOT.parents[1] / "tests" / "plugin_env" / "toy_sum.py"
    assert {m.split(".")[1] for m in _imports(path)} == {"records"}


_SQL_ATTRS = {"conn", "execute", "executemany", "executescript"}


def _speaks_sql(source: str) -> list[str]:
    """Return each sqlite3 import and each connection attribute or SQL call in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "sqlite3"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            found.append(f"from {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr in _SQL_ATTRS:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_only_the_store_speaks_sql() -> None:
    # DESIGN.md: the store is the only package that speaks SQL; others use its reader API.
    assert _speaks_sql("import sqlite3\nstore.ledger.conn.execute('SELECT 1')") == [
        "sqlite3", "line 2: .execute", "line 2: .conn"]
    bad = [f"{path.relative_to(ROOT)}: {what}" for path in ROOT.rglob("*.py")
           if path.relative_to(ROOT).parts[0] != "store"
           for what in _speaks_sql(path.read_text())]
    assert bad == []
