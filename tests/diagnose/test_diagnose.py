"""`agm diagnose`: pairs from a store, gaps before and after rescoring, and the readings."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.diagnose.metrics import group_metrics, reading
from agentmetrology.diagnose.pairs import Pair, Side
from agentmetrology.records.episode import EpisodeKey
from support.agm_runs import agm
from support.stores import record_campaign

# Eight tasks. Six are the fewest a reading is given from (diagnose.readings.MIN_TASKS), but the
# diagnosed family here is 4 groups, and Holm lets the exact sign-flip test over task gaps
# reject only when 4 x 2 / 2**n < 0.05: from 7 tasks (at 6, 4 x 2/64 = 0.125, and rule's gap
# was read "behavioural failure" off the bootstrap p alone).
TASKS = """["T2_multi_page", "T3_duplicates", "T4_rate_limit_429", "T5_server_error_500",
         "T6_page_drift", "T7_totals_trap", "T8_mixed_faults", "T10_constrained_budget"]"""
CAMPAIGN = f"""
[campaign]
name = "diag"
tasks = {TASKS}
seeds = "0-1"
levels = ["L2"]
mutations = ["alias", "misleading", "repeat"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
"""


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("diag")
    record_campaign(root, CAMPAIGN)
    res = CliRunner().invoke(app, ["diagnose", str(root / "store"), "--out", str(root / "out")])
    assert res.exit_code == 0, res.stderr
    assert "positive control (misleading): detected" in res.stdout
    (root / "stdout.txt").write_text(res.stdout)
    return root, json.loads((root / "out" / "diagnose.json").read_text())


def test_pairs_are_complete_and_counted(diagnosed: tuple[Path, dict]) -> None:
    _, doc = diagnosed
    # 2 targets x 8 tasks x 2 seeds x 3 mutations, every original recorded once
    assert doc["pairs"] == {"total": 96, "complete": 96, "half_finished": 0, "unmeasured": 0}


def test_readings(diagnosed: tuple[Path, dict]) -> None:
    _, doc = diagnosed
    careful = doc["readings"]["comtrade|careful|L2"]
    rule = doc["readings"]["comtrade|rule|L2"]
    assert careful == {"alias": "robust", "misleading": "robust", "repeat": "repeat control"}
    assert rule["alias"] == rule["misleading"] == "behavioural failure"
    g = doc["groups"]["comtrade|rule|L2|alias"]
    assert g["msr"] == 0.0 and g["mtr"] == 0.0 and g["behaviour_changed"] == 1.0
    assert g["vrg"]["interval"][0] > 0  # the gap's interval excludes 0
    assert g["rescored_gap"]["value"] == g["vrg"]["value"]  # rescoring cannot fix behaviour
    assert doc["positive_control"] == {
        "status": "detected", "targets": ["rule"],
        "why": "the gap's interval excludes 0 for these targets"}


def test_the_repeat_control_has_no_gap_and_no_flips(diagnosed: tuple[Path, dict]) -> None:
    _, doc = diagnosed
    for target in ("rule", "careful"):
        g = doc["groups"][f"comtrade|{target}|L2|repeat"]
        assert g["vrg"]["value"] == 0.0 and g["behaviour_changed"] == 0.0
    flips = doc["groups"]["comtrade|rule|L2|alias"]["excess_flip_rate"]
    assert flips["rerun_rate"] == 0.0 and flips["condition_rate"] == 1.0


def test_reports_are_written_and_deterministic(diagnosed: tuple[Path, dict]) -> None:
    root, doc = diagnosed
    html = (root / "out" / "report.html").read_text()
    assert "Which reading holds" in html and "<svg" in html and "<script" not in html
    assert "behavioural failure" in (root / "out" / "report.md").read_text()
    again = CliRunner().invoke(app, ["diagnose", str(root / "store"), "--out",
                                     str(root / "again"), "--json"])
    assert json.loads(again.stdout)["digest"] == doc["digest"]


def test_a_store_without_mutations_is_a_user_error(tmp_path: Path) -> None:
    record_campaign(tmp_path, CAMPAIGN.replace('mutations = ["alias", "misleading", "repeat"]',
                                              ""), "s")
    res = agm("diagnose", str(tmp_path / "s"), "--out", str(tmp_path / "o"))  # through main()
    assert res.returncode == 2 and "no mutated administrations" in res.stderr


def _pair(task: str, o: float, m: float, r: float, same_ops: bool = True) -> Pair:
    key = EpisodeKey("c", "t", task, 0, "mut:alias", "L2", 0)
    ops = b"x"
    return Pair(("e", "t", "L2", "alias"), task, 0, 0, "clean",
                Side(key, True, o, 1.0, True, o, "", None, ops),
                Side(key, True, m, 1.0, True, r, "", None, ops if same_ops else b"y"))


def test_a_gap_that_rescoring_closes_is_evaluator_sensitivity() -> None:
    pairs = [_pair(f"task{i}", 1.0, 0.4, 1.0) for i in range(6)]
    m = group_metrics(pairs, seed=0)
    assert m["vrg"]["value"] == pytest.approx(0.6) and m["rescored_gap"]["value"] == 0.0
    assert reading(m, "alias")[0] == "evaluator sensitivity"


def test_failing_in_both_conditions_is_not_robustness() -> None:
    pairs = [_pair(f"task{i}", 0.1, 0.1, 0.1) for i in range(6)]
    m = group_metrics(pairs, seed=0)
    assert m["msr"] == 0.0 and m["mtr"] is None  # undefined, never 0, when no original passes
    assert reading(m, "alias")[0] == "fails regardless"


def test_half_finished_pairs_are_counted_not_scored() -> None:
    p = _pair("task0", 1.0, 1.0, 1.0)
    half = Pair(p.group, "task1", 0, 0, "clean", None, p.mutated)
    m = group_metrics([p, half], seed=0)
    assert (m["pairs"], m["complete"], m["half_finished"]) == (2, 1, 1)


def test_the_report_gives_every_reading_its_n_and_its_stability(
        diagnosed: tuple[Path, dict]) -> None:
    from copy import deepcopy

    from agentmetrology.report.diagnose_report import render_diagnose_report

    _, doc = diagnosed
    md, _ = render_diagnose_report(doc)
    assert "| `careful` | `comtrade` | L2 | 8 | alias: robust;" in md  # n once per policy
    assert "Holm-adjusted over one family of 4 tests each" in md
    assert "Readings across pass thresholds" in md
    doc = deepcopy(doc)
    g = doc["groups"]["comtrade|rule|L2|alias"]
    g["tasks"], g["stability"] = 2, "unstable across thresholds"
    g["verdict"].update(verdict="insufficient evidence", sufficient=False,
                        text="insufficient evidence (n = 2 tasks, needs 6)")
    md, _ = render_diagnose_report(doc)
    assert ("| `rule` | `comtrade` | L2 | varies | alias: insufficient evidence (n = 2 tasks, "
            "needs 6), unstable across thresholds;") in md


def test_every_printed_reading_carries_its_n(diagnosed: tuple[Path, dict]) -> None:
    root, doc = diagnosed
    for g in doc["groups"].values():  # diagnose.json: every reading is a verdict with its n
        v = g["verdict"]
        assert (v["n"], v["counted"]) == (g["tasks"], "tasks") and v["minimum"] in (0, 6)
        assert v["text"] == f"{g['reading']} (n = {g['tasks']} tasks)"
    out = " ".join((root / "stdout.txt").read_text().split())  # the terminal table
    assert "reading (n)" in out
    assert out.count("(n = 8 tasks)") == len(doc["groups"]) == 6
    md = (root / "out" / "report.md").read_text()
    assert "| `rule` | `alias` | 8 | behavioural failure (MSR" in md  # the sweep says its n
    assert "behavioural failure (n = 8 tasks) |" in md  # the metrics table's reading column


def test_eight_tasks_keep_every_interval(diagnosed: tuple[Path, dict]) -> None:
    root, doc = diagnosed
    md = (root / "out" / "report.md").read_text()
    assert "no interval" not in md and "no interval" not in (root / "stdout.txt").read_text()
    g = doc["groups"]["comtrade|rule|L2|alias"]
    for est in (g["vrg"], g["rescored_gap"], g["excess_flip_rate"], g["paired"]["difference"]):
        assert est["interval"] is not None and "interval_note" not in est


@pytest.fixture(scope="module")
def two_tasks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The campaign on 2 tasks, diagnosed: (its root, with out/ and stdout.txt; diagnose.json)."""
    root = tmp_path_factory.mktemp("two")
    record_campaign(root, CAMPAIGN.replace(TASKS, '["T3_duplicates", "T4_rate_limit_429"]'))
    res = CliRunner().invoke(app, ["diagnose", str(root / "store"), "--out", str(root / "out")],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.stderr
    (root / "stdout.txt").write_text(res.stdout)
    return root, json.loads((root / "out" / "diagnose.json").read_text())


def test_a_positive_control_read_on_too_few_tasks_is_insufficient_not_missed(
        two_tasks: tuple[Path, dict]) -> None:
    # 2 tasks: the misleading reading is withheld (and rule's gap has no interval: a bootstrap
    # over 2 tasks gave [0.92, 0.97], the two task means), so the control is neither detected
    # nor missed (it said "not detected: no target's gap interval excludes 0" beside it).
    root, doc = two_tasks
    rule = doc["groups"]["comtrade|rule|L2|misleading"]
    assert rule["vrg"]["interval"] is None and rule["reading"] == "insufficient evidence"
    assert doc["positive_control"] == {
        "status": "insufficient evidence", "targets": [],
        "why": "the misleading reading is withheld for careful (insufficient evidence (n = 2 "
               "tasks, needs 6)), rule (insufficient evidence (n = 2 tasks, needs 6))"}
    assert "positive control (misleading): insufficient evidence" in \
        (root / "stdout.txt").read_text()


TWO = ("no interval: 2 clusters; a bootstrap over 2 clusters has 3 distinct resamples, an "
       "interval needs at least 3 clusters")


def test_two_tasks_have_no_interval_and_the_json_says_why(two_tasks: tuple[Path, dict]) -> None:
    # A bootstrap over 2 tasks has 3 distinct resamples: diagnose.json had the VRG and rescored
    # gap [0.950, 0.980] (the two task means), the excess flip rate [1.0, 1.0], and labelled the
    # gap "different" with a bootstrap p of 2/2001.
    g = two_tasks[1]["groups"]["comtrade|rule|L2|alias"]
    for est in (g["vrg"], g["rescored_gap"], g["paired"]["difference"],
                g["paired"]["equivalence"]):
        assert est["interval"] is None and est["interval_note"] == TWO
    assert g["paired"]["equivalence"]["label"] == "insufficient evidence"
    assert g["paired"]["p_values"] == {"difference": None, "equivalence": None}
    assert g["excess_flip_rate"]["interval"] is None
    assert g["excess_flip_rate"]["interval_note"].startswith(
        "no interval: 2 clusters of condition units, 2 clusters of rerun units;")
    assert (g["verdict"]["interval"], g["verdict"]["confidence"]) == (None, None)
    assert g["predicates"]["rescoring_closes"] is None
    assert g["untested"]["rescoring_closes"] == f"not read: the rescored gap has {TWO}"


def test_two_tasks_print_no_interval_in_the_reports(two_tasks: tuple[Path, dict]) -> None:
    md = (two_tasks[0] / "out" / "report.md").read_text()
    html = (two_tasks[0] / "out" / "report.html").read_text()
    assert ("| `rule` | `alias` | 4 | 0.965 (no interval) | 0.965 (no interval) | 0.000 | "
            "0.000 | 1.000 | n/a | 1.000 (no interval) | insufficient (n = 2 tasks) |") in md
    assert "[0.950, 0.980]" not in md and "[1.000, 1.000]" not in md
    said = ("no interval: fewer than 3 tasks, whose task-cluster bootstrap has at most 3 "
            "distinct resamples")
    assert said in md and said in html
    assert "A dot without a line has no interval" in html
    for colour in ("#c0392b", "#2e86c1"):  # the gap figure draws no interval line
        assert f'stroke="{colour}"' not in html


def test_a_missed_positive_control_names_the_readings_not_a_false_interval() -> None:
    from agentmetrology.diagnose.run import positive_control

    def group(target: str, reading: str, interval: list[float]) -> dict:
        return {"mutation": "misleading", "target": target, "policy": target, "reading": reading,
                "vrg": {"value": 0.3, "interval": interval},
                "verdict": {"sufficient": True, "text": f"{reading} (n = 5 tasks)"}}

    # a gap whose interval excludes 0, read as fails regardless: not a detection, and the
    # why must not claim that no interval excludes 0
    missed = positive_control({"a": group("shortcut", "fails regardless", [0.2, 0.4])})
    assert missed == {"status": "not detected", "targets": [],
                      "why": "no target reads as a behavioural failure whose gap interval "
                             "excludes 0 (shortcut: fails regardless): the pipeline may be "
                             "blind to a real effect"}
    # a behavioural failure whose printed interval covers 0 is not a detection either
    assert positive_control({"a": group("x", "behavioural failure", [-0.1, 0.4])})[
        "status"] == "not detected"
    assert positive_control({"a": group("x", "behavioural failure", [-0.4, -0.1])})[
        "targets"] == ["x"]


def test_a_policy_at_two_levels_is_two_rows_that_say_their_level(tmp_path: Path) -> None:
    # rule at L1 (the harness keeps the tool names: robust) and at L2 (behavioural failure)
    # printed as two rows "rule | alias" with opposite readings and no level anywhere beside
    # them, in the terminal table, every report table and the positive control's targets.
    toml = CAMPAIGN.replace('levels = ["L2"]', 'levels = ["L1", "L2"]').replace(
        'seeds = "0-1"', "seeds = [0]").replace('"alias", "misleading", "repeat"',
                                                '"alias", "misleading"')
    toml = toml[:toml.index("[[targets]]\nname = \"careful\"")]
    store = record_campaign(tmp_path, toml)
    res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "out")],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "out" / "diagnose.json").read_text())
    assert {k: (g["policy"], g["reading"]) for k, g in doc["groups"].items()} == {
        "comtrade|rule|L1|alias": ("rule (L1)", "robust"),
        "comtrade|rule|L1|misleading": ("rule (L1)", "robust"),
        "comtrade|rule|L2|alias": ("rule (L2)", "behavioural failure"),
        "comtrade|rule|L2|misleading": ("rule (L2)", "behavioural failure")}
    assert doc["positive_control"]["targets"] == ["rule (L2)"]
    rows = [line for line in res.stdout.splitlines() if "alias" in line]
    assert [line.split("│")[1].strip() for line in rows] == ["rule (L1)", "rule (L2)"]
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.count("| `rule (L2)` | `alias` |") == 3  # metrics, predicates, sweep
    assert "- `rule (L1)` under `alias`: robust (n = 8 tasks)" in md


