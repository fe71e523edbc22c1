"""What an LLM target is: model, endpoint, key variable, decoding and prices (no secrets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Prices:
    """Prices in currency units per million tokens; None means unknown (cost becomes null)."""

    input_per_m: float | None = None
    output_per_m: float | None = None
    cached_per_m: float | None = None

    def cost(self, input_tokens: int | None, output_tokens: int | None,
             cached_tokens: int | None) -> float | None:
        """Return the cost of one attempt, or None when a needed price or count is unknown.

        Cached input tokens are billed at the cached price and the rest of the input at the
        input price; an unknown price never becomes a silent 0.
        """
        if input_tokens is None or output_tokens is None:
            return None
        cached = cached_tokens or 0
        if self.input_per_m is None or self.output_per_m is None:
            return None
        if cached and self.cached_per_m is None:
            return None
        cached_price = self.cached_per_m or 0.0
        return ((input_tokens - cached) * self.input_per_m + cached * cached_price
                + output_tokens * self.output_per_m) / 1_000_000


@dataclass(frozen=True, slots=True)
class LLMTarget:
    """An LLM under test. The API key is named by `api_key_env`, never stored."""

    name: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    decoding: dict[str, Any] = field(default_factory=dict)  # temperature, top_p, max_tokens...
    prices: Prices = field(default_factory=Prices)
    max_retries: int = 4  # per request, on 429 / 5xx / timeouts; each retry is its own attempt
    timeout_s: float = 60.0

    def public(self) -> dict[str, Any]:
        """Return the target as plain data safe to store (no key, only the variable's name)."""
        return {
            "name": self.name, "model": self.model, "base_url": self.base_url,
            "api_key_env": self.api_key_env, "decoding": dict(self.decoding),
            "prices": {"input_per_m": self.prices.input_per_m,
                       "output_per_m": self.prices.output_per_m,
                       "cached_per_m": self.prices.cached_per_m},
            "max_retries": self.max_retries, "timeout_s": self.timeout_s,
        }
