"""Reading TOML files users write (campaigns, experiment plans): one way to fail, with lines.

A file that cannot be read, a syntax error (with its line and column) and nesting too deep for
the parser all become a CampaignConfigError listing the problem, never a traceback.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from agentmetrology.edges import files
from agentmetrology.run.campaign.problems import CampaignConfigError, Problem

# A campaign or experiment plan is a few KB of TOML; 1 MiB is generous, and bounds the memory a
# mistaken path (a log, a multi-gigabyte file with no line break) can take before parsing.
MAX_TOML_BYTES = 1024 * 1024


def read_text(path: str | Path) -> tuple[str, str]:
    """Return (text, file name) of a UTF-8 file, or raise CampaignConfigError saying why not
    and what to do (give the .toml file, not a directory; save the file as UTF-8).

    Only a regular file of at most MAX_TOML_BYTES is read (a named pipe is refused at once).
    """
    p = Path(path)
    try:
        return files.read_text(p, MAX_TOML_BYTES), p.name
    except files.FileRefused as exc:
        # its message starts with the path, which the problem's rendering puts first already
        why = str(exc).removeprefix(f"{p}: ")
        raise CampaignConfigError(str(p), [Problem("", why)]) from None
    except IsADirectoryError:
        raise CampaignConfigError(str(p), [Problem(
            "", "is a directory: give the path of the .toml file")]) from None
    except FileNotFoundError:
        raise CampaignConfigError(str(p), [Problem("", "no such file: check the path")]) from None
    except OSError as exc:  # the path is the problem's prefix: only the reason, not `[Errno]`
        raise CampaignConfigError(str(p), [Problem(
            "", f"cannot read the file ({exc.strerror or exc}): check the path and its "
                "permissions")]) from None
    except UnicodeDecodeError as exc:
        raise CampaignConfigError(str(p), [_encoding_problem(exc)]) from None


def _encoding_problem(exc: UnicodeDecodeError) -> Problem:
    """Return the problem of a file that is not UTF-8, at the line and column of the bad byte."""
    before = exc.object[:exc.start]
    line = before.count(b"\n") + 1
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    return Problem("", f"byte 0x{exc.object[exc.start]:02x} is not UTF-8 text: save the file "
                       "as UTF-8", "error", line, column)


def parse_toml(text: str, file: str) -> dict[str, Any]:
    """Return the TOML document, or raise CampaignConfigError with the problem and its line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CampaignConfigError(file, [_syntax_problem(exc, text)]) from None
    except (RecursionError, MemoryError):
        # tomllib parses arrays and inline tables recursively: `a = [[[…]]]` nested thousands
        # deep exhausts the stack (or memory) before it can report a syntax error.
        raise CampaignConfigError(file, [Problem(
            "", "TOML nested too deeply (arrays or inline tables inside each other); a "
                "configuration file needs at most a few levels", "error",
            _nesting_line(text))]) from None


def _nesting_line(source: str) -> int | None:
    """Return the line where a long run of opening brackets starts (None if there is none)."""
    m = re.search(r"(?:[\[{][^\[{\]}\n]{0,8}){50}", source)
    return source.count("\n", 0, m.start()) + 1 if m else None


def _syntax_problem(exc: tomllib.TOMLDecodeError, source: str) -> Problem:
    msg = str(exc)
    m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
    if m is None:
        end = re.search(r"\(at end of document\)", msg)
        text = msg[:end.start()].strip() + " at the end of the file" if end else msg
        return Problem("", f"TOML syntax error: {text}", "error",
                       max(len(source.splitlines()), 1))
    text = msg[:m.start()].strip()
    return Problem("", f"TOML syntax error: {text}", "error", int(m.group(1)), int(m.group(2)))
