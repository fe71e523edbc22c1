"""The checking code a memo and a verified head are bound to (store.verify_memo.CODE) is every
module of the store package the check imports, directly or not: a change to any of them may
change what a check finds, so a memo or head kept by the code before must not be reused. The
same holds for the code of `campaign status`'s numbers and their memo (store.status_memo), and
for the viewer's campaign overviews and front-page totals (store.overview_memo)."""

from __future__ import annotations

import ast
from pathlib import Path

from agentmetrology.store import overview_memo, status_memo, verify_memo

STORE = Path(verify_memo.__file__).parent
ENTRIES = ("verify.py", "verify_ahead.py", "verify_split.py", "verify_memo.py",
           "verify_checkpoint.py")


def _imports(name: str) -> set[str]:
    """Return the store modules `name` imports (by file name)."""
    out = set()
    for node in ast.walk(ast.parse((STORE / name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("agentmetrology.store."):
                out.add(node.module.rsplit(".", 1)[1] + ".py")
            elif node.module == "agentmetrology.store":
                out |= {a.name + ".py" for a in node.names if (STORE / f"{a.name}.py").exists()}
    return out


def _closure(entries: tuple[str, ...]) -> set[str]:
    """Return the store modules `entries` import, directly or not, and themselves."""
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(name))
    return seen


def test_every_module_the_status_numbers_import_is_their_code() -> None:
    assert _closure(("status.py",)) - set(status_memo._CODE) == set()


def test_every_module_the_check_imports_is_checking_code() -> None:
    seen = _closure(ENTRIES)
    assert seen - set(verify_memo.CODE) == set()
    assert set(verify_memo.CODE) - seen == set()  # nothing listed that the check never reads


def test_every_module_the_viewer_overview_imports_is_its_code() -> None:
    seen = _closure(("campaign_overview.py", "reader.py", "overview_memo.py"))
    assert seen - set(overview_memo._CODE) == set()
    assert set(overview_memo._CODE) - seen == set()
