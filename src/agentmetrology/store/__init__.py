"""Evidence store: content-addressed blobs and a SQLite ledger keyed by idempotency keys."""

from agentmetrology.store.blobs import BlobCorruptError, BlobError, BlobMissingError, BlobStore
from agentmetrology.store.errors import StoreError
from agentmetrology.store.evidence import AssessmentEvidence, EpisodeEvidence
from agentmetrology.store.ledger_records import (
    Administration,
    AttemptStateError,
    BindingMismatchError,
    CampaignMismatchError,
    DuplicateEpisodeError,
    LedgerError,
    RecordedDigests,
)
from agentmetrology.store.lock import StoreBusyError
from agentmetrology.store.paths import StorePathError
from agentmetrology.store.redact import Redactor
from agentmetrology.store.status import CampaignStatus, Counts
from agentmetrology.store.store import (
    Binding,
    EvidenceStore,
    NotAStoreError,
    StoreNotFoundError,
    StoreReadOnlyError,
)

__all__ = [
    "Administration",
    "AssessmentEvidence",
    "AttemptStateError",
    "Binding",
    "BindingMismatchError",
    "BlobCorruptError",
    "BlobError",
    "BlobMissingError",
    "BlobStore",
    "CampaignMismatchError",
    "CampaignStatus",
    "Counts",
    "DuplicateEpisodeError",
    "EpisodeEvidence",
    "EvidenceStore",
    "LedgerError",
    "NotAStoreError",
    "RecordedDigests",
    "Redactor",
    "StoreBusyError",
    "StoreError",
    "StoreNotFoundError",
    "StorePathError",
    "StoreReadOnlyError",
]
