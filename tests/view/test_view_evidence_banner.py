"""A store that its check does not qualify is shown under a banner on every page.

Before, `agm view` showed a forged store's numbers as it showed any other; `agm export` said
"The rows exported are not qualified" of the same store. The viewer now runs the check
`agm campaign status` runs (view.evidence), once, when it starts.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from agentmetrology.view import create_app, detect_source
from view.view_fixtures import CAMPAIGN

BASE = "http://127.0.0.1"
PAGES = ("/", "/episodes", f"/campaign?name={CAMPAIGN}", "/graders", "/no-such-page")


def _pages(root: Path) -> dict[str, str]:
    client = TestClient(create_app(detect_source(root)), base_url=BASE)
    return {p: client.get(p).text for p in PAGES}


def test_a_qualified_store_has_no_banner(llm_store: tuple[Path, list[dict[str, Any]]],
                                         tmp_path: Path) -> None:
    root = Path(shutil.copytree(llm_store[0], tmp_path / "s"))
    for page, text in _pages(root).items():
        assert 'id="evidence-banner"' not in text, page


def test_a_forged_store_is_shown_under_a_banner_on_every_page(
        llm_store: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    root = Path(shutil.copytree(llm_store[0], tmp_path / "s"))
    with sqlite3.connect(root / "ledger.sqlite") as c:  # a score edited in place
        c.execute("UPDATE assessments SET score = 1.0, status = 'PASS'")
    pages = _pages(root)
    for page, text in pages.items():
        assert 'id="evidence-banner"' in text, page
        assert ("UNQUALIFIED EVIDENCE (invalid_binding): bindings or bytes no longer match"
                in text), page
        assert "The numbers on these pages are not qualified" in text, page
        assert text.index('id="evidence-banner"') < text.index("<h1>"), page
