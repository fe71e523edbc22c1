"""A diagnose reading never rejects where the exact sign-flip test over task gaps could not.

Found (session 47): with 6 tasks whose gaps all had one sign, the task-cluster bootstrap's
difference p sat at its floor (2/2001); Holm over a family of 3 readings gave 0.003 and the
reading "behavioural failure", while the exact sign-flip p of 6 tasks is at least 2/64 =
0.03125, 0.094 after Holm over 3: no exact test could reject, and `agm stats compare --cluster
task` on the same rows (a family of 3) did not. The shipped examples/mutations.toml (6 tasks, a
family of 8) detected its positive control this way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.diagnose.metrics import diagnose_pairs
from agentmetrology.diagnose.pairs import Pair, Side
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.results import ComparisonRequest, build_comparison

KEY = EpisodeKey("c", "t", "task", 0, "clean", "L2", 0)
MUTATIONS = ("constraint", "format", "wording")


def _gap(i: int) -> float:
    return 0.3 + 0.01 * i  # every task's gap positive, no two alike


def _pairs(mutation: str, tasks: int) -> list[Pair]:
    return [Pair(("e", "a", "L2", mutation), f"task{i}", 0, 0, "clean",
                 Side(KEY, True, 1.0, 1.0, True, None, "", None, b"x"),
                 Side(KEY, True, 1.0 - _gap(i), 1.0, True, None, "", None, b"y"), campaign="c")
            for i in range(tasks)]


def _diagnosed(tasks: int) -> dict[str, dict[str, Any]]:
    pairs = [p for mutation in MUTATIONS for p in _pairs(mutation, tasks)]
    return {k[3]: m for k, m in diagnose_pairs(pairs, seed=0).items()}


def test_six_tasks_in_a_family_of_three_is_no_real_gap() -> None:
    for m in _diagnosed(6).values():
        paired = m["paired"]
        assert paired["sign_flip_p"] == pytest.approx(2 / 64)
        assert paired["bootstrap_difference_p"] == pytest.approx(2 / 2001)  # its floor
        # the difference p is the exact test's here, and Holm triples it
        assert paired["p_values"]["difference"] == pytest.approx(2 / 64)
        assert paired["holm"]["difference"] == pytest.approx(3 * 2 / 64)
        assert m["predicates"]["different"] is False
        assert m["reading"] == "inconclusive"


def test_ten_tasks_in_a_family_of_three_still_show_the_gap() -> None:
    # the exact test can reject here (3 x 2/1024 = 0.006): the fix costs no real finding
    for m in _diagnosed(10).values():
        assert m["paired"]["holm"]["difference"] < 0.05
        assert m["predicates"]["different"] is True
        assert m["reading"] == "behavioural failure"


@pytest.mark.parametrize("tasks", [6, 10])
def test_a_reading_agrees_with_stats_compare_on_the_exported_rows(tmp_path: Path,
                                                                  tasks: int) -> None:
    rows = ["condition,task,seed,score"]
    rows += [f"original,task{i},0,1.0" for i in range(tasks)]
    rows += [f"{mutation},task{i},0,{1.0 - _gap(i)!r}" for mutation in MUTATIONS
             for i in range(tasks)]
    path = tmp_path / "rows.csv"
    path.write_text("\n".join(rows) + "\n")
    doc = build_comparison(ComparisonRequest(
        source=str(path), group="condition", a="original", bs=MUTATIONS, values=("score",),
        pair_by=("task", "seed"), cluster="task"))
    compared = {c["b"]: c for c in doc["comparisons"]}
    for mutation, m in _diagnosed(tasks).items():
        assert m["predicates"]["different"] is compared[mutation]["holm_rejects"]
        assert m["paired"]["holm"]["difference"] == pytest.approx(compared[mutation]["p_holm"])


def test_the_mutations_example_has_the_tasks_its_family_needs() -> None:
    # examples/mutations.toml ran 6 tasks for 8 diagnosed groups: its positive control was
    # "detected" off the bootstrap p while the exact test's least Holm p was 8 x 2/64 = 0.25
    import tomllib

    plan = tomllib.loads((Path(__file__).parents[2] / "examples" / "mutations.toml").read_text())
    diagnosed = [m for m in plan["campaign"]["mutations"] if m != "repeat"]
    family = len(plan["targets"]) * len(plan["campaign"]["levels"]) * len(diagnosed)
    assert family * 2 / 2 ** len(plan["campaign"]["tasks"]) < 0.05
