"""benchmarks/README.md is the table benchmarks/table.py makes from the committed results."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from bench_scripts import load

ROOT = Path(__file__).resolve().parent.parent


def _table() -> ModuleType:
    return load("table")


def test_every_committed_result_is_read_and_the_readme_is_current() -> None:
    table = _table()
    rows = table.rows()
    unreadable = [r["benchmark"] + ": " + r["measure"] for r in rows
                  if r["measure"].startswith("unreadable result")]
    assert unreadable == []
    assert (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8") == table.render(rows)


def test_a_result_with_only_the_exports_steps_gives_only_those_steps() -> None:
    doc = {"machine": "x86_64", "cpus": 2, "python": "3.11.2", "exports": [], "audits": [],
           "where_time_goes": {"uptime": "up 1 day, load average: 0.5, 0.6, 0.7",
                               "export": {"rows_of_store": 20, "cpu_s": {"walk": 0.25}}}}
    rows = list(_table().SOURCES["export_audit_scale"](doc))
    assert [r["ours"] for r in rows] == ["0.25"]
    assert "20 episodes" in rows[0]["measure"] and "walk 0.25" in rows[0]["measure"]


def test_an_episode_rows_gap_is_the_paired_ratios_share_not_the_splits_alone() -> None:
    # The split (lower quartile of each part, summed) put this episode 2.5 µs above 1.5x its
    # floor while the paired rounds (whole calls) measured 1.91x: the gap follows the verdict.
    r = {"task": "T9_clean_ab", "rows": 75, "agent": "rule", "level": "L0",
         "episodes_per_s": 2863.2, "floor_per_s": 5486.0, "cost_vs_floor": 1.91,
         "cpu_us": {"episode_run_us": 271.3, "episode_score_us": 182.5,
                    "floor_generate_encode_us": 105.0, "floor_score_us": 195.9},
         "extra_us": {"scoring": 24.8}}
    gap = _table()._episode_gap(r)
    assert "would cost 21% less (about 97.4 of its 453.8 split µs" in gap
    assert "the split alone puts it at 1.51x" in gap and "scoring 24.8" in gap
    assert _table()._episode_gap({**r, "cost_vs_floor": 1.5}) == ""


def test_an_audit_without_an_older_tree_at_its_size_gets_no_verdict() -> None:
    # A million-episode audit measured alone is not set against another run's figure taken at
    # 50,400 episodes: the goal's verdict stays with the rows that ran the older tree beside it.
    run = {"episodes": 1_028_400, "wall_s": 262.6, "cpu_s": 427.0, "peak_rss_mib": 4402.9,
           "kib_per_episode": 4.35, "ms_per_episode": 0.255, "load": "1.95 2.17 1.33",
           "processes": 1}
    doc = {"machine": "x86_64", "cpus": 2, "python": "3.11.2", "exports": [],
           "audits": [{"store_episodes": 1_000_000, "this": run, "goal_x": 10.0}]}
    rows = list(_table().SOURCES["export_audit_scale"](doc))
    assert [(r["ours"], r["peer"], r["ratio"]) for r in rows] == [("0.26", "—", "—")]
    assert "no older tree measured at this size" in rows[0]["goal"]
    assert "met" not in rows[0]["goal"]
