"""The reversible encodings a model may echo a key in, and a check that text no longer holds
it in any of them."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from urllib.parse import unquote_to_bytes


def encodings(secret: str) -> dict[str, str]:
    """Return {name: text}: the key base64'd (both alphabets) at every offset of a group, in
    base32 at every offset, base32 lower case, hex in both cases, and percent-encoded."""
    raw = secret.encode()
    out: dict[str, str] = {}
    for lead in (b"", b"a", b"ab"):  # "key=" + lead puts the key at offsets 1, 2, 0 of 3
        for name, fn in (("b64", base64.b64encode), ("b64url", base64.urlsafe_b64encode)):
            out[f"{name}+{len(lead)}"] = fn(b"key=" + lead + raw + b"; done").decode()
    for lead in (b"", b"a", b"ab", b"abc", b"abcd"):  # "k " + lead: every offset of 5
        out[f"b32+{len(lead)}"] = base64.b32encode(b"k " + lead + raw + b" .").decode()
    out["b32-lower"] = base64.b32encode(raw).decode().lower().rstrip("=")
    out["hex"], out["HEX"] = raw.hex(), raw.hex().upper()
    out["percent"] = "".join(f"%{b:02X}" for b in raw)
    out["percent-lower"] = "".join(f"%{b:02x}" for b in raw)
    return out


_DECODERS: tuple[Callable[[str], bytes], ...] = (
    lambda s: base64.b64decode(s + "=" * (-len(s) % 4)),
    lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4)),
    lambda s: base64.b32decode(s.upper() + "=" * (-len(s) % 8)),
    bytes.fromhex, unquote_to_bytes)


def holds_secret(text: str, secret: str) -> bool:
    """Return True if `text` (or it without up to 8 leading characters) decodes, in any of
    the encodings above, to bytes holding 12 characters of `secret`."""
    probes = [secret[i:i + 12].encode() for i in range(len(secret) - 11)]
    for cut in range(9):
        for decode in _DECODERS:
            try:
                data = decode(text[cut:])
            except (ValueError, binascii.Error):
                continue
            if any(p in data for p in probes):
                return True
    return False
