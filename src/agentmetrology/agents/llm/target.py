"""What an LLM target is: model, endpoint, key variable, decoding and prices (no secrets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmetrology.agents.registry import AGENT_PREFIX


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
        input price; an unknown price never becomes a silent 0, and counts no bill can have
        (negative, or more cached than input tokens) never a negative cost.
        """
        if input_tokens is None or output_tokens is None:
            return None
        cached = cached_tokens or 0
        if min(input_tokens, output_tokens, cached) < 0 or cached > input_tokens:
            return None  # counts no bill can have (checked where they arrive, usage.py)
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


# `--model provider/name` as Inspect AI writes it: each provider's OpenAI-compatible endpoint
# and the variable Inspect reads its key from. None as the endpoint means the SDK's default
# (api.openai.com), so `--model openai/M` is exactly `--agent llm:M` and resumes its store.
PROVIDERS: dict[str, tuple[str | None, str | None]] = {
    "openai": (None, None),
    "anthropic": ("https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY"),
    "google": ("https://generativelanguage.googleapis.com/v1beta/openai/", "GOOGLE_API_KEY"),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "ollama": ("http://127.0.0.1:11434/v1", None),
    "vllm": ("http://127.0.0.1:8000/v1", None),
}
GENERIC = "openai-api"  # openai-api/SERVICE/MODEL: SERVICE_BASE_URL and SERVICE_API_KEY


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A `provider/name` model: the model sent to the endpoint, the endpoint and key variable."""

    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None

    @property
    def agent(self) -> str:
        """Return the `llm:MODEL` agent spec this model runs as."""
        return f"{AGENT_PREFIX}{self.model}"


def parse_model_spec(text: str, environ: dict[str, str] | None = None,
                     base_url: str | None = None) -> ModelSpec:
    """Return the ModelSpec of "provider/name" (the name may hold further "/" and ":").

    ValueError (one line) for a missing part or an unknown provider, naming the known ones.
    `openai-api/SERVICE/MODEL` reads the endpoint from SERVICE_BASE_URL (upper case, "-" as
    "_") in `environ` (default: the process environment) unless `base_url` is given, and the
    key from SERVICE_API_KEY.
    """
    import os

    env = os.environ if environ is None else environ
    provider, slash, model = text.strip().partition("/")
    known = ", ".join([*PROVIDERS, f"{GENERIC}/SERVICE"])
    if not slash or not provider or not model.strip("/"):
        raise ValueError(f"--model {text!r}: expected PROVIDER/MODEL, e.g. "
                         f"openai/gpt-4o-mini (providers: {known})")
    if provider == GENERIC:
        service, slash, name = model.partition("/")
        if not slash or not service or not name:
            raise ValueError(f"--model {text!r}: expected {GENERIC}/SERVICE/MODEL")
        prefix = service.upper().replace("-", "_")
        url = base_url or env.get(f"{prefix}_BASE_URL")
        if not url:
            raise ValueError(f"--model {text!r}: set {prefix}_BASE_URL to the service's "
                             "OpenAI-compatible endpoint, or give --base-url")
        return ModelSpec(service, name, url, f"{prefix}_API_KEY")
    if provider not in PROVIDERS:
        raise ValueError(f"--model {text!r}: unknown provider {provider!r}; known: {known} "
                         "(or use --agent llm:MODEL --base-url URL)")
    base_url, key_env = PROVIDERS[provider]
    return ModelSpec(provider, model, base_url, key_env)
