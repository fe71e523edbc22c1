"""Errors a policy raises to say the measurement failed, not the agent."""


class InfraError(Exception):
    """Raised by a policy when its infrastructure failed (e.g. a provider's retries ran out)."""
