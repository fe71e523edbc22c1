"""HTML pieces of the viewer: every text shown is redacted, then escaped, here.

Pages are plain server-rendered HTML with an inline stylesheet and no script at all (the
Content-Security-Policy forbids scripts), so nothing in a store can run in the browser.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlencode

from agentmetrology.edges.display import printable
from agentmetrology.edges.redaction import PATTERNS
from agentmetrology.report.html import CSS as REPORT_CSS
from agentmetrology.report.html import escape
from agentmetrology.report.money import money
from agentmetrology.store.reader_queries import UNSCORED
from agentmetrology.store.redact import MIN_SECRET_LEN, Redactor, env_secrets


def _shortest_secret() -> int:
    """Return the length below which no text can hold a credential pattern or a secret."""
    try:  # the regex parser's own minimum match width of each pattern
        import re._parser as sre_parse

        widths = [sre_parse.parse(p.regex).getwidth()[0] for p in PATTERNS]
    except Exception:  # a private module: without it, every text is redacted
        return 0
    return min([*widths, MIN_SECRET_LEN])


SHORTEST_SECRET = _shortest_secret()

CSS = REPORT_CSS.replace("max-width:60rem", "max-width:90rem") + """
nav{font-size:.9rem;margin-bottom:1rem}nav a{margin-right:1rem}
.actor{display:inline-block;padding:0 .4em;border-radius:3px;font-size:.8rem;font-weight:600}
.actor-agent{background:#dbe7f3}.actor-harness{background:#fde2c8}
.actor-grader{background:#f3d1e6}.actor-environment{background:#d8f0d8}
.actor-adversary{background:#f6d5d5}.actor-user{background:#eee}
tr.ev-agent td:first-child{border-left:4px solid #4c78a8}
tr.ev-harness td:first-child{border-left:4px solid #f58518}
tr.ev-grader td:first-child{border-left:4px solid #b279a2}
tr.ev-adversary td:first-child{border-left:4px solid #e45756}
.status-PASS{color:#116329}.status-FAIL,.status-INVALID{color:#a40e26}
.status-UNKNOWN{color:#7d4e00}.null{color:#7d4e00;font-style:italic}
pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:.8rem;max-width:50rem}
form.filters label{margin-right:.6rem;font-size:.9rem}
.retry{color:#a40e26;font-weight:600}
.evidence-banner{border:2px solid #a40e26;background:#fdecea;color:#a40e26;font-weight:700;
padding:.6rem .8rem;margin:0 0 1rem}
""".strip()
SECURITY_HEADERS = {
    # No script, no frame, no remote anything: only the inline stylesheet.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Html:
    """Renders text for pages: redacted (as the store redacts) and escaped."""

    def __init__(self, secrets: Iterable[str] = (), banner: str | None = None) -> None:
        # Shown above every page (view.evidence: the store's check did not qualify it).
        self.banner = banner
        # The values of credential-named environment variables, as the store scrubs them.
        self.redactor = Redactor([*secrets, *env_secrets()])
        # Pages repeat the same names and statuses many times: each is redacted once.
        self.redact = functools.lru_cache(maxsize=65536)(self._redact)

    def _redact(self, text: str) -> str:
        """Return text with registered secrets and credential patterns replaced."""
        # Nothing shorter than the shortest credential pattern (`?key=x`) or registered
        # secret (MIN_SECRET_LEN) can hold one.
        if len(text) < SHORTEST_SECRET:
            return text
        return self.redactor.text(text)

    def redact_bytes(self, data: bytes) -> bytes:
        """Return bytes with registered secrets and credential patterns replaced."""
        return self.redactor.bytes(data)

    def t(self, value: object) -> str:
        """Return a value as redacted, escaped, printable text (None as an empty string)."""
        return "" if value is None else escape(printable(self.redact(str(value))))

    def table(self, headers: Sequence[str], rows: Iterable[Sequence[str]],
              css_id: str | None = None) -> str:
        """Return a table; `headers` are plain text, cells are HTML the caller built."""
        head = "".join(f"<th>{self.t(h)}</th>" for h in headers)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
        ident = f' id="{escape(css_id)}"' if css_id else ""
        return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def link(self, href: str, text: object) -> str:
        """Return an <a> element (href already built by `url`)."""
        return f'<a href="{escape(href)}">{self.t(text)}</a>'

    def page(self, title: str, body: str, nav: str = "") -> str:
        """Return a complete document with the inline stylesheet."""
        return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                # An inline empty icon: the browser asks for no /favicon.ico (a 404).
                '<link rel="icon" href="data:,">\n'
                f"<title>{self.t(title)} · agm view</title>\n<style>\n{CSS}\n</style>\n"
                f"</head>\n<body>\n<nav>{nav}</nav>\n{self._banner()}<h1>{self.t(title)}</h1>"
                f"\n{body}\n</body>\n</html>\n")

    def _banner(self) -> str:
        """Return the evidence banner's paragraph, "" when there is none."""
        if self.banner is None:
            return ""
        return (f'<p class="evidence-banner" id="evidence-banner" role="alert">'
                f"{self.t(self.banner)}</p>\n")


def form_value(value: object) -> str:
    """Return a form field's value attribute text: the exact value, escaped only.

    A form posts it back as a key or a filter, so it is not redacted or made printable as
    shown text is (a target `token:abcdefghijkl` shown redacted matched nothing); links carry
    the same values in their query strings. NUL, which no HTML can carry, becomes U+FFFD as a
    browser's parser would make it, so the page holds none."""
    return escape(str(value).replace("\x00", "\ufffd"))


def url(path: str, **params: Any) -> str:
    """Return `path` with the non-empty parameters as a query string (a deep link)."""
    query = urlencode([(k, str(v)) for k, v in params.items() if v is not None and v != ""])
    return f"{path}?{query}" if query else path


def score_text(h: Html, status: str | None, score: float | None, failure: bool = False) -> str:
    """Return a score cell: the number and status, or 'null' with its status (never 0) for
    an UNKNOWN or INVALID assessment and for any score of a measurement failure (`failure`)."""
    if status is None:
        return '<span class="null">not assessed</span>'
    cls = f"status-{escape(status)}"
    # A scorer may keep a number beside INVALID (the shape judge's 0.0): not a measurement,
    # so never shown as one, as agm export and agm campaign status leave it out.
    if score is None or status in UNSCORED:
        return f'<span class="null {cls}">null ({h.t(status)})</span>'
    if failure:  # the status is kept; the number is not: the episode measured nothing
        return f'<span class="null {cls}">null ({h.t(status)}; measurement failure)</span>'
    return f'{h.t(_num(score))} <span class="{cls}">{h.t(status)}</span>'


def cost_text(cost: float | None, recorded: bool = True) -> str:
    """Return a cost: 'unknown' when it is null (never 0), '-' when nothing was recorded."""
    if not recorded:
        return "-"
    if cost is None:
        return '<span class="null">unknown</span>'
    return escape(money(cost))


def _num(x: float) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def num(x: float | int | None) -> str:
    """Return a number for display ('null' for None)."""
    return "null" if x is None else _num(x)
