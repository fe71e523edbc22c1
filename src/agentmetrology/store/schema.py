"""The ledger's SQLite schema (one file, WAL mode) and its version."""

from __future__ import annotations

SCHEMA_VERSION = "1"

# A provider request (a `billable_attempts` row, as `b`) whose input or output token count is
# unknown: a timeout, a cancelled request, an answer without usable usage. Sums of the known
# counts are lower bounds wherever one exists (status, export, agm run, the budget).
TOKENS_UNKNOWN_SQL = "(b.input_tokens IS NULL OR b.output_tokens IS NULL)"
# An episode served to an outside client (`agm serve mcp`, as `e`): its model requests are the
# client's, never seen here, so its token counts are unknown although its row holds 0 and 0.
# store.evidence.recorded_cost makes a cost unknown only for such an episode or for a request
# of unknown cost, and an episode with no model attempt has no such request: so this is it.
SERVED_EPISODE_SQL = "(e.cost IS NULL AND e.model_attempts = 0)"


def served_episode(cost: float | None, model_attempts: int) -> bool:
    """Return SERVED_EPISODE_SQL for one episode row's values."""
    return cost is None and model_attempts == 0

# Why each constraint exists:
# - administrations UNIQUE(key): the idempotency key; planning twice never duplicates.
# - attempts are append-only history: a rerun adds a row, never replaces one.
# - episodes PRIMARY KEY(administration): at most one recorded episode per key, whatever the
#   caller does; a duplicate submission fails inside SQLite, not only in Python.
# - assessments UNIQUE(administration, scorer, scorer_version): one verdict per instrument.
# - superseded_episodes: history of measurement failures re-opened by a retrying run (only
#   measurement failures, by CHECK); their assessments move to superseded_assessments. Both were
#   added after schema 1 shipped and are created on open, so older stores gain them unchanged.
# - billable_attempts: one row per provider request, written by the single writer when the
#   response arrives (not with the finished episode), keyed by the store attempt and the
#   client's request id within it (UNIQUE: a request is billed once). A killed run therefore
#   loses at most the requests in flight. Rows of an attempt whose episode is recorded are
#   already in that episode's cost; the others (interrupted or failed attempts) are counted on
#   their own. Created on open, so older stores gain it unchanged.
# - cases, case_events, case_uses: the case lifecycle (assess.cases). A case row is immutable
#   (its source record: episode key, evidence digests, failing assessment); every transition
#   is a new case_events row (the state is the latest one), every use a case_uses row (the
#   consumption receipt, with the digests of the episode it recorded). Append-only, so a
#   withdrawal keeps earlier evidence and receipts. Created on open, so older stores gain them
#   unchanged (their chain is untouched: empty tables add no entry).
# - grader_calls: one row per provider request a grader made (the LLM judges of `agm diagnose
#   --judge-model`), keyed by the grader and the client's request id (billed once). A grader is
#   not an agent: its cost is never an episode's and is summed apart. `subject` names what it
#   judged (episode, view, call). Created on open, so older stores gain it unchanged.
# - grader_verdicts: one row per question a grader answered (store.grader_verdicts): the judge
#   audit's run, the grader, the episode, view and call it judged, the verdict it gave (NULL:
#   none could be read, `reason` says why) and its answer as written, so the audit's numbers
#   are derived again from the store (`agm evidence qualify --recompute`) without asking the
#   judge again. Append-only; created on open, so older stores gain it unchanged.
# Bindings and assessments are small records kept as canonical JSON in their rows, each with
# the sha256 of that text; blobs hold the evidence (episodes, submissions), one file each.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS campaigns (
    name TEXT PRIMARY KEY,
    registration_id TEXT NOT NULL UNIQUE,
    plan_digest TEXT NOT NULL,
    config_digest TEXT NOT NULL,
    source_digest TEXT,
    planned INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    campaign TEXT NOT NULL REFERENCES campaigns(name),
    backend TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS administrations (
    id INTEGER PRIMARY KEY,
    campaign TEXT NOT NULL REFERENCES campaigns(name),
    target TEXT NOT NULL,
    task TEXT NOT NULL,
    seed INTEGER NOT NULL,
    condition TEXT NOT NULL,
    level TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    task_spec_digest TEXT NOT NULL,
    target_config_digest TEXT NOT NULL,
    scorer_versions TEXT NOT NULL,
    registration_id TEXT NOT NULL,
    binding TEXT NOT NULL,
    binding_digest TEXT NOT NULL,
    sealed_at TEXT NOT NULL,
    not_launched TEXT,
    UNIQUE (campaign, target, task, seed, condition, level, repeat),
    UNIQUE (campaign, ordinal)
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    administration INTEGER NOT NULL REFERENCES administrations(id),
    run INTEGER REFERENCES runs(id),
    status TEXT NOT NULL CHECK (status IN ('started', 'finished', 'interrupted', 'failed')),
    backend TEXT NOT NULL,
    worker TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    detail TEXT
);
CREATE INDEX IF NOT EXISTS attempts_by_administration ON attempts(administration);
CREATE INDEX IF NOT EXISTS attempts_by_status ON attempts(status);
CREATE TABLE IF NOT EXISTS episodes (
    administration INTEGER PRIMARY KEY REFERENCES administrations(id),
    attempt INTEGER NOT NULL UNIQUE REFERENCES attempts(id),
    episode_digest TEXT NOT NULL,
    submission_digest TEXT,
    termination TEXT NOT NULL,
    termination_detail TEXT NOT NULL,
    measurement_failure INTEGER NOT NULL,
    cost REAL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    model_attempts INTEGER NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS assessments (
    id INTEGER PRIMARY KEY,
    administration INTEGER NOT NULL REFERENCES episodes(administration),
    scorer TEXT NOT NULL,
    scorer_version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'PARTIAL', 'UNKNOWN', 'INVALID')),
    score REAL,
    evidence_digest TEXT NOT NULL,
    assessment TEXT NOT NULL,
    assessment_digest TEXT NOT NULL,
    UNIQUE (administration, scorer, scorer_version)
);
CREATE TABLE IF NOT EXISTS superseded_episodes (
    id INTEGER PRIMARY KEY,
    administration INTEGER NOT NULL REFERENCES administrations(id),
    attempt INTEGER NOT NULL UNIQUE REFERENCES attempts(id),
    episode_digest TEXT NOT NULL,
    submission_digest TEXT,
    termination TEXT NOT NULL,
    termination_detail TEXT NOT NULL,
    measurement_failure INTEGER NOT NULL CHECK (measurement_failure = 1),
    cost REAL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    model_attempts INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    superseded_by_run INTEGER REFERENCES runs(id),
    superseded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS billable_attempts (
    id INTEGER PRIMARY KEY,
    attempt INTEGER NOT NULL REFERENCES attempts(id),
    billing_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    request_id TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cached_tokens INTEGER,
    cost REAL,
    latency_s REAL NOT NULL,
    outcome TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (attempt, billing_id)
);
CREATE TABLE IF NOT EXISTS grader_calls (
    id INTEGER PRIMARY KEY,
    grader TEXT NOT NULL,
    purpose TEXT NOT NULL,
    subject TEXT NOT NULL,
    billing_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    request_id TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cached_tokens INTEGER,
    cost REAL,
    latency_s REAL NOT NULL,
    outcome TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (grader, billing_id)
);
CREATE TABLE IF NOT EXISTS grader_verdicts (
    id INTEGER PRIMARY KEY,
    run TEXT NOT NULL,
    grader TEXT NOT NULL,
    purpose TEXT NOT NULL,
    subject TEXT NOT NULL,
    view TEXT NOT NULL,
    call INTEGER NOT NULL,
    verdict TEXT,
    reason TEXT NOT NULL,
    answer TEXT,
    UNIQUE (run, grader, subject, view, call)
);
CREATE INDEX IF NOT EXISTS superseded_by_administration ON superseded_episodes(administration);
CREATE TABLE IF NOT EXISTS superseded_assessments (
    id INTEGER PRIMARY KEY,
    superseded INTEGER NOT NULL REFERENCES superseded_episodes(id),
    administration INTEGER NOT NULL REFERENCES administrations(id),
    scorer TEXT NOT NULL,
    scorer_version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('PASS', 'FAIL', 'PARTIAL', 'UNKNOWN', 'INVALID')),
    score REAL,
    evidence_digest TEXT NOT NULL,
    assessment TEXT NOT NULL,
    assessment_digest TEXT NOT NULL,
    UNIQUE (superseded, scorer, scorer_version)
);
CREATE TABLE IF NOT EXISTS cases (
    id TEXT PRIMARY KEY,
    environment TEXT NOT NULL,
    task TEXT NOT NULL,
    seed INTEGER NOT NULL,
    condition TEXT NOT NULL,
    level TEXT NOT NULL,
    profile TEXT NOT NULL,
    source TEXT NOT NULL,
    source_digest TEXT NOT NULL,
    proposed_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS case_events (
    id INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL REFERENCES cases(id),
    state TEXT NOT NULL CHECK (state IN ('proposed', 'calibrated', 'admitted', 'active',
                                         'withdrawn')),
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS case_events_by_case ON case_events(case_id);
CREATE TABLE IF NOT EXISTS case_uses (
    id INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL REFERENCES cases(id),
    agent TEXT NOT NULL,
    level TEXT NOT NULL,
    episode_digest TEXT NOT NULL,
    submission_digest TEXT,
    status TEXT NOT NULL,
    result TEXT NOT NULL,
    used_at TEXT NOT NULL
);
"""

# Read-side indexes, created when a writer opens the ledger (a store opened only for reading
# works without them, more slowly). `assessments_verdicts` covers what status, its cells and
# the viewer read of every assessment, in the order of the UNIQUE index (so sums run in the
# same order), without reading the assessment rows, which carry their full JSON text;
# `administrations_revisions` gives the task revisions of score rows (a set) without reading
# the administrations' rows; `chain_by_ref` finds a row's chain entries up to a verified head
# without reading the chain's prefix (an incremental check, store.verify_scope: on a store of a
# million episodes that prefix is seven million entries); `administrations_cells` and
# `assessments_scorers` give the episode index's filter choices (the distinct levels,
# conditions and scorers) by a few seeks instead of a read of every row (store.reader_choices);
# `administrations_not_launched` finds the few administrations not launched for the viewer's
# front page (store.reader_queries) without reading every administration row.
# Indexes are not rows: the hash chain does not see them.
WRITER_INDEXES = """
CREATE INDEX IF NOT EXISTS assessments_verdicts
    ON assessments(administration, scorer, scorer_version, status, score);
CREATE INDEX IF NOT EXISTS administrations_revisions
    ON administrations(campaign, target, task_spec_digest);
CREATE INDEX IF NOT EXISTS chain_by_ref ON chain(tbl, ref, seq);
CREATE INDEX IF NOT EXISTS administrations_cells ON administrations(level, condition);
CREATE INDEX IF NOT EXISTS assessments_scorers ON assessments(scorer);
CREATE INDEX IF NOT EXISTS administrations_not_launched ON administrations(campaign)
    WHERE not_launched IS NOT NULL
"""
