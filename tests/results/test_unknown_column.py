"""An unknown column's error lists the columns there are, and says so when there are none."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.results import TableError, read_results


def test_rows_without_columns_say_so(tmp_path: Path) -> None:
    # '{}' is one row with no field: the error read "(columns: )"
    path = tmp_path / "obj.json"
    path.write_text("{}\n")
    with pytest.raises(TableError, match=r"unknown column 'f1' in .*obj\.json \(its rows have "
                                         r"no columns\)$"):
        read_results(str(path)).require(["f1"])


def test_a_long_column_list_says_how_many_it_leaves_out(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text(",".join(f"c{i:02d}" for i in range(35)) + "\n" + ",".join(["1"] * 35) + "\n")
    with pytest.raises(TableError, match=r"\(columns: c00, .*, c29, and 5 more\)$"):
        read_results(str(path)).require(["f1"])
