"""The model servers the bot talks to: the chat's, and memory upkeep's own where the settings name one."""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from functools import partial
from urllib.request import getproxies

import aiohttp
import httpx2
import openai
from httpx_aiohttp.httpx2 import AiohttpTransport

from llm.gate import Gate
from llm.server import ServerFeatures
from proxies import proxy_for

OPENAI_URL = "https://api.openai.com/v1"
POOL_SIZE = 100  # connections to one model server at most, as the SDK's own client keeps


@dataclass(frozen=True)
class ModelServer:
    """One OpenAI-compatible server: its client, its slots (llm/gate.py) and what it was found to do."""

    base_url: str | None  # None: OpenAI's own
    api_key: str
    client: openai.AsyncOpenAI
    gate: Gate
    features: ServerFeatures

    @classmethod
    def open(cls, base_url: str | None, api_key: str, timeout: float, gate: Gate, features: ServerFeatures
             ) -> "ModelServer":
        """Return the server with a client of its own (no SDK retries: ChatModel retries within its budget), over
        aiohttp (model_http_client)."""
        url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL  # as the SDK's client chooses it
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout,
                                    http_client=model_http_client(url, timeout))
        return cls(base_url, api_key, client, gate, features)

    async def close(self) -> None:
        """Close the server's client and its connections."""
        await self.client.close()

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



def model_http_client(base_url: str, timeout: float) -> httpx2.AsyncClient:
    """Return the HTTP client for the SDK's client of the server at `base_url`: httpx2's interface over an aiohttp
    session (httpx-aiohttp), as the SDK's DefaultAioHttpClient is, but with a session of our making (model_session):
    the system's certificates (or SSL_CERT_FILE / SSL_CERT_DIR), and the proxy the environment names for the server,
    chosen as for the Bot API (proxies.py: ALL_PROXY too, which aiohttp's trust_env ignores). The session is made
    at the first request, in the running loop, as aiohttp wants."""
    proxy = proxy_for(base_url, getproxies())
    session = partial(model_session, POOL_SIZE)
    transport = AiohttpTransport(client=session, proxy=httpx2.Proxy(proxy) if proxy else None)
    return httpx2.AsyncClient(transport=transport, timeout=timeout)


def model_session(limit: int) -> aiohttp.ClientSession:
    """Return an aiohttp session of at most `limit` connections, its certificates the system's.

    Its read buffer stays aiohttp's default (64 KiB). A buffer of one byte would make aiohttp's flow control pause
    the socket between a stream's paced reads (half the CPU a streamed reply: bench/README.md, issue 58), but
    with it a connection back in the pool after a whole answer could be left unable to read the next one: the
    next request timed out unanswered (tests/test_e2e_start_up.py, the embedding after GET /models, failed so
    with a buffer of 1 or 2 bytes and passed with 256). Until that is understood upstream, the pool's health
    comes first."""
    connector = aiohttp.TCPConnector(limit=limit, limit_per_host=0, ssl=ssl.create_default_context())
    # trust_env stays off: the proxy is chosen once (model_http_client), not read from the environment (and
    # ~/.netrc) again on every request.
    return aiohttp.ClientSession(connector=connector, trust_env=False,
                                 cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=None))
