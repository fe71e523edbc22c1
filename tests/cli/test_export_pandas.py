"""`agm export --out F.parquet` never imports pandas (pyarrow's first conversion would), writes
the library's table, and leaves pandas importable afterwards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.run.export_write import export_store
from run.campaign import test_export_stream

pq = pytest.importorskip("pyarrow.parquet")
store = test_export_stream.store  # the realistic store (a fixture)

_RUN = """import sys
from agentmetrology.cli.main import main
sys.argv = ["agm", "export", sys.argv[1], "--out", sys.argv[2]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print("pandas" in sys.modules)"""

_AFTER = """import sys
from agentmetrology.cli.export_cmd import _pyarrow_without_pandas
import pyarrow
finders = list(sys.meta_path)
_pyarrow_without_pandas()
same = sys.meta_path == finders
import pandas
print(same, "pandas" in sys.modules)"""


def _python(code: str, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          check=True).stdout.split()


def test_a_parquet_export_does_without_pandas(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.parquet"
    assert _python(_RUN, str(store), str(out)) == ["False"]
    export_store(store, None, "parquet", tmp_path / "lib.parquet", force=False)
    assert out.read_bytes() == (tmp_path / "lib.parquet").read_bytes()
    assert pq.read_table(out).num_rows > 1000


def test_pandas_stays_importable() -> None:
    assert _python(_AFTER) == ["True", "True"]
