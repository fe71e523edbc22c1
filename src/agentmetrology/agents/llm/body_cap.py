"""A chat-completion response body is read up to MAX_RESPONSE_BYTES, never further.

A broken or hostile endpoint can send a body without end (chunked, no length) or announce one
of gigabytes. Read whole, it held the run's memory, and the CPU of redacting every byte, until
the machine gave out. Past the cap the answer is unusable (`invalid_response`, retried like any
other, its tokens and cost unknown: the provider produced it and may bill it). The cap is far
above any completion a policy can use (128 k output tokens are well under a mebibyte, and
`logprobs` for all of them a few tens of mebibytes), and the same on both HTTP paths.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class ResponseTooLarge(Exception):
    """The response body is (or announced itself) larger than MAX_RESPONSE_BYTES."""

    def __init__(self) -> None:
        super().__init__(f"response body larger than {MAX_RESPONSE_BYTES} bytes "
                         "(not read further)")


def check_length(announced: int | None) -> None:
    """Raise ResponseTooLarge when a body's announced length is past the cap."""
    if announced is not None and announced > MAX_RESPONSE_BYTES:
        raise ResponseTooLarge


async def read_capped(resp: Any) -> bytes:
    """Return an aiohttp response's body, raising ResponseTooLarge once it passes the cap."""
    announced = resp.content_length
    check_length(announced)
    if announced is not None:  # aiohttp reads no further than the length announced
        return bytes(await resp.read())
    parts: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_any():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ResponseTooLarge
        parts.append(chunk)
    return b"".join(parts)


async def cap_httpx_response(response: Any) -> None:
    """An httpx response hook: the body the client reads next stops at the cap.

    httpx calls response hooks before it reads a body it was not asked to stream, so the
    stream swapped in here is the one the whole body is read through.
    """
    try:
        announced = int(response.headers.get("content-length", ""))
    except ValueError:
        announced = None
    check_length(announced)
    response.stream = _capped_stream(response.stream)


def _capped_stream(inner: Any) -> Any:
    """Return an httpx async byte stream over `inner` that raises once it passes the cap."""
    # The SDK's own httpx (some openai releases ship a renamed copy, `httpx2`) closes only an
    # AsyncByteStream of its own module after an error: subclass the one `inner` comes from.
    base = next((c for c in type(inner).__mro__ if c.__name__ == "AsyncByteStream"), object)

    class CappedStream(base):  # type: ignore[valid-type,misc]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            size = 0
            async for chunk in inner:
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise ResponseTooLarge
                yield chunk

        async def aclose(self) -> None:
            await inner.aclose()

    return CappedStream()
