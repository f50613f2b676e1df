"""Reading a model server's answers off the wire, through either HTTP client's response (a `Reply`): a stream's
chunks as they arrive (llm/wire.py parses them), an unstreamed answer's JSON, and the timeouts for a request."""

from __future__ import annotations

import asyncio
import ssl
from contextlib import suppress
from functools import lru_cache
from typing import AsyncIterator, Callable, Protocol

import anyio
import httpx
import httpx2
import openai

from llm.wire import ChunkReader, JsonView, read_json
from net.connections import HttpTimeout, Response
from net.http1 import HttpError

# What reading a streamed body may raise, as the SDK's stream sorts it (openai/_httpx2.py): the client may be
# an httpx2 one (the SDK's own) or an httpx one passed in (bench/proactive.py).
READ_TIMEOUTS = (httpx2.TimeoutException, httpx.TimeoutException, HttpTimeout)
READ_FAILURES = (httpx2.RequestError, httpx.RequestError, ssl.SSLError, anyio.EndOfStream, HttpError)
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


class Reply(Protocol):
    """A model server's answer as llm/posting.py got it, through either HTTP client: its status, its body whole
    (`content`, for an unstreamed answer) or piece by piece, and the request an error names."""

    status: int
    content: bytes
    request: httpx2.Request
    http11: bool  # its connection goes back to the pool once the body is read to its end

    async def next_piece(self) -> bytes | None: ...

    async def rest(self, seconds: float) -> None:
        """Leave the connection unread for `seconds` where it can be paused and its body is not all in: the
        next piece holds what came meanwhile."""

    async def aclose(self) -> None: ...

    def as_httpx(self) -> httpx2.Response: ...


class PoolReply:
    """An answer that came through the bot's own HTTP client (net/connections.py)."""

    def __init__(self, response: Response, request: httpx2.Request) -> None:
        self.response, self.request = response, request
        self.status, self.http11 = response.status, response.http11

    @property
    def content(self) -> bytes:
        return self.response.content

    async def next_piece(self) -> bytes | None:
        return await self.response.next_piece()

    async def rest(self, seconds: float) -> None:
        self.response.rest(seconds)  # a timer reads the socket again; the next piece waits for it

    async def aclose(self) -> None:
        self.response.close()

    def as_httpx(self) -> httpx2.Response:
        return httpx2.Response(self.status, headers=list(self.response.headers.items()),
                               content=self.response.content, request=self.request)


class SdkReply:
    """An answer that came through the SDK client's HTTP client (httpx2, over whatever transport it has)."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response, self.request = response, response.request
        self.status, self.http11 = response.status_code, response.http_version == "HTTP/1.1"
        self._pieces: AsyncIterator[bytes] | None = None

    @property
    def content(self) -> bytes:
        return self.response.content

    async def next_piece(self) -> bytes | None:
        if self._pieces is None:
            self._pieces = self.response.aiter_bytes()
        try:
            return await anext(self._pieces)
        except StopAsyncIteration:
            return None

    async def rest(self, seconds: float) -> None:
        connection = pausable(self.response) if seconds > 0 else None
        if connection is None:
            return
        connection.pause_reading()
        try:
            await asyncio.sleep(seconds)
        finally:
            if connection.transport is not None:
                connection.resume_reading()

    async def aclose(self) -> None:
        if self._pieces is not None:
            await self._pieces.aclose()  # type: ignore[attr-defined]
        await self.response.aclose()

    def as_httpx(self) -> httpx2.Response:
        return self.response


class Pausable(Protocol):
    """A connection that can stop reading its socket for a while (aiohttp's client protocol)."""

    transport: object | None

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


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


async def read_chunks(reply: Reply, pace: Callable[[], float] | None = None) -> AsyncIterator[list[JsonView]]:
    """Yield the chunks of a streamed answer as its body arrives (llm/wire.py reads them), up to [DONE]: a list of
    those each read completes (none is yielded empty).

    With `pace`, the connection is not read for `pace()` seconds after each read, where the HTTP stack lets it be
    paused (the bot's own client, or aiohttp's under the SDK); the pieces that came meanwhile are read at once.
    An error event raises openai.APIError, and a broken or timed-out read the SDK's APIConnectionError or
    APITimeoutError, as the SDK's own stream does, after the chunks before it. After [DONE] the rest of the body
    is read for a moment, so that an HTTP/1.1 connection goes back to the pool. Closing the reply is the
    caller's.
    """
    reader = ChunkReader(reply.request)
    try:
        while (piece := await reply.next_piece()) is not None:
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
                if reply.http11:
                    with suppress(TimeoutError, *READ_FAILURES):
                        async with asyncio.timeout(DRAIN_S):
                            while await reply.next_piece() is not None:
                                pass
                return
            if pace is not None:
                await reply.rest(pace())
        chunks = list(reader.close())
        if chunks:
            yield chunks
    except READ_TIMEOUTS as error:
        raise openai.APITimeoutError(request=reply.request) from error
    except READ_FAILURES as error:
        raise openai.APIConnectionError(request=reply.request) from error


def answer_of(reply: Reply) -> JsonView:
    """Return an unstreamed answer's JSON object; openai.APIResponseValidationError when it holds none."""
    try:
        return read_json(reply.content)
    except ValueError as error:  # UnicodeDecodeError too
        response = reply.as_httpx()
        raise openai.APIResponseValidationError(
            response, response.text, message=f"the server's answer is not a JSON object ({error})"
        ) from error


@lru_cache(maxsize=16)
def timeouts(seconds: float, stream: bool) -> httpx2.Timeout:
    """Return the HTTP client's timeouts for one request: `seconds` for each step, except a stream's reads,
    which ChatModel._stream_once's silence timer watches (llm/client.py); a read timeout of the client's own
    would set a timer afresh for every piece that arrives. The same few, made once (httpx2 checks its
    arguments against a protocol each time: some 3 µs a request)."""
    return httpx2.Timeout(seconds, read=None if stream else seconds)
