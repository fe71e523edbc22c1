"""Imports point downward only (DESIGN.md "Layers"); records and stats import nothing else."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "agentmetrology"
RANK = {
    "records": 0, "stats": 0,
    # What runs below every environment (the tool recorder, the episode driver, the scripted
    # base, the registry idiom) and the defences at the edges (redaction, bounded reading,
    # display of untrusted text, the servers' guard): above the data types, below the store.
    "runtime": 0.5, "edges": 0.5,
    "store": 1,
    "envs": 2, "stress": 2, "scoring": 2, "mutations": 2,
    "agents": 3,
    "run": 4, "serve": 4,
    "audit": 5, "archive": 5, "diagnose": 5, "assess": 5, "experiment": 5,
    # Inspect AI's tasks, logs and scorer audits: above the auditor and the archive, whose
    # registries name its entries by module path (as plug-ins), below the renderers.
    "inspect_ext": 5.5,
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
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            # resolved, so every check below sees a relative import as its absolute module
            out.add(_relative_target(_dotted(path), node.level, node.module))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("agentmetrology.")}


def _dotted(path: Path) -> tuple[str, ...]:
    return ("agentmetrology", *path.relative_to(ROOT).with_suffix("").parts)


def _relative_target(module: tuple[str, ...], level: int, name: str | None) -> str:
    # `from .x import y` in a.b.c names a.b.x; a package's __init__ sits one level deeper
    # in its dotted path (a.b.__init__), so the same slicing holds for it.
    base = module[:len(module) - level]
    assert base, f"{'.'.join(module)}: relative import climbs out of agentmetrology"
    return ".".join((*base, name) if name else base)


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


def test_environment_plugins_import_only_the_bottom_layers() -> None:
    # A plug-in implements protocols that live in `records` and may use the bottom runtime
    # (the scripted base, the recorder) and edges (bounded reading); never agents or run.
    names = [p.name for p in (ROOT / "envs").iterdir() if p.is_dir() and p.name[0] != "_"]
    for name in names:
        for path in (ROOT / "envs" / name).rglob("*.py"):
            for module in _imports(path):
                layer = module.split(".")[1]
                assert layer in ("records", "runtime", "edges", "envs", "stress"), \
                    f"{path}: {module}"
                if layer == "envs":
                    assert module.startswith(f"agentmetrology.envs.{name}"), f"{path}: {module}"


def test_the_test_plugin_imports_only_records_and_runtime() -> None:
    # The protocols it implements (records) and the seeded rng it draws its data from (runtime).
    path = ROOT.parents[1] / "tests" / "plugin_env" / "toy_sum.py"
    assert {m.split(".")[1] for m in _imports(path)} == {"records", "runtime"}


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


# Imports between different packages of the same rank, each allowed for a stated reason; a new
# one fails until it is either removed or added here with its reason.
SAME_RANK_ALLOWED = {
    ("envs", "stress"): "environments build on the domain-agnostic stress engine",
    ("scoring", "mutations"): "scoring an episode under a condition applies its mutated scorers",
    ("serve", "run"): "the MCP server builds episodes and names campaigns as `run` does",
    ("diagnose", "archive"): "diagnose reads agm stores through archive's agm_store importer",
    ("adapters", "view"): "the OpenEnv server binds its port with the viewer's loopback binder",
    ("view", "report"): "the viewer's pages share the reports' CSS and HTML escaping",
}


def _same_rank_pairs() -> dict[tuple[str, str], list[str]]:
    pairs: dict[tuple[str, str], list[str]] = {}
    for path in ROOT.rglob("*.py"):
        here = _package(path)
        for module in _imports(path):
            there = module.split(".")[1]
            if here in RANK and there in RANK and there != here and RANK[there] == RANK[here]:
                pairs.setdefault((here, there), []).append(f"{path.relative_to(ROOT)}: {module}")
    return pairs


def test_same_rank_imports_are_declared() -> None:
    found = _same_rank_pairs()
    undeclared = {pair: found[pair] for pair in found if pair not in SAME_RANK_ALLOWED}
    assert undeclared == {}, "declare the pair in SAME_RANK_ALLOWED with its reason, or remove it"


def test_every_declared_same_rank_pair_is_still_used() -> None:
    # A stale allowance would let the pair come back unreviewed.
    assert set(SAME_RANK_ALLOWED) <= set(_same_rank_pairs())
    assert all(reason for reason in SAME_RANK_ALLOWED.values())


def test_relative_imports_resolve_like_absolute_ones() -> None:
    assert _relative_target(("agentmetrology", "stats", "compare"), 1, "flips") \
        == "agentmetrology.stats.flips"
    assert _relative_target(("agentmetrology", "stats", "__init__"), 1, "paired") \
        == "agentmetrology.stats.paired"
    assert _relative_target(("agentmetrology", "stats", "compare"), 2, "store.ledger") \
        == "agentmetrology.store.ledger"
    assert _relative_target(("agentmetrology", "stats", "compare"), 1, None) \
        == "agentmetrology.stats"
    with pytest.raises(AssertionError, match="climbs out"):
        _relative_target(("agentmetrology", "stats", "compare"), 3, "x")
    # the stats package imports its own modules relatively; the checks above see them
    assert "agentmetrology.stats.bootstrap" in _imports(ROOT / "stats" / "compare.py")
