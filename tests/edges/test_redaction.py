"""The one credential-pattern table: every pattern individually, and known-secret matching."""

from __future__ import annotations

import base64
import json

import pytest

from agentmetrology.edges.redaction import PATTERNS, SecretValues, redact_patterns
from agentmetrology.records.canonical import canonical_json
from support.encodings import encodings, holds_secret

M = "[redacted]"

# One case per pattern: (pattern name, text, expected text after redaction). Each text is
# matched by its own pattern (and the expected output is exact).
CASES: dict[str, tuple[str, str]] = {
    "anthropic_key": ("key sk-ant-api03-abcdefgh ok", f"key {M} ok"),
    "openai_project_key": ("key sk-proj-abcd1234 ok", f"key {M} ok"),
    "openai_style_key": ("Incorrect API key provided: sk-abcdefghijklmnop1234.",
                         f"Incorrect API key provided: {M}."),
    "slack_token": ("slack xoxs-1234567890-abcdef done", f"slack {M} done"),
    "github_token": ("gh ghp_abcdefghijklmnopqrstuvwx, github_pat_11ABCDEFGH0123456789_xyz",
                     f"gh {M}, {M}"),
    "gitlab_token": ("glpat-abcdefghij0123456789", M),
    "groq_xai_key": ("gsk_abcdefghijklmnop0123 xai-abcdefghijklmnop0123", f"{M} {M}"),
    "huggingface_token": ("HF hf_abcdefghijklmnopqrstuvwxyz01", f"HF {M}"),
    "google_api_key": ("AIzaSyA-1234567890abcdefghijklmnopqrstu", M),
    "aws_access_key_id": ("id AKIAABCDEFGHIJKLMNOP and ASIAABCDEFGHIJKLMNOP", f"id {M} and {M}"),
    "bearer_token": ("sent bearer abc.def-ghi_jkl to x", f"sent bearer {M} to x"),
    "basic_auth": ("Basic YWxpY2U6c2VjcmV0 and Basic strategies",
                   f"Basic {M} and Basic strategies"),
    "json_secret_field": ('{"client_secret":"two words, a comma","n":1}',
                          f'{{"client_secret":"{M}","n":1}}'),
    "json_secret_field_escaped": (
        '{"metadata_json":"{\\"api_key\\": \\"a b\\\\\\"c\\", \\"n\\": 1}"}',
        '{"metadata_json":"{\\"api_key\\": \\"' + M + '\\", \\"n\\": 1}"}'),
    "secret_key_value": ("retry with api_key=zzzz9999, then password: hunter22",
                         f"retry with api_key={M}, then password: {M}"),
    "token_value": ("token: 5 and token=abcdefgh1234", f"token: 5 and token={M}"),
    "url_userinfo": ("http://alice:secret@host/v1", f"http://{M}@host/v1"),
    "url_query_key": ("https://h/v1?key=AIza-short&x=1", f"https://h/v1?key={M}&x=1"),
}


