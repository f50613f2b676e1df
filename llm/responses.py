"""Reading a model server's answers from the httpx2 response the openai SDK's `post` gives (llm/client.py): a
stream's chunks as they arrive, paced (llm/wire.py reads them), an unstreamed answer's JSON, and the timeouts for
a request. Failures are the SDK's own errors, as its parsed stream raises them."""

from __future__ import annotations

import asyncio
import ssl
from contextlib import aclosing, suppress
from functools import lru_cache
from typing import AsyncGenerator, Callable

import aiohttp
import httpx2
import openai

from json_bytes import loads
from llm.wire import ChunkLines

# What reading a body may raise (the aiohttp transport turns most of aiohttp's errors into httpx2's).
READ_TIMEOUTS = (httpx2.TimeoutException, TimeoutError)
READ_FAILURES = (httpx2.RequestError, aiohttp.ClientError, ssl.SSLError)
DRAIN_S = 0.1  # how long the rest of a body after [DONE] is read, so that its connection is used again
# A stream's body is read at most this often: a real model writes each token on its own, and reading each as it
# arrives wakes the process a hundred times a reply (bench/stream_reading.py). Between reads nothing reads the
# socket: the streams' aiohttp session has a one-byte read buffer (llm/servers.py), so aiohttp's own flow control
# pauses the connection once a piece waits unread, and the kernel gathers what comes. Every wake-up of the process
# costs more than the work it does (issue 42), so reads are spaced as far as drafts allow: PACE_S while nothing of
# the answer has come (its first words are read within that), then at most ANSWER_PACE_S, or sooner when the
# reader wants fresh text for a draft (the `pace` ChatModel._stream_once gives). The answer's end is known at most
# that much later.
PACE_S = 0.2
ANSWER_PACE_S = 0.5
SHORTEST_PACE_S = 0.05  # a draft due sooner than this waits for it: a read costs a wake-up
# The most one read gives (httpx-aiohttp reads a body in pieces of 16 KiB): a piece that size says more is
# waiting, so it is read at once rather than a pace later (a long answer would otherwise crawl, 16 KiB a pace).
# A piece any smaller is all the socket held.
FULL_PIECE = 16 * 1024


async def read_chunks(response: httpx2.Response, pace: Callable[[], float] | None = None
                      ) -> AsyncGenerator[list[dict], None]:
    """Yield the chunks of a streamed answer as its body arrives, up to [DONE]: a list of those each read
    completes (none is yielded empty).

    With `pace`, nothing is read for `pace()` seconds after each read; then what aiohttp held when it paused the
    connection is read, and after it what the kernel gathered meanwhile (reading the first lets the connection
    be read again). An error chunk raises openai.APIError, and a broken or timed-out read the SDK's
    APIConnectionError or APITimeoutError, as the SDK's own stream does, after the chunks before it. After [DONE]
    the rest of the body is read for a moment, so that the connection goes back to the pool. Closing the
    response is the caller's.
    """
    request = response.request
    lines = ChunkLines(request)
    try:
        async with aclosing(response.aiter_bytes()) as pieces:  # closed here on every way out
            while (piece := await anext(pieces, None)) is not None:
                chunks, ended = lines.feed(piece), False
                if pace is not None and not lines.done and lines.error is None:
                    more = await anext(pieces, None)
                    ended = more is None
                    chunks += lines.close() if more is None else lines.feed(more)
                    piece = more or piece
                if chunks:
                    yield chunks
                if lines.error is not None:
                    raise lines.error
                if lines.done:
                    with suppress(TimeoutError, *READ_FAILURES):
                        async with asyncio.timeout(DRAIN_S):
                            while await anext(pieces, None) is not None:
                                pass
                    return
                if pace is not None and not ended and len(piece) < FULL_PIECE:
                    await asyncio.sleep(pace())
        chunks = lines.close()
        if chunks:
            yield chunks
    except READ_TIMEOUTS as error:
        raise openai.APITimeoutError(request=request) from error
    except READ_FAILURES as error:
        raise openai.APIConnectionError(request=request) from error


def answer_of(response: httpx2.Response) -> dict:
    """Return an unstreamed answer's JSON object (its body read); openai.APIResponseValidationError when it holds
    none."""
    try:
        answer = loads(response.content)
    except ValueError as error:  # UnicodeDecodeError too
        answer, problem = None, str(error)
    else:
        problem = f"JSON but not an object: {type(answer).__name__}"
    if not isinstance(answer, dict):
        raise openai.APIResponseValidationError(
            response, response.content.decode("utf-8", "replace"),
            message=f"the server's answer is not a JSON object ({problem})")
    return answer


@lru_cache(maxsize=16)
def timeouts(seconds: float, stream: bool) -> httpx2.Timeout:
    """Return the HTTP client's timeouts for one request: `seconds` for each step, except a stream's reads,
    which ChatModel._stream_once's silence timer watches (llm/client.py); a read timeout of the client's own
    would set a timer afresh for every piece that arrives. The same few, made once."""
    return httpx2.Timeout(seconds, read=None if stream else seconds)
