"""The one table of credential patterns, and secret-value matching, behind every redactor.

The evidence store (bytes of canonical JSON), the LLM policy (strings it records) and the
archive auditor (details shown in reports) each keep their own public functions and marker, but
all of them read this table, so a key shape known to one is known to all.

Two kinds of redaction:
- patterns: credential-shaped text (provider keys, bearer tokens, `api_key=...`, URL userinfo).
  A pattern never consumes a JSON quote, backslash, comma or brace, so redacted canonical JSON
  stays valid JSON; where a label is kept (`api_key=`), only the value is replaced.
- known secret values (an API key read from `api_key_env`, credential-named environment
  variables): the value itself, its JSON-escaped forms, its common reversible encodings (base64
  standard and URL-safe, base32, hex in either case, percent-encoding), and any substring of at
  least MIN_FRAGMENT_LEN characters of it, so an error that quotes a key without its `sk-`
  prefix, or cut short, is caught too. A key encoded inside longer text (a model that base64s
  a whole tool argument) lands at any offset of a base64 or base32 group, so each alignment has
  its own needle: the characters that encode only the key's bytes. All needles of a secret are
  made once, when it is registered; redacting a record only searches for them.

This module is in `records` (the bottom layer) so that every layer can use it; it imports
nothing else from the package.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, AnyStr
from urllib.parse import quote, quote_plus

# Bumped whenever the table changes, so that evidence pre-redacted by an older table is
# redacted again by the store.
PATTERNS_VERSION = "2"
# Shorter registered values would match ordinary data and corrupt evidence for no protection
# (placeholders such as "EMPTY" or "ollama" are not secret).
MIN_SECRET_LEN = 8
# A substring of a known secret this long is treated as the secret (an error quoting the key
# without its prefix); shorter pieces occur in ordinary text by chance.
MIN_FRAGMENT_LEN = 12

_TOKEN = r"[^\s\"'\\,;&}\]<>]"  # a token character that cannot end a JSON string or value
_KEYCHARS = r"[A-Za-z0-9_\-]"
_AUTH_NAMES = (r"api[_\-]?key|x-api-key|authorization|access[_\-]?token|auth[_\-]?token|"
               r"refresh[_\-]?token|client[_\-]?secret|secret|password|passwd")
# Lowercase literals one of which every match of _AUTH_NAMES contains.
_AUTH_LITERALS = ("api_key", "api-key", "apikey", "authorization", "access_token", "access-token",
                  "accesstoken", "auth_token", "auth-token", "authtoken", "refresh_token",
                  "refresh-token", "refreshtoken", "secret", "passw")
# `token` itself is in every "max_tokens": the bare-token pattern allows at most one blank
# before its `:`/`=` so that its literals can be listed exactly.
_TOKEN_LITERALS = tuple(f"token{q}{b}{op}" for q in ("", '"', "'", '\\"', "\\'")
                        for b in ("", " ", "\t") for op in (":", "="))
_QUERY_NAMES = ("key", "api_key", "api-key", "apikey", "token", "access_token", "sig")
_QUERY_LITERALS = tuple(f"{sep}{n}=" for sep in "?&" for n in _QUERY_NAMES)
# A value that an earlier pattern already replaced is left alone (no "[redacted]]").
_NOT_REDACTED = r"(?!\[redacted\])"


@dataclass(frozen=True, slots=True)
class CredentialPattern:
    """One credential shape: what it matches and what is kept.

    The named groups `pre` and `post`, when present, are kept around the marker (a label such
    as `api_key=` or a JSON closing quote); everything else the pattern matched is replaced.
    `literals` are lowercase strings one of which every match contains: a pattern runs only
    when one occurs, because `in` scans at memory speed while a regex without a literal prefix
    tries every position (over 100x slower on a large episode).
    """

    name: str
    regex: str
    literals: tuple[str, ...]
    _str: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _bytes: re.Pattern[bytes] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_str", re.compile(self.regex))
        object.__setattr__(self, "_bytes", re.compile(self.regex.encode("ascii")))

    def sub(self, data: AnyStr, marker: AnyStr) -> AnyStr:
        """Return `data` with every match replaced by `marker` (kept groups around it)."""
        pattern: Any = self._bytes if isinstance(data, bytes) else self._str
        names = pattern.groupindex

        def repl(m: re.Match[AnyStr]) -> AnyStr:
            pre = m.group("pre") if "pre" in names else None
            post = m.group("post") if "post" in names else None
            return (pre or marker[:0]) + marker + (post or marker[:0])

        return pattern.sub(repl, data)


PATTERNS: tuple[CredentialPattern, ...] = (
    CredentialPattern("anthropic_key", r"\bsk-ant-" + _KEYCHARS + r"{8,}", ("sk-ant-",)),
    CredentialPattern("openai_project_key", r"\bsk-proj-" + _KEYCHARS + r"{8,}", ("sk-proj-",)),
    CredentialPattern("openai_style_key", r"\b(?:sk|pk|rk)-" + _KEYCHARS + r"{12,}",
                      ("sk-", "pk-", "rk-")),
    CredentialPattern("slack_token", r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", ("xox",)),
    CredentialPattern("github_token", r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}",
                      ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    CredentialPattern("gitlab_token", r"\bglpat-" + _KEYCHARS + r"{16,}", ("glpat-",)),
    CredentialPattern("groq_xai_key", r"\b(?:gsk|xai)[_\-]" + _KEYCHARS + r"{16,}",
                      ("gsk_", "gsk-", "xai_", "xai-")),
    CredentialPattern("huggingface_token", r"\bhf_[A-Za-z0-9]{16,}", ("hf_",)),
    CredentialPattern("google_api_key", r"\bAIza[0-9A-Za-z_\-]{30,}", ("aiza",)),
    CredentialPattern("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", ("akia", "asia")),
    CredentialPattern("bearer_token",
                      r"(?i)\b(?P<pre>bearer\s+)" + _NOT_REDACTED + r"[A-Za-z0-9._~+/\-]{8,}=*",
                      ("bearer",)),
    # "Basic <base64>": the value must look encoded (a digit, + / or =), not "Basic strategies".
    CredentialPattern("basic_auth",
                      r"\b(?P<pre>Basic\s+)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}",
                      ("basic",)),
    # A secret-named JSON field: keep the name, drop the whole string value.
    CredentialPattern("json_secret_field",
                      r'(?i)(?P<pre>"(?:' + _AUTH_NAMES + r')"\s*:\s*")' + _NOT_REDACTED
                      + r'(?:[^"\\]|\\.)*(?P<post>")',
                      _AUTH_LITERALS),
    # The same field inside a JSON document held in a JSON string (`"metadata_json": "{\"…`):
    # the value runs to the inner closing quote, over the inner string's own escapes.
    CredentialPattern("json_secret_field_escaped",
                      r'(?i)(?P<pre>\\"(?:' + _AUTH_NAMES + r')\\"\s*:\s*\\")' + _NOT_REDACTED
                      + r'(?:[^"\\]|\\\\\\"|\\\\\\\\|\\\\[^"\\]|\\[^"\\])*(?P<post>\\")',
                      _AUTH_LITERALS),
    # `api_key=…`, `Authorization: Bearer …`, `"x-api-key": '…'` in free text (logs, errors).
    CredentialPattern("secret_key_value",
                      r"(?i)\b(?P<pre>(?:" + _AUTH_NAMES + r")(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?"
                      r"(?:bearer\s+)?)" + _NOT_REDACTED + _TOKEN + r"+",
                      _AUTH_LITERALS),
    # A bare `token=` is common in ordinary text ("token: 5"): only long values are secrets.
    CredentialPattern("token_value",
                      r"(?i)\b(?P<pre>token(?:\\?[\"'])?[ \t]?[:=]\s*(?:\\?[\"'])?)"
                      + _NOT_REDACTED + _TOKEN + r"{8,}", _TOKEN_LITERALS),
    # https://user:password@host (the user name goes too: it often is a key id). The scheme
    # stays outside the match so that the regex starts with a literal (fast on large text).
    CredentialPattern("url_userinfo",
                      r"(?P<pre>://)[^/\s:@\"'\\]+:[^/\s@\"'\\]+"
                      r"(?P<post>@)", ("://",)),
    # ?key=… / &api_key=… / &sig=… in URLs.
    CredentialPattern("url_query_key",
                      r"(?i)(?P<pre>[?&](?:key|api[_\-]?key|token|access_token|sig)=)"
                      + _NOT_REDACTED + r"[^&\s#\"'\\]+", _QUERY_LITERALS),
)
_LITERALS = tuple(dict.fromkeys(t for p in PATTERNS for t in p.literals))
# Their UTF-8 forms, encoded once: bytes input is the store's hot path.
_LITERAL_BYTES = tuple((t, t.encode("utf-8")) for t in _LITERALS)

# Environment variables whose names say they hold a credential.
SECRET_ENV_NAME = re.compile(r"(?i)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)")


def redact_patterns(data: AnyStr, marker: AnyStr) -> AnyStr:
    """Return `data` with every credential-shaped substring replaced by `marker`."""
    lowered = data.lower()
    if isinstance(lowered, bytes):
        present = {t for t, b in _LITERAL_BYTES if b in lowered}
    else:
        present = {t for t in _LITERALS if t in lowered}
    if present:
        for p in PATTERNS:
            if present.intersection(p.literals):
                data = p.sub(data, marker)
    return data


def env_secret_values(environ: dict[str, str] | None = None) -> list[str]:
    """Return the values of environment variables whose names mark them as credentials."""
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if SECRET_ENV_NAME.search(k) and len(v) >= MIN_SECRET_LEN]


def _as(text: str, like: str | bytes) -> AnyStr:  # type: ignore[type-var]
    return text.encode("utf-8") if isinstance(like, bytes) else text  # type: ignore[return-value]


def _escaped(value: str) -> set[str]:
    """Return the forms `value` takes inside JSON strings (raw, escaped, ASCII-escaped)."""
    return {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]}


_URLSAFE = str.maketrans("+/", "-_")


def _aligned(raw: bytes, group: int, bits: int, encode: Callable[[bytes], bytes]) -> set[str]:
    """Return, for each offset of `raw` in a group of `group` bytes, the characters of its
    encoding (`bits` per character) that depend on `raw`'s bytes only."""
    out = set()
    for lead in range(group):
        text = encode(b"\0" * lead + raw).decode("ascii")
        first, end = -(-8 * lead // bits), 8 * (lead + len(raw)) // bits
        out.add(text[first:end])
    return out


def secret_forms(value: str) -> list[str]:
    """Return every whole form a secret can take in recorded text, longest first.

    Raw, JSON-escaped, and the encodings of its UTF-8 bytes: base64 (standard and URL-safe,
    with and without padding), base32 (upper and lower case, with and without padding), hex
    (both cases) and percent-encoding (every byte, or only those URLs must escape).
    """
    forms = _escaped(value)
    raw = value.encode("utf-8")
    b32 = base64.b32encode(raw).decode("ascii")
    for text in (base64.b64encode(raw).decode("ascii"),
                 base64.urlsafe_b64encode(raw).decode("ascii"), b32, b32.lower()):
        forms.update({text, text.rstrip("=")})
    forms.update({raw.hex(), raw.hex().upper(), quote(value, safe=""), quote_plus(value)})
    forms.update({"".join(f"%{b:02X}" for b in raw), "".join(f"%{b:02x}" for b in raw)})
    return sorted(forms, key=len, reverse=True)


def _base64_needles(raw: bytes) -> set[str]:
    """Return the base64 forms of a secret (standard and URL-safe), whole and at each
    alignment: the only case-sensitive encodings."""
    cores = _aligned(raw, 3, 6, base64.b64encode)
    out = cores | {c.translate(_URLSAFE) for c in cores}
    for enc in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        out.update({enc.decode("ascii"), enc.decode("ascii").rstrip("=")})
    return out


def _probes(needles: Iterable[str]) -> tuple[str, ...]:
    """Return the needles that contain no other: when none of them occurs, no needle does."""
    kept: list[str] = []
    for n in sorted(set(needles), key=len):
        if not any(k in n for k in kept):
            kept.append(n)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class _Secret:
    forms: tuple[str, ...]  # raw and JSON-escaped whole forms, longest first
    anchors: tuple[str, ...]  # every fragment contains one of these (cheap pre-check)
    fragments: tuple[str, ...]  # forms of every MIN_FRAGMENT_LEN-character substring
    encoded: tuple[str, ...]  # encodings: whole, and base64/base32 at each alignment
    probes: tuple[str, ...]  # every base64 needle contains one of these (cheap pre-check)
    folded: tuple[str, ...]  # lowercase; every other encoding, lowercased, contains one


def _secret(value: str) -> _Secret:
    n, step = MIN_FRAGMENT_LEN, MIN_FRAGMENT_LEN // 2
    grams = [value[i:i + n] for i in range(len(value) - n + 1)]
    # Any n-character window contains one of the n/2-character pieces starting at multiples of
    # n/2: so when none of those occurs, no fragment can, and the n-gram scan is skipped.
    anchors = {f for i in range(0, len(value) - step + 1, step)
               for f in _escaped(value[i:i + step])}
    fragments = {f for g in grams for f in _escaped(g)}
    raw = value.encode("utf-8")
    b64 = _base64_needles(raw)
    b32 = _aligned(raw, 5, 5, base64.b32encode)
    # Hex, base32 and %XX come in either case: one lowercase probe finds both in lowered text.
    other = (set(secret_forms(value)) | b32 | {t.lower() for t in b32}) - b64 - _escaped(value)
    return _Secret(tuple(sorted(_escaped(value), key=len, reverse=True)),
                   tuple(anchors) if grams else (),
                   tuple(sorted(fragments, key=len, reverse=True)),
                   tuple(sorted(b64 | other, key=len, reverse=True)), _probes(b64),
                   _probes(t.lower() for t in other))


class SecretValues:
    """A set of known secret values, removed from text in every form they can take."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._secrets: dict[str, _Secret] = {}
        self._encoded: dict[type, list[tuple[tuple[Any, ...], ...]]] = {}
        self.add(values)

    def add(self, values: Iterable[str]) -> None:
        """Register more values (too-short ones are ignored, see MIN_SECRET_LEN)."""
        for v in values:
            if isinstance(v, str) and len(v) >= MIN_SECRET_LEN and v not in self._secrets:
                self._secrets[v] = _secret(v)
                self._encoded.clear()

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def _table(self, kind: type) -> list[tuple[tuple[Any, ...], ...]]:
        table = self._encoded.get(kind)
        if table is None:
            def enc(xs: tuple[str, ...]) -> tuple[Any, ...]:
                return tuple(x.encode("utf-8") for x in xs) if kind is bytes else xs

            # Longest values first, so that a secret containing another is removed whole.
            ordered = sorted(self._secrets.values(), key=lambda s: -len(s.forms[0]))
            table = [(enc(s.forms), enc(s.anchors), enc(s.fragments), enc(s.encoded),
                      enc(s.probes), enc(s.folded)) for s in ordered]
            self._encoded[kind] = table
        return table

    def redact(self, data: AnyStr, marker: AnyStr) -> AnyStr:
        """Return `data` with every known secret, its encodings and long fragments replaced."""
        if not self._secrets:
            return data
        out: Any = data
        lowered: Any = None
        for forms, anchors, fragments, encoded, probes, folded in self._table(type(data)):
            # Every whole form and fragment holds an anchor, every encoding a probe: a scan
            # runs at memory speed, so a record without the secret costs a few scans.
            if not anchors or any(a in out for a in anchors):
                for form in forms:
                    if form in out:
                        out = out.replace(form, marker)
                out = _cut_fragments(out, fragments, marker)
                lowered = None
            if lowered is None:
                lowered = out.lower()  # one pass, then one scan per case-free probe
            if any(p in out for p in probes) or any(p in lowered for p in folded):
                for form in encoded:
                    if form in out:
                        out = out.replace(form, marker)
                lowered = None
        result: AnyStr = out
        return result


def _cut_fragments(data: Any, fragments: tuple[Any, ...], marker: Any) -> Any:
    """Replace every maximal run of data covered by occurrences of `fragments` with `marker`."""
    spans: list[tuple[int, int]] = []
    for frag in fragments:
        start = data.find(frag)
        while start >= 0:
            spans.append((start, start + len(frag)))
            start = data.find(frag, start + 1)
    if not spans:
        return data
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    backslash = _as("\\", data)
    out, pos = [], 0
    for a, b in merged:
        # Never split a JSON escape: a fragment starting right after a backslash keeps its
        # first character (the escaped one), so the result stays valid JSON.
        if a > 0 and data[a - 1:a] == backslash:
            a += 1
        if a >= b:
            continue
        out += [data[pos:a], marker]
        pos = b
    out.append(data[pos:])
    return marker[:0].join(out)


@functools.lru_cache(maxsize=64)
def secret_values(values: tuple[str, ...]) -> SecretValues:
    """Return a (cached) SecretValues of `values`, for callers that pass secrets per call."""
    return SecretValues(values)


def redactor(marker: str) -> Callable[[str, Iterable[str]], str]:
    """Return a function redacting text with `marker`: known secrets first, then patterns."""

    def redact(text: str, secrets: Iterable[str] = ()) -> str:
        values = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET_LEN}))
        return redact_patterns(secret_values(values).redact(text, marker), marker)

    return redact
