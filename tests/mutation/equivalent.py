"""Mutants that cannot change behaviour, each with the reason (read by run.py, listed in docs).

A name here leaves its module's denominator. Add one only with a reason a reviewer can check
against the code; a mutant that a test could notice belongs in a test, not here.
"""

from __future__ import annotations

ENV_NAMES_FALLBACK = (
    "falls back to frozenset(os.environ): the same names decoded (str, not bytes), compared "
    "only with names read the same way; only the cost of the check differs")

FAST_PATH_OFF = (
    "turns a fast path off for some values (exact built-in types, known dataclasses, str->str "
    "dicts): they take the general isinstance path, which gives the same result")

SQL_CASE = (
    "SQL in another case: SQLite keywords and names are case-insensitive and a result's column "
    "names are the declared ones; no quoted literal changes")

SAME_LENGTH_ZIP = "zip(..., strict=...) dropped or False/None: the lists have one item per pair"

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
    # store/redact.py _env_names: the fast path over os.environ._data is only a cost
    "agentmetrology.store.redact.x__env_names__mutmut_1":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_2":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_6":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_7":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_8":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_10":
        ENV_NAMES_FALLBACK,
    "agentmetrology.store.redact.x__env_names__mutmut_11":
        "`or True`: on CPython os.environ._data is always a dict, so the condition is already "
        "true",
    "agentmetrology.store.redact.xǁ_EnvWatchǁread__mutmut_1":
        "names = None: no snapshot equals None, so every refresh reads the environment again "
        "(the same secrets registered, at ~80 us instead of ~3 us)",
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
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_10":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_13":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    "agentmetrology.envs.comtrade.generator.x_generate_rows__mutmut_14":
        "legacy gets the seed instead of None: seed_string ignores the seed for legacy",
    # envs/comtrade/faults.py (fail_lists no longer samples when k = 0: its old mutmut_27,
    # sample(candidates, 0), is gone, and that name is now a caught mutant)
    "agentmetrology.envs.comtrade.faults.x__shuffle_tail__mutmut_15":
        "the loop also runs step i = 0: it swaps x[0] with itself, and the extra draws come "
        "from a generator drift_order discards",
    "agentmetrology.envs.comtrade.faults.x_drift_order__mutmut_1":
        "default start=1 for 0: start is read only as max(start, 1), equal for 0 and 1",
    "agentmetrology.envs.comtrade.scoring.judge.x_type_problem__mutmut_50":
        "vowels 'XXaeiouXX': a one-letter `in` test; the wanted types are object and number, "
        "whose first letters are in both strings and never X",
    # records/canonical.py
    "agentmetrology.records.canonical.x__float_tag__mutmut_11":
        "value >= 0 for value > 0: only ±inf reach this branch (NaN is tested first)",
    "agentmetrology.records.canonical.x__float_tag__mutmut_12":
        "value > 1 for value > 0: only ±inf reach this branch (NaN is tested first)",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_7":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_8":
        "allow_nan=None: to_plain(tag_non_finite=True) never lets a non-finite float through",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_13":
        "allow_nan left at its default: to_plain has already tagged every non-finite float",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_23":
        "allow_nan=True: to_plain has already tagged every non-finite float",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_25":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.records.canonical.x_canonical_json__mutmut_1":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x__text_mapping__mutmut_2":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x__text_mapping__mutmut_13":
        FAST_PATH_OFF + " (an empty dict: b'{}' either way)",
    "agentmetrology.records.canonical.x__text_mapping__mutmut_15":
        FAST_PATH_OFF + " (an empty dict: b'{}' either way)",
    "agentmetrology.records.canonical.x_to_plain__mutmut_2":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_3":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_4":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_5":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_6":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_19":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_26":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x_to_plain__mutmut_27":
        FAST_PATH_OFF,
    "agentmetrology.records.canonical.x__to_plain_general__mutmut_16":
        "the field-name cache keeps None: the fast path misses and the general path lists "
        "the fields again (the same names, in the same order)",
    "agentmetrology.records.canonical.x__to_plain_general__mutmut_17":
        "the names cached under NoneType: None returns before the cache is read",
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
    "agentmetrology.store.chain.x_next_head__mutmut_7":
        "encode('UTF-8'): codec names are case-insensitive",
    "agentmetrology.store.chain.x_row_digest__mutmut_26":
        "zip strict=None: cols and row come from one SELECT",
    "agentmetrology.store.chain.x_row_digest__mutmut_29":
        "zip without strict: cols and row come from one SELECT",
    "agentmetrology.store.chain.x_row_digest__mutmut_30":
        "zip strict=False: cols and row come from one SELECT",
    # envs/comtrade/scoring/judge_rows.py and streamed.py
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_1":
        "a frozen value's tag only sets it apart from other values; it is a tuple, which no "
        "parsed JSON value is, so any constant tag does",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_2":
        "a frozen value's tag only sets it apart from other values; it is a tuple, which no "
        "parsed JSON value is, so any constant tag does",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_11":
        "a frozen value's tag only sets it apart from other values; it is a tuple, which no "
        "parsed JSON value is, so any constant tag does",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_12":
        "a frozen value's tag only sets it apart from other values; it is a tuple, which no "
        "parsed JSON value is, so any constant tag does",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_5":
        "ensure_ascii None: JSON text with or without \\u escapes encodes each value one to one, "
        "so equal values still give equal texts and different values different ones",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_8":
        "ensure_ascii left at its default (True): JSON text with or without \\u escapes encodes "
        "each value one to one, so equal values still give equal texts and different values "
        "different ones",
    "agentmetrology.envs.comtrade.scoring.judge_rows.x__freeze__mutmut_10":
        "ensure_ascii True: JSON text with or without \\u escapes encodes each value one to one, "
        "so equal values still give equal texts and different values different ones",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁ_add_keys__mutmut_2":
        "`or` in the assert: _add_keys runs only when _pick is set, which it is exactly when "
        "key_fields is a list, so both halves hold",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁ_add_keys__mutmut_25":
        "the memo keeps one more value: it only swaps a value for an equal one, so set membership"
        " (the dedup count) is unchanged",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁ_add_keys__mutmut_7":
        "sharing starts at 50,001 keys, not 50,000: shared values equal the originals, so set "
        "membership is unchanged",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁ_add_ranges__mutmut_4":
        "`or True`: when no row of the batch has a year, the comprehension is empty anyway",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁadd__mutmut_14":
        "zip strict=None: the keys and the value types come from the same rows",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁadd__mutmut_17":
        "zip without strict: the keys and the value types come from the same rows",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁadd__mutmut_27":
        "zip strict=False: the keys and the value types come from the same rows",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁtype_consistency__mutmut_4":
        "zip strict=None: a shape's keys and types come from one row",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁtype_consistency__mutmut_7":
        "zip without strict: a shape's keys and types come from one row",
    "agentmetrology.envs.comtrade.scoring.judge_rows.xǁRowTallyǁtype_consistency__mutmut_8":
        "zip strict=False: a shape's keys and types come from one row",
    "agentmetrology.envs.comtrade.scoring.streamed.x__json_str__mutmut_3":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.envs.comtrade.scoring.streamed.x__json_str__mutmut_8":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.envs.comtrade.scoring.streamed.x__scan__mutmut_13":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.envs.comtrade.scoring.streamed.xǁStreamedSubmissionǁdata_batches__mutmut_11":
        "'UTF-8': codec names are case-insensitive",
    # envs/comtrade/scoring/judge.py
    "agentmetrology.envs.comtrade.scoring.judge.x__clamp__mutmut_3":
        "`x <= lo`: at x == lo both branches return the same value",
    "agentmetrology.envs.comtrade.scoring.judge.x__clamp__mutmut_6":
        "`x >= hi`: at x == hi both branches return the same value",
    "agentmetrology.envs.comtrade.scoring.judge.x__clamp__mutmut_4":
        "never clamps from above: no caller passes a value above hi (1 - |n-E|/E <= 1; "
        "correctness is at most 12 + 4 + 4 + 6 + 4 = 30)",
    "agentmetrology.envs.comtrade.scoring.judge.x_correctness__mutmut_24":
        "row-count clamp to 2.0: 1 - |n-E|/E never exceeds 1",
    "agentmetrology.envs.comtrade.scoring.judge.x_correctness__mutmut_78":
        "clamp to 31: the correctness terms sum to at most 30",
    "agentmetrology.envs.comtrade.scoring.judge.x_efficiency__mutmut_19":
        "`rc == 1 or rc <= b`: rc = 0 satisfies rc <= b anyway (b >= 1)",
    "agentmetrology.envs.comtrade.scoring.judge.x_efficiency__mutmut_20":
        "`rc < b`: at rc = b the formula gives 12 * (1 - 0) = 12 too",
    "agentmetrology.envs.comtrade.scoring.judge.x_efficiency__mutmut_23":
        "`rc > 2b`: at rc = 2b the formula gives 12 * (1 - 1) = 0 too",
    "agentmetrology.envs.comtrade.scoring.judge.x_efficiency__mutmut_41":
        "default time 1 s instead of 0: both are within 45 s",
    "agentmetrology.envs.comtrade.scoring.judge.x_query_points__mutmut_8":
        "get(name) without a default: the default is None",
    "agentmetrology.envs.comtrade.scoring.judge.x_request_count__mutmut_18":
        "lstrip('XX0XX') strips the characters X and 0; digits hold no X",
    "agentmetrology.envs.comtrade.scoring.judge.x_robustness__mutmut_29":
        "`or True`: an empty log splits into one empty line, which scores 0 (fewer than 3 lines, "
        "not longer than 10 characters) as 0 lines do",
    "agentmetrology.envs.comtrade.scoring.judge.x_robustness__mutmut_30":
        "else 1: one line of an empty log scores 0 as 0 lines do",
    "agentmetrology.envs.comtrade.scoring.judge.x_shape_judge__mutmut_31":
        "meta '' instead of None: absent metadata is a missing part, which returns before meta is"
        " read",
    "agentmetrology.envs.comtrade.scoring.judge.x_shape_judge__mutmut_83":
        "run_log default 'XXXX': an absent run log is a missing part, which returns before the "
        "log is read",
    "agentmetrology.envs.comtrade.scoring.judge.x_shape_judge__mutmut_88":
        "raw metadata text None: dimensions reads it only when json.dumps fails on the parsed "
        "metadata (meta_text's fallback), and json.dumps encodes every depth json.loads decodes "
        "(tried through judge_texts up to the decoder's limit, about 994 levels)",
    "agentmetrology.envs.comtrade.scoring.judge.x_shape_judge__mutmut_95":
        "raw metadata text '' (raw_meta is never empty here: empty metadata fails to parse and "
        "returns earlier): dimensions reads it only when json.dumps fails on the parsed metadata "
        "(meta_text's fallback), and json.dumps encodes every depth json.loads decodes (tried "
        "through judge_texts up to the decoder's limit, about 994 levels)",
    "agentmetrology.envs.comtrade.scoring.judge.x_shape_judge__mutmut_96":
        "'XXXX' only for an empty raw_meta, which returns earlier (it fails to parse)",
    # judge.py: arguments a RowTally makes unused
    "agentmetrology.envs.comtrade.scoring.judge.x_dimensions__mutmut_35":
        "data_quality(None, ...): dimensions has already turned the lines into a RowTally, which "
        "_tally returns as is without reading meta",
    "agentmetrology.envs.comtrade.scoring.judge.x_dimensions__mutmut_37":
        "data_quality(..., None): dimensions has already turned the lines into a RowTally, which "
        "_tally returns as is without reading the task",
    "agentmetrology.envs.comtrade.scoring.judge.x_meta_text__mutmut_3":
        "ensure_ascii=None is falsy, the same as False",
    # envs/comtrade/scoring/submission.py
    "agentmetrology.envs.comtrade.scoring.submission.x__read_part__mutmut_11":
        "reads limit + 2 bytes, not limit + 1: any read longer than the limit is refused with the"
        " size from stat, so the verdict and message are the same (the bound only caps memory)",
    "agentmetrology.envs.comtrade.scoring.submission.x__read_part__mutmut_9":
        "read() of the whole file: the same bytes when within the limit, the same refusal (size "
        "from stat) when not; only memory differs",
    "agentmetrology.envs.comtrade.scoring.submission.x_decode_part__mutmut_6":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.envs.comtrade.scoring.submission.x_make_submission__mutmut_5":
        "zip strict=None: PARTS and the three values have 3 items",
    "agentmetrology.envs.comtrade.scoring.submission.x_make_submission__mutmut_8":
        "zip without strict: PARTS and the three values have 3 items",
    "agentmetrology.envs.comtrade.scoring.submission.x_make_submission__mutmut_9":
        "zip strict=False: PARTS and the three values have 3 items",
    # serve/mcp_server.py
    "agentmetrology.serve.mcp_server.x_build_server__mutmut_27":
        "TextContent without type=: the field's default is 'text' (a Literal['text'])",
    "agentmetrology.serve.mcp_server.x_build_server__mutmut_32":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.serve.mcp_server.x_serve_http__mutmut_15":
        "uvicorn.Config without host=: its default host is '127.0.0.1', the same loopback address",
    # serve/mcp_server.py: the SDK's defaults
    "agentmetrology.serve.mcp_server.x_serve_stdio__mutmut_5":
        "server.run(read, write, None): the SDK's runner builds "
        "server.create_initialization_options() itself when given None (mcp/server/runner.py), "
        "the same options",
    # store/verify.py
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_7":
        "connect without uri=True: this sqlite3 is built with URI filenames on, so "
        "`file:...?mode=ro` is a read-only URI either way (a mode=ro connect to a missing file "
        "fails the same)",
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_10":
        "connect without uri=True: this sqlite3 is built with URI filenames on, so "
        "`file:...?mode=ro` is a read-only URI either way (a mode=ro connect to a missing file "
        "fails the same)",
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_11":
        "the busy timeout left at its default: the ledger is in WAL mode, where a reader never "
        "waits for a writer's lock",
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_12":
        "connect without uri=True: this sqlite3 is built with URI filenames on, so "
        "`file:...?mode=ro` is a read-only URI either way (a mode=ro connect to a missing file "
        "fails the same)",
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_13":
        "a busy timeout of 31 s: the ledger is in WAL mode, where a reader never waits for a "
        "writer's lock",
    "agentmetrology.store.verify.xǁ_Verifierǁrun__mutmut_11":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁrun__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁchain__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁrows__mutmut_22":
        "str(row[1]) for str(row[0]): every evidence table's first column is its identifier "
        "(store/schema.py), selected twice",
    "agentmetrology.store.verify.xǁ_Verifierǁrows__mutmut_50":
        "zip strict=None: row[1:] holds the columns of `cols`, from one SELECT",
    "agentmetrology.store.verify.xǁ_Verifierǁrows__mutmut_53":
        "zip without strict: row[1:] holds the columns of `cols`, from one SELECT",
    "agentmetrology.store.verify.xǁ_Verifierǁrows__mutmut_55":
        "zip strict=False: row[1:] holds the columns of `cols`, from one SELECT",
    "agentmetrology.store.verify.xǁ_Verifierǁchain__mutmut_8":
        SQL_CASE,
    "agentmetrology.store.verify.xǁ_Verifierǁrows__mutmut_101":
        "expected = None for {} at the end: freed either way, nothing reads it afterwards",
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_16":
        SQL_CASE,
    "agentmetrology.store.verify.x_open_ledger_readonly__mutmut_17":
        "the probe query in upper case, key literal included: its row is never used, it only "
        "shows that meta can be read",
    "agentmetrology.store.verify.xǁ_Verifierǁepisode_json__mutmut_6":
        "open() in text mode: the blob decodes as UTF-8 under the UTF-8 locale the suite and CI "
        "run in, and canonical JSON holds no raw newline to translate (another locale would "
        "differ: the code keeps 'rb')",
    "agentmetrology.store.verify.xǁ_Verifierǁtexts__mutmut_3":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁtexts__mutmut_4":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁtexts__mutmut_8":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.store.verify.xǁ_Verifierǁtexts__mutmut_28":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.store.verify.xǁ_Verifierǁhas_table__mutmut_6":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁreferenced__mutmut_3":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁreferenced__mutmut_4":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁreferenced__mutmut_21":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁreferenced__mutmut_22":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁblobs__mutmut_32":
        "blob_ok[d] = None for False: it is only read for its truth (`if not self.blob_ok[d]`, "
        "`.get(d)`), where None and False agree",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_3":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_4":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_5":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_6":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_7":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁblob_path__mutmut_8":
        "the invalid-digest path is never read: blob_path is opened only for a digest present() "
        "accepted, which requires a valid digest, so that branch only names a file",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_4":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_5":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_12":
        "tagged starts as None, not False: the same truth value",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_13":
        "every plan takes the decoding path: the json.dumps path is taken only for texts with no "
        "`\"$` and no `\\u00`, where no key can be a tag, so from_plain is the identity and "
        "canonical_json's options are json.dumps's: the same bytes",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_16":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_17":
        "SQL in another case: SQLite keywords and names are case-insensitive; no quoted literal "
        "changes",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_26":
        "zip strict=None: KEY_COLUMNS has 7 names and row[1:8] 7 values",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_29":
        "zip without strict: KEY_COLUMNS has 7 names and row[1:8] 7 values",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_32":
        "zip strict=False: KEY_COLUMNS has 7 names and row[1:8] 7 values",
    "agentmetrology.store.verify.xǁ_Verifierǁbindings__mutmut_35":
        "row[8:14]: the query selects 13 columns, so the slice is row[8:13] either way",
    "agentmetrology.store.verify.x__plan_digest__mutmut_12":
        "ensure_ascii=None is falsy, the same as False",
    "agentmetrology.store.verify.x__plan_digest__mutmut_13":
        "allow_nan=None is falsy, the same as False",
    "agentmetrology.store.verify.x__plan_digest__mutmut_29":
        "'UTF-8': codec names are case-insensitive",
    # store/ledger.py
    "agentmetrology.store.ledger.x__key__mutmut_1":
        "default offset 1: every caller passes the offset",
    "agentmetrology.store.ledger.x_binding_environment__mutmut_4":
        "'XX{}XX' for an empty binding: it fails to parse, and the ValueError branch returns the "
        "same default",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_40":
        SQL_CASE,
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_48":
        SQL_CASE,
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_56":
        SQL_CASE,
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_63":
        SQL_CASE,
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_64":
        SQL_CASE,
    "agentmetrology.store.ledger.x_missing_objects__mutmut_5":
        SQL_CASE,
    "agentmetrology.store.ledger.x_missing_objects__mutmut_6":
        SQL_CASE,
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_1":
        "default readonly=True: the only caller (EvidenceStore) passes readonly explicitly",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_3":
        "self.readonly = None: the attribute is never read",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_8":
        "isolation_level left at its default: every write runs in transaction()'s explicit BEGIN "
        "IMMEDIATE ... COMMIT, so the module's implicit transactions (opened only before a write "
        "outside a transaction) never open",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_9":
        "the busy timeout left at its default: the store's writer lock admits one writer, and WAL"
        " readers never wait, so no wait reaches it",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_10":
        "a busy timeout of 31 s: the store's writer lock admits one writer, and WAL readers never"
        " wait, so no wait reaches it",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_13":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_14":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_17":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_18":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_21":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁ__init____mutmut_22":
        "PRAGMA in another case: pragma names and values are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁseal_existing__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁseal_existing__mutmut_11":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁseal_existing__mutmut_17":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁseal_existing__mutmut_18":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign__mutmut_16":
        "zip strict=None: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign__mutmut_19":
        "zip without strict: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign__mutmut_21":
        "zip strict=False: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign_names__mutmut_4":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁcampaign_names__mutmut_5":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_13":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_28":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_29":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_31":
        "column names of an INSERT in another case: SQLite names are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_33":
        "column names of an INSERT in another case: SQLite names are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_35":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_56":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁregister_campaign__mutmut_57":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbegin_run__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbegin_run__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbegin_run__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbegin_run__mutmut_14":
        "lastrowid or 1: an INSERT that inserted a row sets lastrowid to its (positive) id, so "
        "the fallback is never read",
    "agentmetrology.store.ledger.xǁLedgerǁend_run__mutmut_6":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁend_run__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁinterrupt_started__mutmut_5":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁinterrupt_started__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁinterrupt_started__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁinterrupt_started__mutmut_16":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁinterrupt_started__mutmut_19":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_11":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_13":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁpending__mutmut_14":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁadministration__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁadministration__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁadministration__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁset_not_launched__mutmut_6":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁset_not_launched__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_17":
        "lastrowid or 1: an INSERT that inserted a row sets lastrowid to its (positive) id, so "
        "the fallback is never read",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_23":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁstart_attempts__mutmut_24":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁfail_attempt__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁfail_attempt__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_10":
        "column names of an INSERT in another case: SQLite names are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_13":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_billable__mutmut_27":
        "lastrowid or 1: an INSERT that inserted a row sets lastrowid to its (positive) id, so "
        "the fallback is never read (and it is read only when rowcount is 1)",
    "agentmetrology.store.ledger.xǁLedgerǁbillable_attempts__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbillable_attempts__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbillable_attempts__mutmut_14":
        "zip strict=None: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁbillable_attempts__mutmut_17":
        "zip without strict: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁbillable_attempts__mutmut_18":
        "zip strict=False: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_13":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_14":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_21":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_22":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_24":
        "column names of an INSERT in another case: SQLite names are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_26":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_29":
        "'UTF-8': codec names are case-insensitive",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_32":
        "zip strict=None: store.record computes one digest per assessment, from the same tuple",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_35":
        "zip without strict: store.record computes one digest per assessment, from the same tuple",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_36":
        "zip strict=False: store.record computes one digest per assessment, from the same tuple",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_42":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_58":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_59":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_61":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁrecord_episode__mutmut_62":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁ_check_attempt__mutmut_7":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁ_check_attempt__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁ_check_attempt__mutmut_37":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁ_check_attempt__mutmut_38":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_10":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_13":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_16":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_18":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_19":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_26":
        "zip strict=None: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_29":
        "zip without strict: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁattempts__mutmut_30":
        "zip strict=False: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_11":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_14":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_22":
        "zip strict=None: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_25":
        "zip without strict: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_27":
        "zip strict=False: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_34":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_35":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_37":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_38":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_40":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_41":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_52":
        "zip strict=None: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_55":
        "zip without strict: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁepisode__mutmut_56":
        "zip strict=False: the column names come from the same cursor's description as the row",
    "agentmetrology.store.ledger.xǁLedgerǁsupersede_measurement_failures__mutmut_12":
        "the seal callback is passed to an unsealed ledger too: Ledger._seal appends only when "
        "the ledger is sealed",
    "agentmetrology.store.ledger.xǁLedgerǁbinding__mutmut_8":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbinding__mutmut_9":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
    "agentmetrology.store.ledger.xǁLedgerǁbinding__mutmut_12":
        "SQL in another case: SQLite keywords and names are case-insensitive and a result's "
        "column names are the declared ones; no quoted literal changes",
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
    # envs/researchops/scorers.py
    "agentmetrology.envs.researchops.scorers.x_verifier_components__mutmut_43":
        "len(calls) < allowed for <=: at exactly `allowed` calls the other branch gives "
        "round(allowed / allowed) = 1.0, the same efficiency",
    "agentmetrology.envs.researchops.scorers.xǁCompositeVerifierScorerǁscore__mutmut_81":
        "c.get('evidence_mention', 1.0) for 0.0: the key is set whenever mention_weight is "
        "non-zero, and the default is multiplied by mention_weight = 0 otherwise",
    # records/contract.py: _step's KeyError is caught by lookup, its only caller, which raises
    # MissingEvidence(path) from None: the KeyError's argument is never read
    "agentmetrology.records.contract.x__step__mutmut_2": "KeyError(None) for KeyError(part)",
    "agentmetrology.records.contract.x__step__mutmut_10": "KeyError(None) for KeyError(part)",
    # diagnose/metrics.py: every zip pairs lists built from the same complete pairs, one item
    # per pair, so strict=True never fires and dropping it changes nothing
    **{f"agentmetrology.diagnose.metrics.{name}": SAME_LENGTH_ZIP for name in (
        "xǁ_Sidesǁof__mutmut_38", "xǁ_Sidesǁof__mutmut_41", "xǁ_Sidesǁof__mutmut_42",
        "x_group_metrics__mutmut_32", "x_group_metrics__mutmut_35",
        "x_group_metrics__mutmut_36", "x_group_metrics__mutmut_42",
        "x_group_metrics__mutmut_46", "x_group_metrics__mutmut_47")},
    "agentmetrology.diagnose.metrics.x_group_metrics__mutmut_73":
        "`if resc or True`: with no rescored pair _ci([], [], seed) returns None, the same",
    "agentmetrology.diagnose.metrics.x_group_metrics__mutmut_113":
        "compare_paired without tau=tau: tau only moves its flip and McNemar counts, and the "
        "diagnostics keep the difference, the equivalence, the sign-flip p and the unit",
    "agentmetrology.diagnose.metrics.x_add_excess_flips__mutmut_34":
        "same_units=None for False: excess_flip_rate only tests its truth value",
    # mutations/apply.py
    "agentmetrology.mutations.apply.x_name_map__mutmut_10":
        "misleading with len(names) >= 1 for > 1: the rotation of a single name is that name, "
        "the identity map the other branch returns",
    # scoring/rescore.py
    "agentmetrology.scoring.rescore.x_rescore_episode__mutmut_55":
        "score_submission without the base condition: it reads a condition only for its "
        "mutation, and the base of split_condition never carries one (default 'clean')",
    # diagnose/pairs.py
    "agentmetrology.diagnose.pairs.x_collect_pairs__mutmut_19":
        "environment_of(keys[1]) for keys[0]: every key of one campaign names the campaign's "
        "environment, and a campaign with a mutated key has at least two",
    "agentmetrology.diagnose.pairs.x_collect_pairs__mutmut_74":
        "`orig in by_key or True`: an original this campaign did not plan has no row under "
        "this campaign's name, so _side returns None either way",
    "agentmetrology.diagnose.pairs.x_collect_pairs__mutmut_79":
        "rescore=None for False on the original side: _side only tests its truth value",
    # assess/envelope.py
    "agentmetrology.assess.envelope.xǁEnvelopeǁas_dict__mutmut_48":
        "`lo is None and hi is None` for `or`: both have the denominator N, so they are None "
        "together or not at all",
    # audit/episodes.py
    "agentmetrology.audit.episodes.x__spectrum_row__mutmut_7":
        "summarize_cell without tau=0.9: 0.9 is its default",
    "agentmetrology.audit.episodes.x__spectrum_row__mutmut_8":
        "summarize_cell without alpha=0.2: 0.2 is its default",
    "agentmetrology.audit.episodes.x_reliability__mutmut_6":
        "`agents or tasks` for `and`: with either empty no episode runs (no agent, or no task "
        "to give each agent), so no row and no exclusion, the same None",
    # store/blobs.py
    "agentmetrology.store.blobs.xǁBlobStoreǁput__mutmut_51":
        "fd = -2 for -1 once the descriptor is closed: it is read only by `fd >= 0`, false for "
        "both",
}
