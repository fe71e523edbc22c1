"""The workbench's write permission: a per-run token, a cookie, and a form field derived from it.

`agm view STORE --workbench` makes a random token and prints a login URL holding it on the
terminal. Opening that URL sets the token in an HttpOnly, SameSite=Strict cookie. Every write
is a POST that must carry both the cookie and a form field `csrf` equal to an HMAC of the token
(double submit): another site's page can neither read the field from our pages nor send our
cookie (SameSite=Strict), and the request guard refuses its Origin anyway. A write missing
either is refused before anything is read from or written to the store.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

COOKIE = "agm_workbench"
LOGIN_PATH = "/workbench/login"


@dataclass(frozen=True, slots=True)
class WorkbenchAuth:
    """The run's token and the checks every write goes through."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    @property
    def csrf(self) -> str:
        """Return the form field every write form carries (derived from the token)."""
        return hmac.new(self.token.encode(), b"agm-workbench-csrf", hashlib.sha256).hexdigest()

    def login_url(self, base: str) -> str:
        """Return the URL that hands the token to the browser (printed on the terminal)."""
        return f"{base.rstrip('/')}{LOGIN_PATH}?token={self.token}"

    def token_ok(self, presented: str | None) -> bool:
        """Return True when `presented` is this run's token (compared in constant time)."""
        # Compared as bytes: compare_digest raises TypeError on a str with non-ASCII characters
        # (a cookie or a query parameter anyone can send), which was a 500, not a refusal.
        return presented is not None and hmac.compare_digest(presented.encode(),
                                                             self.token.encode())

    def write_refusal(self, cookie: str | None, csrf: str | None) -> str | None:
        """Return why a write is refused (None when it may proceed)."""
        if not self.token_ok(cookie):
            return ("write refused: this browser has no workbench token; open the login URL "
                    "`agm view --workbench` printed on the terminal")
        if csrf is None or not hmac.compare_digest(csrf.encode(), self.csrf.encode()):
            return "write refused: the form's csrf field is missing or wrong; reload the page"
        return None

    def cookie_header(self) -> str:
        """Return the Set-Cookie value that keeps the token in this browser for the run."""
        return f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
