"""Experiment plans (TOML): hypothesis, arms or doses, targets, outcome, scorer, n, rule.

Everything is validated before anything runs and every problem is reported at once with its
location (the campaign file checker). The frozen form of a plan is `plan.doc()`: every field
with its default resolved, so a plan that spells a default out equals one that leaves it out.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.names import repeated
from agentmetrology.run.campaign.problems import CampaignConfigError, Checker
from agentmetrology.run.campaign.spec import TargetSpec
from agentmetrology.run.campaign.targets import check_agent
from agentmetrology.run.campaign.toml_files import parse_toml, read_text
from agentmetrology.run.episode import canonical_condition

KINDS = ("ab", "curve", "dose")
# Outcome metrics are read from the default environment's (ComtradeBench's) ground truth.
ENVIRONMENTS = (DEFAULT_ENVIRONMENT,)
METRICS = ("coverage", "f1")  # coverage = recall of ground_truth_f1; f1 = its score
GROUND_TRUTH = "ground_truth_f1"
DEFAULT_ARMS = ("stress:escalating", "stress:constant")
DEFAULT_DOSES = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_SLACKS = (0, 1, 2, 4)  # a dose plan's slack values (the B2 design's dose response)
MAX_SLACK = 64
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,59}"
KEYS = ("name", "hypothesis", "kind", "environment", "task", "arms", "doses", "targets",
        "calibration", "levels", "metrics", "scorer", "n", "repeats", "power_effect",
        "analysis_seed", "registration", "quota", "slacks")
RULE = ("confirmed iff the paired bootstrap 95% CI of delta lies above 0 and the Holm-adjusted "
        "sign-flip p < 0.05; delta = arm - arms[0] for every later arm (ab) or lowest dose - "
        "highest dose (curve), paired by seed; Holm over the arms and scorers of one target "
        "and level")
# A dose plan's rule: its own text, so that the frozen form of every ab and curve plan (and
# with it their digests and registrations) stays what it was.
DOSE_RULE = ("confirmed iff the paired bootstrap 95% CI of delta lies above 0 and the "
             "Holm-adjusted sign-flip p < 0.05; delta = arms[1] - arms[0] at each slack, paired "
             "by seed; Holm over the slacks and scorers of one target and level")
ALPHA = 0.05
DEFAULT_POWER_EFFECT = 0.5  # standardized paired effect (mean delta / sd of delta)


@dataclass(frozen=True, slots=True)
class ExperimentPlan:
    """A validated experiment plan (see docs/experiments.md)."""

    name: str
    hypothesis: str
    kind: str
    environment: str
    task: str
    # canonical conditions; a curve: one per dose in dose order; a dose plan: per slack in
    # order, the baseline arm then the compared arm at that slack
    arms: tuple[str, ...]
    doses: tuple[float, ...]  # curve: the doses; dose: the slacks (ints); empty for ab
    targets: tuple[str, ...]  # model-free agent names
    calibration: dict[str, tuple[str, ...]]  # fixed rule -> the plan's levels it acts at
    levels: tuple[str, ...]
    metrics: dict[str, str]  # level -> coverage | f1
    scorer: str  # the designated scorer, reported beside ground truth
    n: int
    repeats: int  # 2: a rerun of every episode, for the excess flip rate
    power_effect: float  # the standardized effect the plan's power is stated for
    analysis_seed: int
    new_registration: bool = False
    file: str = "plan.toml"
    warnings: tuple[str, ...] = ()  # checker warnings (not part of the frozen plan)

    def doc(self) -> dict[str, Any]:
        """Return the frozen plan: every field that defines the experiment (defaults resolved)."""
        return {"name": self.name, "hypothesis": self.hypothesis, "kind": self.kind,
                "environment": self.environment, "task": self.task, "arms": list(self.arms),
                "doses": list(self.doses), "targets": list(self.targets),
                "calibration": {k: list(v) for k, v in self.calibration.items()},
                "levels": list(self.levels), "metrics": dict(sorted(self.metrics.items())),
                "scorer": self.scorer, "n": self.n, "repeats": self.repeats,
                "power_effect": self.power_effect, "analysis_seed": self.analysis_seed,
                "decision_rule": DOSE_RULE if self.kind == "dose" else RULE}

    @property
    def digest(self) -> str:
        """Return the sha256 of the frozen plan's canonical JSON."""
        return plan_digest(self.doc())

    @property
    def seeds(self) -> tuple[int, ...]:
        """Return the planned seeds 0 .. n-1."""
        return tuple(range(self.n))


