"""Where a target's requests go and how: the endpoint's label, its key, and the HTTP path.

Keys are read from the named environment variable only when the first request is made; the
provider label is the endpoint's host[:port] without credentials, safe to record.
"""

from __future__ import annotations

import functools
import os
import ssl
from urllib.parse import urlsplit

from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records.errors import InfraError

# Sent when no key variable is configured: local servers (vLLM, Ollama, llama.cpp) ignore the
# key, but the SDK insists on one. Never a real credential.
PLACEHOLDER_KEY = "agm-no-key"
DEFAULT_OPENAI_KEY_ENV = "OPENAI_API_KEY"
HTTP_CLIENTS = ("lean", "sdk")
HTTP_CLIENT_ENV = "AGM_LLM_CLIENT"


def provider_of(target: LLMTarget) -> str:
    """Return the provider label of a target: the endpoint's host[:port], without credentials."""
    if not target.base_url:
        return "api.openai.com"
    parts = urlsplit(target.base_url)
    return (parts.netloc.rsplit("@", 1)[-1] or parts.path or "unknown").lower()


def key_env_of(target: LLMTarget) -> str | None:
    """Return the key variable: the configured one, else OPENAI_API_KEY for api.openai.com."""
    if target.api_key_env:
        return target.api_key_env
    return DEFAULT_OPENAI_KEY_ENV if not target.base_url else None


def resolve_api_key(target: LLMTarget) -> str:
    """Return the API key from the target's variable (or a placeholder), or raise InfraError."""
    name = key_env_of(target)
    if name is None:
        return PLACEHOLDER_KEY
    value = os.environ.get(name)
    if not value:
        raise InfraError(f"the API key variable {name} is not set (target {target.name!r}, "
                         f"endpoint {provider_of(target)}); export it, or name another "
                         "variable with --api-key-env / api_key_env")
    return value


def resolve_http_client(choice: str | None = None) -> str:
    """Return the HTTP path to use: `choice`, else $AGM_LLM_CLIENT, else lean if it can run.

    ValueError for a name that is neither "lean" nor "sdk", or for "lean" without aiohttp.
    """
    from agentmetrology.agents.llm.lean import available

    name = (choice or os.environ.get(HTTP_CLIENT_ENV) or "").strip().lower()
    if not name:
        return "lean" if available() is None else "sdk"
    if name not in HTTP_CLIENTS:
        source = "http_client" if choice else HTTP_CLIENT_ENV
        raise ValueError(f"unknown LLM HTTP client {name!r} ({source}); use lean or sdk")
    problem = available() if name == "lean" else None
    if problem is not None:
        raise ValueError(problem)
    return name


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """Return the process-wide TLS context (SSL_CERT_FILE, else certifi, else system roots)."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:  # no certifi: the system's trust store
            cafile = None
    return ssl.create_default_context(cafile=cafile)
