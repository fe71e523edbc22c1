"""What `agm stats summarize` and `agm stats compare` are asked: frozen requests, each checked
once when it is made, so the analyses never meet an unchecked option."""

from __future__ import annotations

from dataclasses import dataclass

from agentmetrology.records.names import repeated
from agentmetrology.results.errors import TableError
from agentmetrology.results.limits import check_limits
from agentmetrology.results.pairing import PairSpec
from agentmetrology.stats import DEFAULT_MARGIN


def _check_names(option: str, names: tuple[str, ...]) -> None:
    """Raise TableError unless `names` is a non-empty list of non-blank names."""
    if not names or not all(name.strip() for name in names):
        raise TableError(f"{option} needs column or group names, got {list(names)!r}")


def split_column_names(text: str, option: str) -> tuple[str, ...]:
    """Split a comma-separated list of column names, rejecting empty names and repeats (a
    `--value` or `--b` named twice was compared twice, doubling its Holm-adjusted p)."""
    names = tuple(part.strip() for part in text.split(","))
    if not text.strip() or any(not name for name in names):
        raise TableError(f"{option} needs comma-separated column names, got {text!r}")
    if len(set(names)) != len(names):
        twice = repeated(names)
        raise TableError(f"{option} {text!r} names {', '.join(twice)} more than once; name "
                         "each once")
    return names


def choose_analysis_seed(analysis_seed: int | None, old_seed: int | None) -> int:
    """Return the analysis seed (default 0), honouring the deprecated --seed spelling."""
    if old_seed is None:
        return 0 if analysis_seed is None else analysis_seed
    if analysis_seed is not None and analysis_seed != old_seed:
        raise TableError(
            f"--seed {old_seed} and --analysis-seed {analysis_seed} disagree; "
            "use --analysis-seed only (--seed is deprecated)"
        )
    return old_seed


@dataclass(frozen=True, kw_only=True)
class Resampling:
    """The parameters every analysis shares: the pass threshold `tau`, the analysis seed, and
    the bootstrap's resamples and confidence level (the statistics check their ranges)."""

    tau: float = 0.9
    analysis_seed: int = 0
    resamples: int = 2000
    confidence: float = 0.95


@dataclass(frozen=True)
class SummaryRequest(Resampling):
    """Summarize `value` per group of the `group_by` columns of a results file ('-': stdin);
    `alpha` is the CVaR tail fraction."""

    source: str
    value: str
    group_by: tuple[str, ...]
    alpha: float = 0.2
    score_range: tuple[float, float] | None = None  # for a column no scorer declares

    def __post_init__(self) -> None:
        check_limits(self.resamples)
        _check_names("--group", self.group_by)

    @property
    def parameters(self) -> dict[str, float | int]:
        """Return the statistics' parameters as the document records them."""
        return {"tau": self.tau, "alpha": self.alpha, "analysis_seed": self.analysis_seed,
                "resamples": self.resamples, "confidence": self.confidence}


@dataclass(frozen=True)
class ComparisonRequest(Resampling):
    """A family of paired comparisons: every `values` column x every `bs` group against `a`,
    rows matched on `pair_by` (held sorted by name); `rerun_of_a` adds the excess flip rate,
    `factor` eta squared; `draws` bounds the Monte-Carlo sign vectors."""

    source: str
    group: str
    a: str
    bs: tuple[str, ...]
    values: tuple[str, ...]
    pair_by: tuple[str, ...]
    cluster: str | None = None
    strata: str | None = None
    rerun_of_a: str | None = None
    factor: str | None = None
    margin: float = DEFAULT_MARGIN  # a fraction of each value column's range (scales.py)
    draws: int = 100_000
    score_range: tuple[float, float] | None = None  # for columns no scorer declares

    def __post_init__(self) -> None:
        check_limits(self.resamples, self.draws)
        for option, names in (("--value", self.values), ("--b", self.bs),
                              ("--pair-by", self.pair_by)):
            _check_names(option, names)
        if "," in self.group:
            raise TableError("--group for compare takes one column")
        if self.factor is not None and self.factor not in self.pair_by:
            raise TableError(f"--factor {self.factor!r} must be one of the --pair-by columns "
                             f"({', '.join(self.pair_by)})")
        # The pairs are sorted by their key and the bootstrap's draws follow that order, so the
        # key's columns are held sorted by name: `task,seed` and `seed,task` had drawn
        # different resamples from the same pairs ('different' beside 'equivalent').
        object.__setattr__(self, "pair_by", tuple(sorted(self.pair_by)))

    def spec(self, value: str, b: str) -> PairSpec:
        """Return the columns of the comparison of `b` against `a` on `value`."""
        return PairSpec(value=value, group=self.group, a=self.a, b=b, pair_by=self.pair_by,
                        cluster=self.cluster, strata=self.strata)

    @property
    def parameters(self) -> dict[str, float | int]:
        """Return the statistics' parameters as the document records them."""
        return {"margin": self.margin, "tau": self.tau, "analysis_seed": self.analysis_seed,
                "resamples": self.resamples, "confidence": self.confidence, "draws": self.draws}
