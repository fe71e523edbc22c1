"""What an agentmetrology task measured, said in words at the end of an Inspect run.

Inspect's metrics can only be numbers, and it drops unscored samples before any metric runs, so
a run in which no sample could be measured (an offline model, a provider outage) would show a
NaN mean or nothing at all. This task-end hook says it plainly on stderr for each scorer of our
tasks: "no measured samples (k excluded: reason)", or how many of n were excluded and why when
some were; and, for a scorer with 1 or 2 measured samples, why its bootstrap CI has no bounds
(stats.bootstrap). It reads the finished log only (never changes it).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import EvalLog, EvalSample

from agentmetrology.stats.bootstrap import MIN_UNITS, too_few_units

PREFIX = "agentmetrology/"


def _reasons(samples: Iterable[EvalSample], scorer: str) -> Counter[str]:
    """Return why samples were not measured for `scorer`: the sample error or the score's
    reason, first line, counted."""
    out: Counter[str] = Counter()
    for s in samples:
        score = (s.scores or {}).get(scorer)
        value = None if score is None else score.value
        if isinstance(value, int | float) and value == value:  # measured (NaN != NaN)
            continue
        if s.error is not None:
            why = s.error.message
        elif score is not None:
            meta = score.metadata or {}
            reasons = [str(r) for r in meta.get("reasons") or []]
            why = (str(meta.get("termination") or "") or "; ".join(reasons)
                   or str(meta.get("status") or score.explanation or "unscored"))
        else:
            why = "no score"
        out[why.strip().splitlines()[0][:160] if why.strip() else "unscored"] += 1
    return out


def unmeasured_lines(log: EvalLog) -> list[str]:
    """Return one line per scorer of an agentmetrology task that has unmeasured samples."""
    if not log.eval.task.startswith(PREFIX) or log.results is None:
        return []
    lines = []
    for score in log.results.scores:
        missing = score.unscored_samples or 0
        if not missing:
            continue
        total = (score.scored_samples or 0) + missing
        reasons = _reasons(log.samples or [], score.name)
        top = "; ".join(f"{why} ({n})" for why, n in reasons.most_common(3))
        said = f": {top}" if top else ""
        if not score.scored_samples:
            lines.append(f"agentmetrology: {score.name}: no measured samples ({missing} "
                         f"excluded{said}); no metric is a measurement")
        else:
            lines.append(f"agentmetrology: {score.name}: {missing} of {total} samples excluded "
                         f"as not measured{said}; the metrics are over the other "
                         f"{score.scored_samples}")
    return lines


def _too_few(scored: int, excluded: int) -> str | None:
    """Return why no interval was given over `scored` samples less `excluded`, or None when
    there are enough; total: no sample left (or a log excluding more than it scored) is too few
    too, where the count of distinct resamples has no meaning (math.comb refuses it)."""
    n = scored - excluded
    if n <= 0:
        return (f"no interval: no measured sample to resample ({scored} scored, {excluded} "
                f"excluded from the interval), an interval needs at least {MIN_UNITS} "
                "measured samples")
    return too_few_units([n], "measured sample")


def interval_lines(log: EvalLog) -> list[str]:
    """Return one line per scorer of an agentmetrology task whose bootstrap CI was withheld
    (`ci_mean` without `ci_low`/`ci_high`: fewer than 3 measured samples), saying why."""
    if not log.eval.task.startswith(PREFIX) or log.results is None:
        return []
    lines = []
    for score in log.results.scores:
        shown = {m.name for m in score.metrics.values()}
        if "ci_mean" not in shown or "ci_low" in shown:
            continue
        ci = {m.name: m.value for m in score.metrics.values()}
        note = _too_few(score.scored_samples or 0, int(ci.get("ci_excluded") or 0))
        if note:  # Inspect's metrics can only be numbers: the why is said here, in words
            lines.append(f"agentmetrology: {score.name}: ci_mean has no ci_low/ci_high, {note}")
    return lines


@hooks(name="agentmetrology_unmeasured", description="Say which samples of an agentmetrology "
                                                     "task were not measured, and why.")
class UnmeasuredReport(Hooks):
    """Prints the unmeasured samples of each agentmetrology task when it ends, and why a
    scorer's bootstrap CI was withheld."""

    async def on_task_end(self, data: TaskEnd) -> None:
        """Write the task's unmeasured-sample lines to stderr."""
        for line in unmeasured_lines(data.log) + interval_lines(data.log):
            print(line, file=sys.stderr, flush=True)
