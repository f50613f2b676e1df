"""The model servers the bot talks to: the chat's, and memory upkeep's own where the settings name one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from urllib.request import getproxies

import aiohttp
import httpx2
import openai
from httpx_aiohttp.httpx2 import AiohttpTransport

from certificates import trusted
from llm.gate import Gate
from llm.server import ServerFeatures
from proxies import proxy_for

OPENAI_URL = "https://api.openai.com/v1"
POOL_SIZE = 100  # connections to one model server at most, as the SDK's own client keeps
# The unread bytes aiohttp holds of a stream before it stops reading the socket (its flow control: reading resumes
# once the reader takes them). One: a stream read a few times a second (llm/responses.py) is left in the kernel
# between reads, a wake-up or two a read rather than one a token (bench/stream_reading.py: half the CPU of a
# streamed reply). Only the streams' own session has it: with a small buffer, aiohttp 3.14 arms a connection's
# read timeout again when a whole answer is read after the connection went back to the pool, and the timer then
# fails the next request on it (SocketTimeoutError; aiohttp #12953 fixed the case of an unpaused connection only).
# A stream's request has no read timeout (ChatModel's silence timer watches it), so none is ever armed there.
STREAM_READ_BUFFER = 1


@dataclass(frozen=True)
class ModelServer:
    """One OpenAI-compatible server: its client, its slots (llm/gate.py) and what it was found to do."""

    base_url: str | None  # None: OpenAI's own
    api_key: str
    client: openai.AsyncOpenAI
    gate: Gate
    features: ServerFeatures
    # The same server's client for streamed answers read paced: its own connections, whose read buffer is one byte
    # (STREAM_READ_BUFFER), and no read timeout.
    streams: openai.AsyncOpenAI

    @classmethod
    def open(cls, base_url: str | None, api_key: str, timeout: float, gate: Gate, features: ServerFeatures
             ) -> "ModelServer":
        """Return the server with a client of its own (no SDK retries: ChatModel retries within its budget), over
        aiohttp (model_http_client)."""
        url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL  # as the SDK's client chooses it
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout,
                                    http_client=model_http_client(url, timeout))
        streams = client.with_options(timeout=httpx2.Timeout(timeout, read=None),
                                      http_client=model_http_client(url, timeout, STREAM_READ_BUFFER))
        return cls(base_url, api_key, client, gate, features, streams)

    async def close(self) -> None:
        """Close the server's clients and their connections."""
        await self.client.close()
        await self.streams.close()

    def or_another(self, base_url: str | None, api_key: str | None, timeout: float) -> "ModelServer":
        """Return this server where `base_url` and `api_key` are unset or name it; else the one they name.

        Another key for the same server gets a client of its own but the same slots and findings. Another server
        (EXTRACT_BASE_URL, EMBEDDING_BASE_URL) does upkeep only, so no conversation waits for it: the bot puts no
        limit of its own on its slots, and learns what it can do afresh. An unset key is the chat's.
        """
        same_server = base_url is None or base_url == self.base_url
        if same_server and (api_key is None or api_key == self.api_key):
            return self
        if same_server:
            return ModelServer.open(self.base_url, api_key or self.api_key, timeout, self.gate, self.features)
        features = ServerFeatures(reasoning_tokens=self.features.reasoning_tokens)  # REASONING_MAX_TOKENS too
        return ModelServer.open(base_url, api_key or self.api_key, timeout, Gate(None), features)



def model_http_client(base_url: str, timeout: float, read_buffer: int = 2**16) -> httpx2.AsyncClient:
    """Return the HTTP client for the SDK's client of the server at `base_url`: httpx2's interface over an aiohttp
    session (httpx-aiohttp), as the SDK's DefaultAioHttpClient is, but with a session of our making (model_session):
    the system's certificates (or SSL_CERT_FILE / SSL_CERT_DIR), and the proxy the environment names for the server,
    chosen as for the Bot API (proxies.py: ALL_PROXY too, which aiohttp's trust_env ignores), and `read_buffer`,
    aiohttp's read buffer (its default, 64 KiB, unless given). The session is made at the first request, in the
    running loop, as aiohttp wants."""
    proxy = proxy_for(base_url, getproxies())
    session = partial(model_session, POOL_SIZE, read_buffer)
    transport = AiohttpTransport(verify=trusted(), client=session, proxy=httpx2.Proxy(proxy) if proxy else None)
    return httpx2.AsyncClient(transport=transport, timeout=timeout)


def model_session(limit: int, read_buffer: int = 2**16) -> aiohttp.ClientSession:
    """Return an aiohttp session of at most `limit` connections, its certificates the system's, its read buffer
    `read_buffer` bytes."""
    connector = aiohttp.TCPConnector(limit=limit, limit_per_host=0, ssl=trusted())
    # trust_env stays off: the proxy is chosen once (model_http_client), not read from the environment (and
    # ~/.netrc) again on every request.
    return aiohttp.ClientSession(connector=connector, read_bufsize=read_buffer, trust_env=False,
                                 cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=None))
