"""Pure numerical functions over numpy arrays (no I/O, no other package imports).

Reliability beyond the mean: per-cell worst case, CVaR and Reliability@tau; seeded, vectorised
bootstrap intervals; paired tests; equivalence labels; flips; agreement; power; variance shares.
Every function that resamples takes an integer `seed`; the same inputs and seed give
bit-identical results. Every result is a frozen record with `to_dict()`.
"""

from .agreement import agreement
from .bootstrap import DEFAULT_RESAMPLES, bootstrap_ci, bootstrap_cis, cvar_count
from .cell import cvar, mean, reliability_at, reliability_gap, worst
from .cluster import MIN_CLUSTERS, cluster_bootstrap, cluster_means
from .compare import PairedComparison, compare_paired
from .equivalence import DEFAULT_MARGIN, bootstrap_p_values, equivalence, equivalence_label
from .flips import excess_flip_rate, flips
from .intervals import wilson
from .paired import (
    cliffs_delta_paired,
    holm,
    mcnemar,
    paired_bootstrap,
    sign_flip_test,
    sign_test,
)
from .power import paired_power
from .results import (
    AgreementResult,
    EquivalenceResult,
    Estimate,
    ExcessFlipResult,
    FlipResult,
    HolmResult,
    PowerResult,
    ReversalResult,
    TestResult,
    VarianceShares,
)
from .reversals import pair_count, reversals
from .table import CellSummary, TableRow, reliability_table, summarize_cell
from .variance import eta_squared

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_RESAMPLES",
    "MIN_CLUSTERS",
    "AgreementResult",
    "CellSummary",
    "EquivalenceResult",
    "Estimate",
    "ExcessFlipResult",
    "FlipResult",
    "HolmResult",
    "PairedComparison",
    "PowerResult",
    "ReversalResult",
    "TableRow",
    "TestResult",
    "VarianceShares",
    "agreement",
    "bootstrap_ci",
    "bootstrap_cis",
    "bootstrap_p_values",
    "cliffs_delta_paired",
    "cluster_bootstrap",
    "cluster_means",
    "compare_paired",
    "cvar",
    "cvar_count",
    "equivalence",
    "equivalence_label",
    "eta_squared",
    "excess_flip_rate",
    "flips",
    "holm",
    "mcnemar",
    "mean",
    "pair_count",
    "paired_bootstrap",
    "paired_power",
    "reliability_at",
    "reliability_gap",
    "reliability_table",
    "reversals",
    "sign_flip_test",
    "sign_test",
    "summarize_cell",
    "wilson",
    "worst",
]
