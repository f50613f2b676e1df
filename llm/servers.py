"""The model servers the bot talks to: the chat's, and memory upkeep's own where the settings name one."""

from __future__ import annotations

from dataclasses import dataclass

import openai

from llm.gate import Gate
from llm.server import ServerFeatures


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
        """Return the server with a client of its own (no SDK retries: ChatModel retries within its budget).

        The client sends through aiohttp (the SDK's DefaultAioHttpClient), not its default httpx stack: a
        streamed answer arrives a token at a time, and aiohttp's reading in C costs half the CPU per piece
        (bench/README.md, "CPU per real message")."""
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout,
                                    http_client=openai.DefaultAioHttpClient(timeout=timeout))
        return cls(base_url, api_key, client, gate, features)

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
