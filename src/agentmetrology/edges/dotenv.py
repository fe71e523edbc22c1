"""API keys from a `.env` file in the current directory, as most LLM tools read them.

Lines are `KEY=VALUE`, optionally prefixed by `export `; blank lines and `#` comments are
skipped; a value may be single- or double-quoted (no escapes inside single quotes; `\\n`, `\\"`
and `\\\\` inside double quotes); an unquoted value ends at ` #`. A variable already set in the
environment is never overridden. Values are never printed: an error names the line number only,
because the line may hold a key.
"""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping
from pathlib import Path

from agentmetrology.records.errors import UserError

DOTENV = ".env"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


class DotenvError(UserError):
    """A malformed `.env` line; the message names the file and line, never the value."""


def _unquote_double(body: str, where: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_DOUBLE_ESCAPES.get(body[i + 1], "\\" + body[i + 1]))
            i += 2
            continue
        if ch == '"':
            rest = body[i + 1:].strip()
            if rest and not rest.startswith("#"):
                raise DotenvError(f"{where}: text after the closing quote")
            return "".join(out)
        out.append(ch)
        i += 1
    raise DotenvError(f"{where}: unterminated double quote")


def _value(raw: str, where: str) -> str:
    raw = raw.strip()
    if raw.startswith('"'):
        return _unquote_double(raw[1:], where)
    if raw.startswith("'"):
        end = raw.find("'", 1)
        if end < 0:
            raise DotenvError(f"{where}: unterminated single quote")
        rest = raw[end + 1:].strip()
        if rest and not rest.startswith("#"):
            raise DotenvError(f"{where}: text after the closing quote")
        return raw[1:end]
    hash_at = raw.find(" #")
    return (raw if hash_at < 0 else raw[:hash_at]).rstrip()


def parse_dotenv(text: str, source: str = DOTENV) -> dict[str, str]:
    """Return the variables of `.env` text; DotenvError naming the first malformed line."""
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{source} line {number}"
        if stripped.startswith("export "):
            stripped = stripped[len("export "):].lstrip()
        name, eq, raw = stripped.partition("=")
        name = name.strip()
        if not eq:
            raise DotenvError(f"{where}: expected NAME=VALUE")
        if not _NAME.fullmatch(name):
            raise DotenvError(f"{where}: the variable name is not a valid name "
                              "(letters, digits and _, not starting with a digit)")
        out[name] = _value(raw, where)
    return out


def load_dotenv(directory: Path | None = None,
                environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Set the variables of `directory/.env` that are not set yet; return their names."""
    env = os.environ if environ is None else environ
    path = (directory or Path.cwd()) / DOTENV
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DotenvError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise DotenvError(f"{path}: cannot read ({exc.strerror or exc})") from None
    added = []
    for name, value in parse_dotenv(text, str(path)).items():
        if name not in env:  # the caller's environment wins, always
            env[name] = value
            added.append(name)
    return added
