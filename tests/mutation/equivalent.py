"""Mutants that cannot change behaviour, each with the reason (read by run.py, listed in docs).

A name here leaves its module's denominator. Add one only with a reason a reviewer can check
against the code; a mutant that a test could notice belongs in a test, not here.
"""

from __future__ import annotations

EQUIVALENT: dict[str, str] = {
    "agentmetrology.archive.passk.x_pass_hat_k_fraction__mutmut_13":
        "drops sum()'s start Fraction(0): 0 + Fraction is the same Fraction, counts never empty",
    "agentmetrology.stats.intervals.x_wilson__mutmut_78":
        "min(2.0, upper) for min(1.0, upper): k < n keeps the Wilson upper bound below 1, "
        "k = n takes the exact branch",
    # archive/cost.py: _depth only orders the bottom-up pass (sorted by -depth), over a parent
    # map that align_spans has already made acyclic (_on_cycle)
    "agentmetrology.archive.cost.x__depth__mutmut_2":
        "depth starts at 1, not 0: every depth + 1, the order is unchanged",
    "agentmetrology.archive.cost.x__depth__mutmut_10":
        "depth += 2: every depth doubled, the order is unchanged",
    "agentmetrology.archive.cost.x__depth__mutmut_4":
        "`or` for `and`: at the root (cur None) one extra step adds 1 to every depth; the map "
        "is acyclic so `cur not in seen` never stops the walk",
    "agentmetrology.archive.cost.x__depth__mutmut_7":
        "seen.add(None): the map is acyclic, so the seen guard never fires",
    "agentmetrology.archive.cost.x__run_of__mutmut_11":
        "by_id.get(None) when parent_id is None: no span id is None, so it returns None as "
        "the original's else branch does",
    "agentmetrology.archive.cost.x__pareto__mutmut_93":
        "zip strict=None: stored and corrected are built from the same rows, equal lengths",
    "agentmetrology.archive.cost.x__pareto__mutmut_96":
        "zip without strict: stored and corrected are built from the same rows, equal lengths",
    "agentmetrology.archive.cost.x__pareto__mutmut_97":
        "zip strict=False: stored and corrected are built from the same rows, equal lengths",
    "agentmetrology.archive.cost.x_align_spans__mutmut_39":
        "kids.get(id, None) for kids.get(id, []): `if children` treats None and [] alike",
    "agentmetrology.archive.cost.x_align_spans__mutmut_41":
        "kids.get(id) for kids.get(id, []): `if children` treats None and [] alike",
    "agentmetrology.archive.cost.x_align_spans__mutmut_59":
        "copies[id] = 1 for += 1 on a billable span: the pass runs deepest first and a span's "
        "copies are only raised by its (shallower) ancestors, so the count is 0 here",
    # store/redact.py: codec and error-handler spellings
    "agentmetrology.store.redact.x_secret_forms__mutmut_3":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_8":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_10":
        "decode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_3":
        "decode() defaults to UTF-8",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_4":
        "no errors='replace': the redacted bytes of a str are always valid UTF-8 (secrets and "
        "their fragments are whole characters, the replacement is ASCII)",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_12":
        "errors='REPLACE': the handler is looked up only on a decoding error, which cannot "
        "happen here (see text__mutmut_4)",
    # envs/comtrade/generator.py: only "legacy" is special-cased; any other profile is seeded
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_1":
        "default profile 'XXseededXX' is handled as seeded",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_2":
        "default profile 'SEEDED' is handled as seeded",
    "agentmetrology.envs.comtrade.generator.x_generator_seed__mutmut_1":
        "default profile 'XXseededXX' is handled as seeded",
    "agentmetrology.envs.comtrade.generator.x_generator_seed__mutmut_2":
        "default profile 'SEEDED' is handled as seeded",
    "agentmetrology.envs.comtrade.generator.x_ground_truth_ids__mutmut_1":
        "the profile argument is unused: G never depends on it",
    "agentmetrology.envs.comtrade.generator.x_ground_truth_ids__mutmut_2":
        "the profile argument is unused: G never depends on it",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_6":
        "zip strict=None: ROW_FIELDS and each tuple have 10 items",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_9":
        "zip without strict: ROW_FIELDS and each tuple have 10 items",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_10":
        "zip strict=False: ROW_FIELDS and each tuple have 10 items",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_17":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_20":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_21":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    # envs/comtrade/faults.py (fail_lists no longer samples when k = 0: its old mutmut_27,
    # sample(candidates, 0), is gone, and that name is now a caught mutant)
    "agentmetrology.envs.comtrade.faults.x__shuffle_tail__mutmut_15":
        "the loop also runs step i = 0: it swaps x[0] with itself, and the extra draws come "
        "from a generator drift_order discards",
    "agentmetrology.envs.comtrade.faults.x_drift_order__mutmut_1":
        "default start=1 for 0: start is read only as max(start, 1), equal for 0 and 1",
    # records/canonical.py
    "agentmetrology.records.canonical.x__float_tag__mutmut_11":
        "value >= 0 for value > 0: only ±inf reach this branch (NaN is tested first)",
    "agentmetrology.records.canonical.x__float_tag__mutmut_12":
        "value > 1 for value > 0: only ±inf reach this branch (NaN is tested first)",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_5":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_6":
        "allow_nan=None: to_plain(tag_non_finite=True) never lets a non-finite float through",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_11":
        "allow_nan left at its default: to_plain has already tagged every non-finite float",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_21":
        "allow_nan=True: to_plain has already tagged every non-finite float",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_23":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.records.canonical.x_sha256_hex__mutmut_4":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.envs.comtrade.faults.x_drop_rows__mutmut_11":
        "rate >= 0 for rate > 0: at rate 0, ceil(0) = 0 rows go either way",
    "agentmetrology.store.redact.xǁRedactorǁtext__mutmut_11":
        "errors='XXreplaceXX': the handler is looked up only on a decoding error, which cannot "
        "happen here (see text__mutmut_4)",
    # store/chain.py: the columns cache only saves a PRAGMA; a miss recomputes the same columns
    "agentmetrology.store.chain.x_columns__mutmut_2":
        "key id(None): every lookup misses or fails the identity check; recomputed",
    "agentmetrology.store.chain.x_columns__mutmut_3":
        "hit = None: always recomputed, the same columns",
    "agentmetrology.store.chain.x_columns__mutmut_4":
        "get(None): always a miss, recomputed",
    "agentmetrology.store.chain.x_columns__mutmut_7":
        "hit[1] is c is never true: always recomputed",
    "agentmetrology.store.chain.x_columns__mutmut_8":
        "hit[0] is not c: an entry holds its connection, so a hit is always c; the mutant "
        "always recomputes",
    "agentmetrology.store.chain.x_columns__mutmut_18":
        "evicts at 65 entries instead of 64",
    "agentmetrology.store.chain.x_columns__mutmut_21":
        "stores None: the next lookup misses and recomputes",
    "agentmetrology.store.chain.x_head__mutmut_4":
        "lower-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_head__mutmut_5":
        "upper-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_is_sealed__mutmut_7":
        "lower-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_is_sealed__mutmut_8":
        "upper-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_seal_rows__mutmut_28":
        "lower-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_seal_rows__mutmut_29":
        "upper-case SQL: SQLite keywords and names are case-insensitive",
    "agentmetrology.store.chain.x_content_digest__mutmut_5":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.store.chain.x_content_digest__mutmut_11":
        "allow_nan left at its default, which is True",
    "agentmetrology.store.chain.x_content_digest__mutmut_20":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.chain.x_next_head__mutmut_7":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.chain.x_row_digest__mutmut_26":
        "zip strict=None: cols and row come from one SELECT",
    "agentmetrology.store.chain.x_row_digest__mutmut_29":
        "zip without strict: cols and row come from one SELECT",
    "agentmetrology.store.chain.x_row_digest__mutmut_30":
        "zip strict=False: cols and row come from one SELECT",
    # envs/comtrade/scoring/ground_truth.py: G's ids are {task}-{i:06d} for every seed and
    # profile, and legacy rows ignore the seed, so these arguments cannot change a result
    "agentmetrology.envs.comtrade.scoring.ground_truth.x__mismatch__mutmut_2":
        "True for a missing expected row: LineTally asks only for ids in G, and every id in G "
        "has a row",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_f1_components__mutmut_27":
        "r_x = 1.0 when |G| = 0: then U is empty, exact = 0 and f1_exact is 0 either way",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_f1_components__mutmut_32":
        "p_x = 1.0 when there are no lines: then U is empty, exact = 0 and f1_exact is 0 either "
        "way",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_34":
        "a misspelt 'seeded' profile: ids ignore it and rows treat any non-legacy profile as "
        "seeded",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_35":
        "a misspelt 'seeded' profile: ids ignore it and rows treat any non-legacy profile as "
        "seeded",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_38":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_39":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_43":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_44":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_45":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_46":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_47":
        "changes the seed or profile given to G, whose ids depend on neither",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_122":
        "legacy rows get the seed instead of None: the legacy generator ignores the seed",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_125":
        "legacy rows get the seed instead of None: the legacy generator ignores the seed",
    "agentmetrology.envs.comtrade.scoring.ground_truth.x_ground_truth_f1__mutmut_126":
        "legacy rows get the seed instead of None: the legacy generator ignores the seed",
    # scoring/episode.py
    "agentmetrology.scoring.episode.x_score_submission__mutmut_1":
        "default condition 'XXcleanXX': split_condition finds no mutation in it, as in 'clean'",
    "agentmetrology.scoring.episode.x_score_submission__mutmut_2":
        "default condition 'CLEAN': split_condition finds no mutation in it, as in 'clean'",
    # archive/coverage.py: cells come from episodes, so every cell has a planned episode and a
    # task; and tasks.values() is zipped with the list built from it
    "agentmetrology.archive.coverage.x__pairs__mutmut_8":
        "`and` in the empty-cell guard: by_cell never yields an empty cell",
    "agentmetrology.archive.coverage.x__pairs__mutmut_15":
        "`break` in the empty-cell guard: by_cell never yields an empty cell",
    "agentmetrology.archive.coverage.x_pass_k_section__mutmut_18":
        "zip strict=None over a list built from the same dict",
    "agentmetrology.archive.coverage.x_pass_k_section__mutmut_21":
        "zip without strict over a list built from the same dict",
    "agentmetrology.archive.coverage.x_pass_k_section__mutmut_22":
        "zip strict=False over a list built from the same dict",
    "agentmetrology.archive.coverage.x_pass_k_section__mutmut_27":
        "`or True`: a cell always has a task, so trials is never empty",
    "agentmetrology.archive.coverage.x_pass_k_section__mutmut_29":
        "else 1: a cell always has a task, so trials is never empty",
    # stats/bootstrap.py
    "agentmetrology.stats.bootstrap.x_bootstrap_cis__mutmut_34":
        "zip strict=None: one reducer and one distribution per statistic",
    "agentmetrology.stats.bootstrap.x_bootstrap_cis__mutmut_38":
        "zip without strict: one reducer and one distribution per statistic",
    "agentmetrology.stats.bootstrap.x_bootstrap_cis__mutmut_39":
        "zip strict=False: one reducer and one distribution per statistic",
    "agentmetrology.stats.bootstrap.x_bootstrap_distributions__mutmut_13":
        "np.empty dtype=None is float64, the same as dtype=np.float64",
    "agentmetrology.stats.bootstrap.x_bootstrap_distributions__mutmut_15":
        "np.empty without dtype is float64, the same as dtype=np.float64",
    "agentmetrology.stats.bootstrap.x_bootstrap_distributions__mutmut_41":
        "zip strict=None: one output per reducer",
    "agentmetrology.stats.bootstrap.x_bootstrap_distributions__mutmut_44":
        "zip without strict: one output per reducer",
    "agentmetrology.stats.bootstrap.x_bootstrap_distributions__mutmut_45":
        "zip strict=False: one output per reducer",
    "agentmetrology.stats.bootstrap.x_resample_indices__mutmut_5":
        "rng.integers(n, size) draws from [0, n), as integers(0, n, size) does",
    "agentmetrology.stats.bootstrap.x_resample_indices__mutmut_39":
        "rng.integers(high, size) draws from [0, high), as integers(0, high, size) does",
    "agentmetrology.stats.bootstrap.x_resample_indices__mutmut_23":
        "searchsorted's default side is 'left'",
    "agentmetrology.stats.bootstrap.x__quantile__mutmut_14":
        "hi = min(lo + 1, size + 1): q < 1 (confidence is checked to lie in (0, 1)), so lo + 1 "
        "<= size - 1 binds first",
    # stats/cell.py, table.py, power.py, validate.py: check_fraction reads allow_zero and
    # allow_one only for their truth value, and None is falsy like False
    "agentmetrology.stats.cell.x_cvar__mutmut_7":
        "allow_zero=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.table.x_summarize_cell__mutmut_20":
        "alpha's allow_zero=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.power.x_paired_power__mutmut_37":
        "alpha's allow_zero=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.power.x_paired_power__mutmut_38":
        "alpha's allow_one=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.validate.x_check_confidence__mutmut_5":
        "allow_zero=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.validate.x_check_confidence__mutmut_6":
        "allow_one=None for False: check_fraction only tests its truth value",
    # numpy defaults that equal the spelled-out argument
    "agentmetrology.stats.flips.x__independent_excess__mutmut_10":
        "np.array([0, 1], dtype=None) is int64 (numpy's default integer on 64-bit Linux), "
        "and the strata codes are only sorted and compared",
    "agentmetrology.stats.flips.x__independent_excess__mutmut_12":
        "np.array([0, 1]) without dtype: int64 as above",
    "agentmetrology.stats.flips.x__independent_excess__mutmut_14":
        "strata codes [0, 2] for [0, 1]: resample_indices only sorts and compares stratum "
        "codes (argsort, searchsorted), so any two distinct increasing codes draw the same",
    "agentmetrology.stats.flips.x_excess_flip_rate__mutmut_34":
        "bool.astype(None) is float64, the same as astype(np.float64)",
    "agentmetrology.stats.flips.x_excess_flip_rate__mutmut_37":
        "bool.astype(None) is float64, the same as astype(np.float64)",
    "agentmetrology.stats.compare.x_compare_paired__mutmut_78":
        "flips gets float 0/1 (astype(None) is float64) instead of int 0/1: as_binary reads "
        "both as the same 0/1 integers",
    "agentmetrology.stats.compare.x_compare_paired__mutmut_80":
        "flips gets float 0/1 (astype(None) is float64) instead of int 0/1: as_binary reads "
        "both as the same 0/1 integers",
    "agentmetrology.stats.power.x_paired_power__mutmut_86":
        "int.astype(None) is float64, the same as astype(np.float64)",
    "agentmetrology.stats.power.x_paired_power__mutmut_93":
        "rng.integers(2, size) draws from [0, 2), as integers(0, 2, size) does",
    "agentmetrology.stats.results.x_non_finite_fields__mutmut_4":
        "cast(None, obj) for cast(Any, obj): typing.cast returns obj unchanged at run time",
    "agentmetrology.stats.results.xǁRecordǁto_dict__mutmut_7":
        "cast(None, self) for cast(Any, self): typing.cast returns self unchanged at run time",
    "agentmetrology.stats.table.x_reliability_table__mutmut_48":
        "zip strict=None: keys, summaries and both rank lists are built from the same groups",
    "agentmetrology.stats.table.x_reliability_table__mutmut_53":
        "zip without strict: keys, summaries and both rank lists are built from the same groups",
    "agentmetrology.stats.table.x_reliability_table__mutmut_54":
        "zip strict=False: keys, summaries and both rank lists are built from the same groups",
    # stats/compare.py: the 95% difference reuses the equivalence draw
    "agentmetrology.stats.compare.x__difference__mutmut_2":
        "confidence != 1.95 always calls paired_bootstrap: with the same seed and resamples it "
        "draws the same distribution as the equivalence, so the 95% estimate is identical "
        "(the shortcut only saves the second draw; test_compare_difference_equals_the_paired_"
        "bootstrap pins that both routes agree)",
    # stats/power.py
    "agentmetrology.stats.power.x__sign_flip_pvalues__mutmut_9":
        "chunk of at least 2 rows instead of 1: each row's p-value is computed on its own, so "
        "the chunking bounds memory only (test_sign_flip_p_values_over_several_memory_chunks)",
    "agentmetrology.stats.power.x__sign_flip_pvalues__mutmut_11":
        "chunk rows from the pair count instead of the draw count: the chunking bounds memory "
        "only, each row's p-value is the same whatever the chunk",
    "agentmetrology.stats.power.x_t_two_sided_p__mutmut_46":
        "df > 2 for df > 1 in the odd-df branch: odd df > 1 means df >= 3 > 2",
    "agentmetrology.stats.power.x_t_two_sided_p__mutmut_81":
        "no upper clip: inside = P(|T| < t) is built from non-negative terms (theta, sin, "
        "cos^2 >= 0), so 1 - inside never exceeds 1",
    "agentmetrology.stats.power.x_t_two_sided_p__mutmut_88":
        "upper clip at 2 for 1: 1 - inside never exceeds 1 (see t_two_sided_p__mutmut_81)",
    "agentmetrology.stats.power.x_paired_power__mutmut_127":
        "`or` in the assert on Wilson intervals: wilson always returns an interval, so both "
        "forms pass",
    # stats/paired.py
    "agentmetrology.stats.paired.x__byte_tables__mutmut_15":
        "np.arange(257): the extra table column (byte value 256) is never indexed, a uint8 "
        "byte is at most 255",
    "agentmetrology.stats.paired.x__byte_tables__mutmut_4":
        "(n + 8) // 8 bytes: one extra all-zero table row when n % 8 == 0, never indexed "
        "(_monte_carlo_extreme indexes rows 0 .. (n + 7) // 8 - 1)",
    "agentmetrology.stats.paired.x__exact_extreme__mutmut_10":
        "low - high for low + high: the signed subset sums of a half are symmetric under "
        "negation (flip every sign), so both give the same multiset of 2^n sums",
    "agentmetrology.stats.paired.x__exact_extreme__mutmut_3":
        "split at n // 3 instead of n // 2: any split's outer sum lists all 2^n signed sums",
    "agentmetrology.stats.paired.x__monte_carlo_extreme__mutmut_11":
        "rng.integers(256, size, dtype=uint8) draws from [0, 256), as integers(0, 256, ...)",
    "agentmetrology.stats.paired.x__monte_carlo_extreme__mutmut_27":
        "chunk of at least 2 draws instead of 1: the count is a sum over chunks, the chunk "
        "size bounds memory only",
    "agentmetrology.stats.paired.x_holm__mutmut_26":
        "allow_zero=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.paired.x_holm__mutmut_27":
        "allow_one=None for False: check_fraction only tests its truth value",
    "agentmetrology.stats.paired.x_holm__mutmut_39":
        "argsort kind None (quicksort): only the order among tied p-values can change, and "
        "after the running maximum tied p-values all get the adjusted value of the first",
    "agentmetrology.stats.paired.x_holm__mutmut_41":
        "argsort without kind: as x_holm__mutmut_39",
    "agentmetrology.stats.paired.x_holm__mutmut_43":
        "argsort kind 'STABLE': numpy accepts it; and any order among ties gives the same "
        "adjusted values (x_holm__mutmut_39)",
    "agentmetrology.stats.paired.x_mcnemar__mutmut_24":
        "n = 0 through the binomial: min(1, 2 * C(0, 0) / 2^0) = 1, the same p = 1",
    "agentmetrology.stats.paired.x_mcnemar__mutmut_28":
        "p = 1 at n = 1 instead of n = 0: the binomial gives 1 at both (min(1, 2 * 1/2) and "
        "min(1, 2 * 1))",
    "agentmetrology.stats.paired.x_sign_test__mutmut_24":
        "n = 0 through the binomial: min(1, 2 * C(0, 0) / 2^0) = 1, the same p = 1",
    "agentmetrology.stats.paired.x_sign_test__mutmut_28":
        "p = 1 at n = 1 instead of n = 0: the binomial gives 1 at both",
    "agentmetrology.stats.paired.x_sign_flip_test__mutmut_57":
        "drops seed=None from the exact TestResult: None is the field's default",
    "agentmetrology.stats.paired.x_sign_flip_test__mutmut_58":
        "drops exact=True from the exact TestResult: True is the field's default",
    # stats/validate.py: as_labels' array fast path is a shortcut; the general path gives the
    # same codes for bool, int, uint and str arrays (sorted order, no missing labels possible),
    # pinned by test_codes_follow_sorted_label_order_for_lists_and_arrays
    "agentmetrology.stats.validate.x_as_labels__mutmut_12":
        "fast-path kinds 'XXbiuUXX': still contains b, i, u and U, the same arrays take it",
    "agentmetrology.stats.validate.x_as_labels__mutmut_13":
        "fast-path kinds 'biuu': str arrays take the general path, which gives the same codes",
    "agentmetrology.stats.validate.x_as_labels__mutmut_14":
        "fast-path kinds 'BIUU': bool and integer arrays take the general path, which gives "
        "the same codes",
    "agentmetrology.stats.validate.x_as_labels__mutmut_56":
        "np.fromiter without count: count only preallocates; the generator yields exactly "
        "size codes (len(items) == size is checked above)",
    # stats/bootstrap.py (second round)
    "agentmetrology.stats.bootstrap.x_resample_indices__mutmut_15":
        "argsort kind 'STABLE': numpy reads the sort kind by its first letter, in either case, "
        "so this is the stable sort",
    "agentmetrology.stats.bootstrap.x_percentile_interval__mutmut_22":
        "partition around floor(h) and floor(h) + 2 instead of + 1: the one slot between two "
        "placed order statistics can only hold the order statistic of its index, so "
        "ordered[lo + 1] is right either way",
    "agentmetrology.stats.bootstrap.x_reducer__mutmut_23":
        "allow_zero=None for False: check_fraction only tests its truth value",
}