def plan_digest(doc: dict[str, Any]) -> str:
    """Return the sha256 of a frozen plan document's canonical JSON."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def changed_fields(frozen: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Return the plan fields (`experiment.KEY`) whose values differ, in key order."""
    keys = sorted(set(frozen) | set(now))
    return [f"experiment.{k}" for k in keys if frozen.get(k) != now.get(k)]


def load_plan(path: str | Path) -> ExperimentPlan:
    """Read and validate a plan file; raise CampaignConfigError listing every problem."""
    text, name = read_text(path)
    return parse_plan(text, name)


def parse_plan(text: str, file: str = "plan.toml") -> ExperimentPlan:
    """Parse and validate plan TOML text; raise CampaignConfigError listing every problem."""
    data = parse_toml(text, file)
    ck = Checker(text)
    plan = _read(ck, data, file)
    if ck.errors or plan is None:
        ordered = sorted(ck.problems, key=lambda p: p.line if p.line is not None else 0)
        raise CampaignConfigError(file, ordered)
    return plan


def _read(ck: Checker, data: dict[str, Any], file: str) -> ExperimentPlan | None:
    ck.keys(data, "", ("experiment",))
    t = ck.table(data, "experiment", "", required=True)
    w = "experiment"
    ck.keys(t, w, KEYS)
    name = ck.string(t, "name", w, required=True, pattern=NAME_PATTERN,
                     what="experiment name (letters, digits, _ -; at most 60)")
    hypothesis = ck.string(t, "hypothesis", w, required=True)
    if hypothesis is not None and not hypothesis.strip():
        ck.error(f"{w}.hypothesis", "must not be empty")
    kind = ck.string(t, "kind", w, required=True, choices=KINDS)
    env_name = ck.string(t, "environment", w, default=DEFAULT_ENVIRONMENT,
                        choices=ENVIRONMENTS)
    env = get_env(env_name or DEFAULT_ENVIRONMENT)
    task = ck.string(t, "task", w, default="T9_clean_ab", choices=env.tasks)
    arms, doses = _arms(ck, t, kind, env)
    levels = ck.strings(t, "levels", w, default=["L1", "L2"])
    for lv in levels:
        if lv not in env.levels:
            ck.error(f"{w}.levels", f"unknown level {lv!r} (known: {', '.join(env.levels)})")
    targets = ck.strings(t, "targets", w, required=True)
    for agent in targets:
        kind_of = "scripted" if agent.startswith("scripted:") else "rule"
        check_agent(ck, f"{w}.targets", TargetSpec(agent, kind_of, agent), tuple(levels), env,
                    in_plan=True)
    calibration = _calibration(ck, t, targets, levels, env)
    metrics = _metrics(ck, t, levels)
    scorers = [s.name for s in env.scorers if s.name != GROUND_TRUTH]
    scorer = ck.string(t, "scorer", w, default="shape_judge", choices=scorers,
                       what="designated scorer")
    n = ck.integer(t, "n", w, default=20, minimum=2, maximum=10_000)
    repeats = ck.integer(t, "repeats", w, default=1, minimum=1, maximum=2)
    effect = ck.number(t, "power_effect", w, default=DEFAULT_POWER_EFFECT, minimum=0.01,
                       maximum=10.0)
    seed = ck.integer(t, "analysis_seed", w, default=0, minimum=0, maximum=2**63 - 1)
    registration = ck.string(t, "registration", w, choices=("new",), what="registration")
    if n is not None and kind is not None and not ck.errors:
        comparisons = {"ab": len(arms) - 1, "dose": len(doses)}.get(kind, 1)
        _check_rule_can_confirm(ck, n, comparisons)
    if ck.errors or None in (name, hypothesis, kind, task, scorer, n, repeats, effect, seed):
        return None
    return ExperimentPlan(str(name), str(hypothesis), str(kind), str(env_name), str(task),
                          tuple(arms), tuple(doses), tuple(targets), calibration, tuple(levels),
                          metrics, str(scorer), int(n or 0), int(repeats or 1),
                          float(effect or DEFAULT_POWER_EFFECT), int(seed or 0),
                          registration == "new", file,
                          tuple(p.render(file) for p in ck.problems if p.severity == "warning"))


