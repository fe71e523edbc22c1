"""HTML primitives: escaping, self-contained pages, inline SVG charts."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from agentmetrology.report import html as H


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)


def _parse(text: str) -> _Collect:
    p = _Collect()
    p.feed(text)
    return p


def test_escape_and_inline_code() -> None:
    assert H.escape('<b>"x"&') == "&lt;b&gt;&quot;x&quot;&amp;"
    assert H.inline("run `a<b>` now <i>") == "run <code>a&lt;b&gt;</code> now &lt;i&gt;"


def test_page_is_self_contained() -> None:
    body = H.heading("T <1>", 1) + H.paragraph("hello `x`") + H.bullet_list(["a", "b"])
    page = H.page("Report <x>", body)
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Report &lt;x&gt;</title>" in page
    parsed = _parse(page)
    assert "script" not in parsed.tags and "link" not in parsed.tags
    urls = [v for k, v in parsed.attrs if k in ("src", "href") and v]
    assert urls == []
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    assert "@import" not in page and "url(" not in page


def test_table_escapes_and_aligns_numbers() -> None:
    out = H.table(["a", "b"], [["<x>", "0.420"], [None, "12%"]], caption="cap & co")
    assert "&lt;x&gt;" in out and '<td class="num">0.420</td>' in out
    assert '<td class="num">12%</td>' in out and "<caption>cap &amp; co</caption>" in out
    assert out.count("<tr>") == 3


def test_bar_chart_svg() -> None:
    svg = H.bar_chart([H.Bar("pass", 84, "84"), H.Bar("<fail>", 111, "111", "#c00")], "Outcomes")
    parsed = _parse(svg)
    assert parsed.tags.count("rect") == 2 and parsed.tags[0] == "svg"
    assert "&lt;fail&gt;" in svg
    widths = [float(v) for k, v in parsed.attrs if k == "width" and v and "." in v]
    assert max(widths) <= 560
    assert 'width="0.0"' in H.bar_chart([H.Bar("zero", 0, "0")], "t", max_value=0)


def test_figure_with_caption() -> None:
    svg = H.bar_chart([H.Bar("pass", 1, "1")], "Outcomes")
    fig = H.figure(svg, "caption `c`")
    assert fig.startswith("<figure>") and "<code>c</code>" in fig


def test_figure_without_caption() -> None:
    assert H.figure("<svg></svg>") == "<figure><svg></svg></figure>"


def test_a_report_opened_from_disk_runs_no_script_that_slipped_in(tmp_path: Path) -> None:
    """A report is opened from disk, where no server sends a policy: markup that reached a
    page unescaped (an escaping slip in any renderer) ran in the browser. The page's own
    Content-Security-Policy now forbids every script and every load."""
    import pytest

    sync_api = pytest.importorskip("playwright.sync_api")
    from view.test_view_browser import CHROMIUM_ARGS, _chromium

    slipped = ('<script>document.title = "ran"</script><img src=x onerror="document.title = '
               "'ran'\"><form action=\"https://example.invalid\"></form>")
    report = tmp_path / "report.html"
    report.write_text(H.page("Report", slipped), encoding="utf-8")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            loaded: list[str] = []
            page.on("response", lambda r: loaded.append(r.url))
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            assert page.title() == "Report"
            assert loaded == [report.as_uri()]  # not even the image: the policy blocks it
        finally:
            browser.close()
