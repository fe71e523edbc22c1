"""agentmetrology: valid measurement of LLM agents."""

__version__ = "0.1.0"