def smallest_holm_p(n: int, comparisons: int) -> float:
    """Return the smallest Holm-adjusted sign-flip p the rule can reach with n pairs.

    The family is `comparisons` arms x 2 scorers. Up to 20 pairs the sign-flip test is exact,
    so its p is at least 2 / 2^n (every delta of one sign); above 20 it is Monte-Carlo and
    can come as low as 1 / 100001.
    """
    p = 2.0 / 2**n if n <= 20 else 1.0 / 100_001
    return min(1.0, 2 * comparisons * p)


def _check_rule_can_confirm(ck: Checker, n: int, comparisons: int) -> None:
    # A rule that can never confirm is a design flaw: say so when the plan is written.
    p = smallest_holm_p(n, comparisons)
    if p >= ALPHA:
        need = next(k for k in range(n, 64) if smallest_holm_p(k, comparisons) < ALPHA)
        ck.warn("experiment.n", f"with n = {n} the smallest Holm-adjusted sign-flip p is "
                f"{p:.4g} >= {ALPHA}: the decision rule can never confirm (n >= {need} can)")


def _calibration(ck: Checker, t: dict[str, Any], targets: list[str], levels: list[str],
                 env: Any) -> dict[str, tuple[str, ...]]:
    """Return the calibration rules, each with the plan levels it can act at."""
    w = "experiment.calibration"
    out: dict[str, tuple[str, ...]] = {}
    for agent in ck.strings(t, "calibration", "experiment", default=[]):
        if agent in targets:
            ck.error(w, f"{agent!r} is a target already; a calibration rule runs beside them")
            continue
        if agent not in env.agents or agent.startswith("scripted:"):
            known = [a for a in env.agents if not a.startswith("scripted:")]
            ck.error(w, f"unknown rule agent {agent!r} (known: {', '.join(known)})")
            continue
        acts = tuple(lv for lv in levels if lv in env.agents[agent]().levels)
        if not acts:
            ck.error(w, f"rule {agent!r} acts only at "
                        f"{', '.join(env.agents[agent]().levels)}, which the plan does not run")
            continue
        out[agent] = acts
    return out