def test_policy_labels_add_environment_and_level_only_when_the_store_has_several() -> None:
    from agentmetrology.diagnose.run import policy_labels

    one = ("comtrade", "rule", "L2", "alias")
    assert policy_labels([one]) == {one: "rule"}
    keys = [one, ("researchops", "rule", "L2", "alias"), ("researchops", "rule", "L1", "alias")]
    assert list(policy_labels(keys).values()) == [
        "rule (comtrade, L2)", "rule (researchops, L2)", "rule (researchops, L1)"]


def test_the_report_says_what_ptd_rests_on_and_prints_the_excess_flip_rate(
        tmp_path: Path) -> None:
    # PTD averages only the pairs that report a proxy reward (1 of 3 here: hack_1) and was
    # printed as a bare number beside "pairs 3"; the excess flip rate was in diagnose.json only.
    toml = CAMPAIGN.replace('name = "diag"', 'name = "ptd"\nenvironment = "researchops"').replace(
        TASKS, '["lr_1", "lr_2", "hack_1"]').replace('seeds = "0-1"', "seeds = [0]").replace(
        '"alias", "misleading", "repeat"', '"alias", "repeat"')
    careful = toml.index('[[targets]]\nname = "careful"')
    store = record_campaign(tmp_path, toml[:toml.index("[[targets]]")] + toml[careful:])
    res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "out" / "diagnose.json").read_text())
    alias = doc["groups"]["researchops|careful|L2|alias"]
    assert (alias["complete"], alias["ptd_pairs"], alias["ptd"]) == (3, 1, -0.3456)
    flips = alias["excess_flip_rate"]
    assert (flips["condition_rate"], flips["rerun_rate"]) == (2 / 3, 0.0)
    md = (tmp_path / "out" / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| `careful` | `alias` | 3 |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[8:10] == ["-0.346 (1 of 3 pairs; the others report no P)",
                           "0.667 [0.000, 1.000]"]
    assert "| PTD | excess flips [CI] |" in md
