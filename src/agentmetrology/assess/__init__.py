"""Evidence-bound assessment: contract estimands, unresolved-outcome envelopes, masking."""

from agentmetrology.assess.envelope import Envelope, envelope_of, percent
from agentmetrology.assess.masking import mask_evidence

__all__ = ["Envelope", "envelope_of", "mask_evidence", "percent"]
