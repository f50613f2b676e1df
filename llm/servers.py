"""The model servers the bot talks to: the chat's, and memory upkeep's own where the settings name one."""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

import openai

from llm.gate import Gate
from llm.server import ServerFeatures
from net.connections import Pool

POOL_SIZE = 100  # connections to one model server at most, as the SDK's own client keeps


@dataclass(frozen=True)
class ModelServer:
    """One OpenAI-compatible server: its client, its slots (llm/gate.py) and what it was found to do."""

    base_url: str | None  # None: OpenAI's own
    api_key: str
    client: openai.AsyncOpenAI
    gate: Gate
    features: ServerFeatures
    pool: Pool | None = None  # the bot's own HTTP client, for chat requests (llm/posting.py); None behind a proxy

    @classmethod
    def open(cls, base_url: str | None, api_key: str, timeout: float, gate: Gate, features: ServerFeatures
             ) -> "ModelServer":
        """Return the server with a client of its own (no SDK retries: ChatModel retries within its budget).

        Chat requests, one or more a message, go through the bot's own HTTP client (net/: a third of the CPU
        of aiohttp's session a request, issue 42); the SDK's other calls (embeddings, transcription) through
        aiohttp (the SDK's DefaultAioHttpClient), not its default httpx stack. Where the environment names a proxy
        (HTTPS_PROXY and the like, which the SDK's client honours), chat requests go through the SDK's client too.
        """
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout,
                                    http_client=openai.DefaultAioHttpClient(timeout=timeout))
        pool = None if behind_proxy(base_url or str(client.base_url)) else Pool(POOL_SIZE)
        return cls(base_url, api_key, client, gate, features, pool)

    async def close(self) -> None:
        """Close the server's clients and their connections."""
        await self.client.close()
        if self.pool is not None:
            await self.pool.close()

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


def behind_proxy(url: str) -> bool:
    """True when the environment names a proxy for `url` (HTTPS_PROXY, ALL_PROXY and the like, less NO_PROXY), as
    aiohttp reads it for the SDK's client."""
    proxies = urllib.request.getproxies()
    parts = urlsplit(url)
    if parts.scheme not in proxies and "all" not in proxies:
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")
