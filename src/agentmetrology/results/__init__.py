"""Results tables users already have, read and analysed: the library behind `agm stats`.

`build_summary(SummaryRequest(...))` and `build_comparison(ComparisonRequest(...))` return the
JSON documents of `agm stats summarize` and `agm stats compare`; `read_results` reads a CSV,
TSV, JSON Lines, JSON array or Parquet table within documented limits (limits.py). Rows that
could not be measured are excluded and counted per reason, never scored. Every refusal of bad
input is a `UserError` (TableError, StatisticsRefused) whose message says what to fix.
"""

from agentmetrology.results.comparison import build_comparison
from agentmetrology.results.errors import StatisticsRefused, TableError
from agentmetrology.results.exclusions import Coercions, Exclusions, describe
from agentmetrology.results.grouping import Groups, collect_groups
from agentmetrology.results.limits import (
    MAX_DRAWS,
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    MAX_RESAMPLES,
    check_limits,
)
from agentmetrology.results.pairing import PairSpec, align_pairs, check_groups, collect_pairs
from agentmetrology.results.reading import read_results
from agentmetrology.results.request import (
    ComparisonRequest,
    Resampling,
    SummaryRequest,
    choose_analysis_seed,
    split_column_names,
)
from agentmetrology.results.scales import Scale, parse_range, scale_of
from agentmetrology.results.summary import build_summary
from agentmetrology.results.table import ABSENT, ResultsTable, label
from agentmetrology.results.values import MAX_MAGNITUDE, measurement_failure, read_value

__all__ = [
    "ABSENT",
    "MAX_DRAWS",
    "MAX_FILE_BYTES",
    "MAX_LINE_CHARS",
    "MAX_MAGNITUDE",
    "MAX_RESAMPLES",
    "Coercions",
    "ComparisonRequest",
    "Exclusions",
    "Groups",
    "PairSpec",
    "Resampling",
    "ResultsTable",
    "Scale",
    "StatisticsRefused",
    "SummaryRequest",
    "TableError",
    "align_pairs",
    "build_comparison",
    "build_summary",
    "check_groups",
    "check_limits",
    "choose_analysis_seed",
    "collect_groups",
    "collect_pairs",
    "describe",
    "label",
    "measurement_failure",
    "parse_range",
    "read_results",
    "read_value",
    "scale_of",
    "split_column_names",
]