def _arms(ck: Checker, t: dict[str, Any], kind: str | None,
          env: Any) -> tuple[list[str], list[float]]:
    w = "experiment"
    if kind != "dose" and "slacks" in t:
        ck.error(f"{w}.slacks", "only a dose plan lists `slacks`")
    if kind == "dose":
        return _dose_arms(ck, t, env)
    if kind == "curve":
        if "arms" in t:
            ck.error(f"{w}.arms", "a curve plan lists `doses`, not `arms`")
        raw = t.get("doses", list(DEFAULT_DOSES))
        if not isinstance(raw, list) or not all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in raw):
            ck.error(f"{w}.doses", "expected a list of numbers in [0, 1]")
            return [], []
        doses = [float(x) for x in raw]
        bad = [x for x in doses if not 0.0 <= x <= 1.0]
        if bad:
            ck.error(f"{w}.doses", f"doses must lie in [0, 1], got {', '.join(map(str, bad))}")
        if len(set(doses)) != len(doses):
            ck.error(f"{w}.doses", "duplicate doses")
        if len(doses) < 2:
            ck.error(f"{w}.doses", "a curve needs at least 2 doses")
        if bad or len(set(doses)) != len(doses):
            return [], []
        doses.sort()
        # `quota = true`: B2's quota-enforced instrument (budget 8, no squeeze) at each dose.
        quota = t.get("quota", False)
        if not isinstance(quota, bool):
            ck.error(f"{w}.quota", "expected true or false")
            return [], []
        prefix = "stress:quota:dose=" if quota else "stress:dose="
        return [canonical_condition(env, f"{prefix}{x}") for x in doses], doses
    if "doses" in t:
        ck.error(f"{w}.doses", "an ab plan lists `arms`, not `doses`")
    arms = ck.strings(t, "arms", w, default=list(DEFAULT_ARMS))
    if len(arms) < 2:
        ck.error(f"{w}.arms", f"an ab plan has at least 2 arms (baseline first), got {len(arms)}")
    out = []
    for a in arms:
        try:
            out.append(canonical_condition(env, a))
        except ValueError as exc:
            ck.error(f"{w}.arms", str(exc))
    twice = repeated(out)
    if twice:
        # An arm compared with itself gives delta 0 by construction: the rule cannot be evaluated.
        ck.error(f"{w}.arms", f"arm {', '.join(twice)} is listed twice: the decision rule "
                              "cannot compare an arm with itself")
    return out, []


def _dose_arms(ck: Checker, t: dict[str, Any], env: Any) -> tuple[list[str], list[float]]:
    """Return a dose plan's arms (baseline, arm at each slack) and its slacks, ascending."""
    w = "experiment"
    if "doses" in t:
        ck.error(f"{w}.doses", "a dose plan lists `slacks`, not `doses`")
    base = ck.strings(t, "arms", w, default=["stress:b2:escalating", "stress:b2:constant"])
    if len(base) != 2:
        ck.error(f"{w}.arms", f"a dose plan has 2 arms (baseline first), got {len(base)}")
        return [], []
    raw = t.get("slacks", list(DEFAULT_SLACKS))
    if not isinstance(raw, list) or not all(type(x) is int and 0 <= x <= MAX_SLACK
                                             for x in raw):
        ck.error(f"{w}.slacks", f"expected a list of integers in [0, {MAX_SLACK}]")
        return [], []
    if len(set(raw)) != len(raw) or len(raw) < 2:
        ck.error(f"{w}.slacks", "a dose plan needs at least 2 distinct slacks")
        return [], []
    slacks = sorted(raw)
    for a in base:
        try:
            canonical_condition(env, f"{a}:slack=0")
        except ValueError as exc:
            ck.error(f"{w}.arms", f"{a!r} takes no slack: {exc}")
            return [], []
    out: list[str] = []
    for k in slacks:
        for a in base:
            try:
                out.append(canonical_condition(env, f"{a}:slack={k}"))
            except ValueError as exc:  # the arm takes a slack, not this one (its own range)
                ck.error(f"{w}.slacks", f"{a!r} does not take slack {k}: {exc}")
                return [], []
    if out[0] == out[1]:
        ck.error(f"{w}.arms", f"arm {out[0]} is listed twice: the decision rule cannot "
                              "compare an arm with itself")
    return out, list(slacks)


def _metrics(ck: Checker, t: dict[str, Any], levels: list[str]) -> dict[str, str]:
    w = "experiment.metrics"
    given = ck.table(t, "metrics", "experiment")
    out = {}
    for lv, m in given.items():
        if lv not in levels:
            ck.error(w, f"metric for level {lv!r}, which the plan does not run")
        elif m not in METRICS:
            ck.error(w, f"unknown metric {m!r} for {lv} (expected {', '.join(METRICS)})")
        else:
            out[lv] = m
    for lv in levels:
        out.setdefault(lv, "coverage" if lv == "L1" else "f1")
    return out
