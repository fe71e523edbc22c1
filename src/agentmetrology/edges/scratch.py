"""A private temporary folder for third-party code that leaves temporary files behind.

inspect-evals' tau2 loads each domain database by inflating its `.json.gz` into a
`NamedTemporaryFile(delete=False)` it never removes: every tau2 world its tools initialise
(one per domain in a re-grade, one per sample in an Inspect run of a tau2 task) leaves a
7 MB (airline) or 2.8 MB copy in the system's temporary folder, and a machine that re-grades
or audits tau2 files fills its disk. `scratch_tempdir` points Python's temporary folder
(`tempfile.tempdir`, which `NamedTemporaryFile` and `mkstemp` read when given no `dir`) at a
fresh folder of its own while such code runs, and removes that folder, with whatever was left
in it, when the block ends, however it ends.

`tempfile.tempdir` is one setting for the whole process: while the block runs, temporary files
another thread makes land in the folder too and are removed with it. It is used only around
the calls above, which the commands run from one thread.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def scratch_tempdir(prefix: str = "agm-scratch-") -> Iterator[str]:
    """Point Python's temporary folder at a fresh folder while the block runs; remove it after."""
    folder = tempfile.mkdtemp(prefix=prefix)
    before = tempfile.tempdir
    tempfile.tempdir = folder
    try:
        yield folder
    finally:
        tempfile.tempdir = before
        shutil.rmtree(folder, ignore_errors=True)
