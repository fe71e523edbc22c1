"""Where a memo the tool keeps for the user lives: a folder of the user's cache, never a store.

`$XDG_CACHE_HOME/agentmetrology/NAME` (`~/.cache` without it); the memo's variable gives
another folder, and an empty value, or a word people write for "off" (`0`, `off`, `no`,
`false`, `none`), turns the memo off: `AGM_VERIFY_CACHE=0` had made a folder named `0` in the
working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

OFF_WORDS = frozenset({"", "0", "off", "no", "false", "none"})


def cache_dir(variable: str, name: str) -> Path | None:
    """Return the memo folder `variable` names (default: the user's cache folder `name`), or
    None when the variable turns the memo off."""
    env = os.environ.get(variable)
    if env is not None:
        return None if env.strip().lower() in OFF_WORDS else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentmetrology" / name