def test_every_pattern_has_its_own_case() -> None:
    assert sorted(CASES) == sorted(p.name for p in PATTERNS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pattern(name: str) -> None:
    (pattern,) = [p for p in PATTERNS if p.name == name]
    text, expected = CASES[name]
    assert pattern.sub(text, M) == expected  # this pattern alone does the work
    assert redact_patterns(text, M) == expected  # and the whole table agrees
    assert redact_patterns(text.encode(), M.encode()) == expected.encode()  # bytes too


@pytest.mark.parametrize("name", sorted(CASES))
def test_pattern_keeps_canonical_json_valid(name: str) -> None:
    text, _ = CASES[name]
    if name == "json_secret_field_escaped":  # its text is already a JSON document
        out = json.loads(redact_patterns(text.encode(), M.encode()))
        assert M in json.loads(out["metadata_json"])["api_key"]
        return
    doc = canonical_json({"detail": text, "next": [1, "x"]})
    out = json.loads(redact_patterns(doc, M.encode()))
    assert out["next"] == [1, "x"] and M in out["detail"]


def test_ordinary_text_is_untouched() -> None:
    text = ("record T3_duplicates-000001 digest " + "a" * 64 + " task-abcdefghijklmnop "
            '{"max_tokens":10,"input_tokens":5,"api_key_env":"OPENAI_API_KEY","tokens":3} '
            "a basic approach; the bearer of news; http://host:8080/path?page=2")
    assert redact_patterns(text, M) == text


KEY = "sk-proj-Zq8vN3kLm2Xc7Rt5Wy1Bp4Hd6Gf0Js9"


def test_known_secret_in_every_form_and_fragment() -> None:
    values = SecretValues([KEY])
    bare = KEY[len("sk-proj-"):]  # quoted without its prefix: no pattern knows this shape
    assert redact_patterns(f"key {bare} rejected", M) == f"key {bare} rejected"
    assert values.redact(f"key {bare} rejected", M) == f"key {M} rejected"
    assert values.redact(f"cut {KEY[3:20]}…", M) == f"cut {M}…"  # 17 characters of it
    assert values.redact(f"short {KEY[10:21]} ok", M) == f"short {KEY[10:21]} ok"  # 11: kept
    raw = KEY.encode()
    for enc in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        for form in (enc.decode(), enc.decode().rstrip("=")):
            assert values.redact(f"b64 {form} end", M) == f"b64 {M} end", form
            assert values.redact(f"b64 {form} end".encode(), M.encode()) == (
                f"b64 {M} end".encode())


def test_fragment_of_a_secret_with_json_escapes_keeps_json_valid() -> None:
    secret = 'pass"word\\with-escapes-0123'
    values = SecretValues([secret])
    doc = canonical_json({"e": f"got {secret[2:]} and {secret[5:]}", "n": "\\" + secret[:14]})
    out = values.redact(doc, M.encode())
    parsed = json.loads(out)
    assert secret[5:18] not in json.dumps(parsed) and M in parsed["e"]


def test_short_values_are_not_secrets() -> None:
    assert SecretValues(["abc", "", "ollama"]).redact("abc ollama", M) == "abc ollama"


@pytest.mark.parametrize("name", sorted(CASES))
def test_store_llm_and_archive_redactors_share_the_table(name: str) -> None:
    from agentmetrology.agents.llm.redact import redact as llm_redact
    from agentmetrology.archive.redact import redact as archive_redact
    from agentmetrology.store.redact import Redactor

    text, expected = CASES[name]
    assert Redactor().text(text) == expected
    assert llm_redact(text) == expected.replace(M, "[REDACTED]")
    assert archive_redact(text, limit=1000) == " ".join(expected.split())


def test_llm_and_archive_redactors_remove_known_secret_fragments(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmetrology.agents.llm.redact import redact as llm_redact
    from agentmetrology.archive.redact import redact as archive_redact

    bare = KEY[len("sk-proj-"):]
    assert llm_redact(f"bad key {bare}", [KEY]) == "bad key [REDACTED]"
    monkeypatch.setenv("VENDOR_API_KEY", KEY)
    assert archive_redact(f"bad key {bare[:14]}") == f"bad key {M}"


ECHOED = "sk-test-SECRETSECRET123456789"


@pytest.mark.parametrize("form", sorted(encodings(ECHOED)))
def test_known_secret_in_every_reversible_encoding(form: str) -> None:
    values = SecretValues([ECHOED])
    encoded = encodings(ECHOED)[form]
    for text, marker in ((f"args {encoded} end", M), (f"args {encoded} end".encode(),
                                                      M.encode())):
        out: str | bytes = values.redact(text, marker)  # type: ignore[type-var]
        assert M in (out.decode() if isinstance(out, bytes) else out), form
        left = out.decode() if isinstance(out, bytes) else out
        for piece in left.replace(M, " ").split():
            assert not holds_secret(piece, ECHOED), (form, piece)


def test_encoded_needles_are_made_once_per_secret() -> None:
    values = SecretValues([ECHOED])
    table = values._table(str)
    assert values._table(str) is table  # cached: redaction does no encoding per record
    ((_, _, _, encoded, probes, folded),) = table
    assert len(encoded) == len(set(encoded))
    assert ECHOED.encode().hex() in encoded
    assert base64.b32encode(ECHOED.encode()).decode() in encoded
    # The pre-checks are few: one per base64 alignment, one per base32 alignment, hex, %XX.
    assert (len(probes), len(folded)) == (3, 7)
