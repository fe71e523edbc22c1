"""The store's redaction API: the byte forms of a secret, and secrets registered after the fact."""

from __future__ import annotations

import base64
import json

from agentmetrology.store.redact import REDACTED, Redactor, secret_forms

SECRET = 'añadir-"clave"-0123456789'


def test_secret_forms_are_the_utf8_bytes_of_every_whole_form() -> None:
    raw = SECRET.encode("utf-8")
    forms = secret_forms(SECRET)
    assert all(isinstance(f, bytes) for f in forms)
    assert raw in forms  # raw UTF-8, non-ASCII included
    assert json.dumps(SECRET, ensure_ascii=False)[1:-1].encode("utf-8") in forms
    assert json.dumps(SECRET)[1:-1].encode("ascii") in forms  # \\u00f1 and \\" escapes
    for enc in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        assert enc in forms and enc.rstrip(b"=") in forms
    assert len(forms) == len(set(forms)) and forms == sorted(forms, key=len, reverse=True)


def test_secrets_added_later_are_redacted_from_then_on() -> None:
    r = Redactor()
    line = f"token {SECRET} sent"
    assert r.text(line) == line
    r.add([SECRET, "short"])  # too-short values are ignored
    assert r.text(line) == "token [redacted] sent"
    assert r.bytes(b"a short note") == b"a short note"
    assert r.exact(base64.b64encode(SECRET.encode())) == REDACTED


def test_watch_env_reads_credential_variables_only_when_asked(monkeypatch) -> None:
    monkeypatch.setenv("AGM_WATCHED_TOKEN", SECRET)
    monkeypatch.setenv("AGM_PLAIN_SETTING", "ordinary-value-0123456789")
    line = f"t {SECRET} / ordinary-value-0123456789"
    assert Redactor().text(line) == line  # no watch: the environment is not read
    watched = Redactor(watch_env=True)
    assert watched.text(line) == "t [redacted] / ordinary-value-0123456789"
    monkeypatch.setenv("AGM_WATCHED_TOKEN", "replaced-secret-9876543210")  # same count
    assert watched.text("x replaced-secret-9876543210") == "x [redacted]"
    assert watched.text(line) == "t [redacted] / ordinary-value-0123456789"  # still known
    monkeypatch.delenv("AGM_PLAIN_SETTING")
    monkeypatch.setenv("AGM_OTHER_SECRET", "another-secret-value-0001")  # count unchanged too
    assert watched.text("y another-secret-value-0001") == "y [redacted]"
