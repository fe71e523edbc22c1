"""Run one census row in a child process: `python -m ... SPEC LIMIT TIMEOUT` prints its JSON.

Loading and probing happen here so a task that hangs or crashes takes only this process down;
anything the task prints is kept off stdout, whose last line is the row.
"""

from __future__ import annotations

import contextlib
import json
import sys

from agentmetrology.inspect_ext.audit.census import census_row
from agentmetrology.records.canonical import to_plain


def main(argv: list[str]) -> int:
    """Audit argv[0] with limit argv[1] (0: all) and per-call timeout argv[2]; print the row."""
    spec, limit, timeout = argv[0], int(argv[1]) or None, float(argv[2])
    with contextlib.redirect_stdout(sys.stderr):
        row = census_row(spec, limit, timeout)
    print(json.dumps(to_plain(row), sort_keys=True, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
