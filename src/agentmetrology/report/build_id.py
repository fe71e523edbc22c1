"""The build of agm that wrote a report: its package version and a digest of its code.

Every report `agm evidence qualify --recompute` derives again (archive.json, regrade.json,
diagnose.json, experiment.json) records the build that wrote it in its `build` field, so a
recomputation by another build is told apart from an edit (report.recompute).

The version alone does not tell builds apart (0.1.0 in every build so far). The code digest is
the sha256 over every file of the agentmetrology package as loaded (its path relative to the
package, its size and its bytes, in path order), compiled bytecode (`__pycache__`, `.pyc`) left
out. The whole package, not the modules of one analysis: a report's numbers rest on the
environments and scorers a registry loads by name, the statistics, the store's reader and the
renderers, which no static list of one analysis's imports names; a module left out would let
two builds whose numbers differ read as the same build, and an honest report read as edited
again. So any change to the package (a comment included) is another build. Environments added
by a third-party plug-in are not covered. The same code gives the same digest, so a report
stays byte-identical run to run.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Any

import agentmetrology
from agentmetrology import __version__

BUILD = "build"  # the report's field
_HEX = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[0-9A-Za-z.+!_-]{1,40}")  # a version as packaging writes one
_BYTECODE = (".pyc", ".pyo")


def code_digest(root: Path) -> str:
    """Return the sha256 over every file below `root` (relative path, size and bytes, in path
    order), compiled bytecode left out."""
    files = []
    for top, dirs, names in os.walk(root):  # (not Path.rglob: 4x the time on the package)
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(top, root).replace(os.sep, "/")
        prefix = "" if rel == "." else rel + "/"
        for n in names:
            path = os.path.join(top, n)
            if not n.endswith(_BYTECODE) and os.path.isfile(path):
                files.append((prefix + n, path))
    files.sort()
    h = hashlib.sha256()
    for name, path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@functools.cache
def this_build() -> dict[str, str]:
    """Return this build: the package version and the digest of its code (computed once)."""
    return {"version": __version__,
            "code_sha256": code_digest(Path(agentmetrology.__file__).parent)}


def with_build(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the report `doc` with this build recorded in it."""
    return {**doc, BUILD: this_build()}


def build_of(doc: dict[str, Any]) -> dict[str, str] | None:
    """Return the build a report records, None when it records none in agm's form (a report
    written before builds were recorded, or an edited field)."""
    build = doc.get(BUILD)
    if (isinstance(build, dict) and set(build) == {"version", "code_sha256"}
            and isinstance(build["version"], str) and isinstance(build["code_sha256"], str)
            and _VERSION.fullmatch(build["version"]) and _HEX.fullmatch(build["code_sha256"])):
        return {"version": build["version"], "code_sha256": build["code_sha256"]}
    return None


def build_name(build: dict[str, str] | None) -> str:
    """Return a build in words: `agm 0.1.0 (code 1a2b3c4d5e6f)`, or that it is unknown."""
    if build is None:
        return "an unknown build (the report records none)"
    return f"agm {build['version']} (code {build['code_sha256'][:12]})"
