"""Reading a model server's answers off the wire, through the SDK client's HTTP response: a stream's chunks as
they arrive (llm/wire.py parses them), an unstreamed answer's JSON, and the client's timeouts for a request."""

from __future__ import annotations

import asyncio
import ssl
from contextlib import aclosing, suppress
from typing import AsyncIterator, Callable, Protocol

import anyio
import httpx
import httpx2
import openai

from llm.wire import ChunkReader, JsonView, read_json

# What reading a streamed body may raise, as the SDK's stream sorts it (openai/_httpx2.py): the client may be
# an httpx2 one (the SDK's own) or an httpx one passed in (bench/proactive.py).
READ_TIMEOUTS = (httpx2.TimeoutException, httpx.TimeoutException)
READ_FAILURES = (httpx2.RequestError, httpx.RequestError, ssl.SSLError, anyio.EndOfStream)
DRAIN_S = 0.1  # how long the rest of a body after [DONE] is read, so that its connection is used again
# A stream's body is read at most this often: a real model writes each token on its own, and reading each as it
# arrives wakes the process a hundred times a reply (bench/stream_reading.py: that alone is 7 ms of CPU on
# uvloop, 31 ms through the SDK). Between reads the socket is left alone and the kernel gathers what comes. Every
# wake-up of the process costs more than the work it does (issue 42), so reads are spaced as far as drafts allow:
# PACE_S while nothing of the answer has come (its first words are read within that), then at most ANSWER_PACE_S,
# or sooner when the reader wants fresh text for a draft (the `pace` ChatModel._stream_once gives). The answer's
# end is known at most that much later.
PACE_S = 0.2
ANSWER_PACE_S = 0.5
SHORTEST_PACE_S = 0.05  # a draft due sooner than this waits for it: a read costs a wake-up


class Pausable(Protocol):
    """A connection that can stop reading its socket for a while (aiohttp's client protocol)."""

    transport: object | None

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


async def read_chunks(
    response: httpx2.Response, pace: Callable[[], float] | None = None
) -> AsyncIterator[list[JsonView]]:
    """Yield the chunks of a streamed answer as its body arrives (llm/wire.py reads them), up to [DONE]: a list of
    those each read completes (none is yielded empty).

    With `pace`, the connection is not read for `pace()` seconds after each read, where the HTTP stack lets it be
    paused (aiohttp's, as llm/servers.py builds the client); the pieces that came meanwhile are read at once.
    An error event raises openai.APIError, and a broken or timed-out read the SDK's APIConnectionError or
    APITimeoutError, as the SDK's own stream does, after the chunks before it. After [DONE] the rest of the body
    is read for a moment, so that an HTTP/1.1 connection goes back to the pool. Closing the response is the
    caller's.
    """
    reader = ChunkReader(response.request)
    try:
        async with aclosing(response.aiter_bytes()) as body:
            async for piece in body:
                chunks: list[JsonView] = []
                try:
                    chunks.extend(reader.feed(piece))
                except Exception:  # an error event, or no JSON: the chunks before it first
                    if chunks:
                        yield chunks
                    raise
                if chunks:
                    yield chunks
                if reader.done:
                    if response.http_version == "HTTP/1.1":
                        with suppress(TimeoutError, *READ_FAILURES):
                            async with asyncio.timeout(DRAIN_S):
                                async for _ in body:
                                    pass
                    return
                if pace is not None:
                    await paused(response, pace())
            chunks = list(reader.close())
            if chunks:
                yield chunks
    except READ_TIMEOUTS as error:
        raise openai.APITimeoutError(request=response.request) from error
    except READ_FAILURES as error:
        raise openai.APIConnectionError(request=response.request) from error


async def paused(response: httpx2.Response, seconds: float) -> None:
    """Leave the response's connection unread for `seconds`, where it can be paused and its body is not all in."""
    connection = pausable(response) if seconds > 0 else None
    if connection is None:
        return
    connection.pause_reading()
    try:
        await asyncio.sleep(seconds)
    finally:
        if connection.transport is not None:
            connection.resume_reading()


def pausable(response: httpx2.Response) -> Pausable | None:
    """Return the connection under an SDK response when it can stop reading for a while: aiohttp's protocol,
    under the SDK's httpx adapter (openai/_vendor/httpx_aiohttp). None for any other stack, or once closed."""
    stream = getattr(response.stream, "_stream", None)  # httpx's BoundAsyncStream holds the transport's
    aiohttp_response = getattr(stream, "_aiohttp_response", None)
    connection = getattr(aiohttp_response, "connection", None)
    protocol = getattr(connection, "protocol", None)
    if protocol is None or getattr(protocol, "transport", None) is None:
        return None
    return protocol


def answer_of(response: httpx2.Response) -> JsonView:
    """Return an unstreamed answer's JSON object; openai.APIResponseValidationError when it holds none."""
    try:
        return read_json(response.content)
    except ValueError as error:  # UnicodeDecodeError too
        raise openai.APIResponseValidationError(
            response, response.text, message=f"the server's answer is not a JSON object ({error})"
        ) from error


def timeouts(seconds: float, stream: bool) -> httpx2.Timeout:
    """Return the HTTP client's timeouts for one request: `seconds` for each step, except a stream's reads,
    which ChatModel._stream_once's silence timer watches (llm/client.py); a read timeout of the client's own
    would set a timer afresh for every piece that arrives."""
    return httpx2.Timeout(seconds, read=None if stream else seconds)
