"""Embedding backends behind one interface: the OpenAI-compatible endpoint, a local model, or hashing."""

from __future__ import annotations

import asyncio
from typing import Protocol, Sequence

import numpy as np
import openai

from memory.recall import hashing_embedding


class EmbedderUnavailable(RuntimeError):
    """The chosen backend cannot run here (EMBEDDINGS=local without its package)."""


def make_embedder(backend: str, client: openai.AsyncOpenAI, model: str) -> "Embedder":
    """Return the embedder for EMBEDDINGS=openai|local|hashing."""
    if backend == "openai":
        return OpenAIEmbedder(client, model)
    if backend == "hashing":
        return HashingEmbedder()
    return local_embedder()


class Embedder(Protocol):
    """Turns texts into vectors; `name` identifies the model that made a stored vector."""

    name: str

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one float32 row per text."""
        ...


class OpenAIEmbedder:
    """The embeddings endpoint of the same OpenAI-compatible server (OpenAI, Ollama, vLLM, …)."""

    def __init__(self, client: openai.AsyncOpenAI, model: str) -> None:
        self.client = client
        self.name = model

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the server's vectors for `texts`, in order (one request)."""
        response = await self.client.embeddings.create(model=self.name, input=list(texts))
        rows = sorted(response.data, key=lambda item: item.index)
        return np.array([row.embedding for row in rows], dtype=np.float32)


class HashingEmbedder:
    """Character-trigram hashing: no model and no network, deterministic; weaker recall (used by tests)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hashing-trigram-{dim}"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the hashed trigram vectors of `texts`."""
        return np.stack([hashing_embedding(text, self.dim) for text in texts]).astype(np.float32)


class ThreadedEmbedder:
    """Runs a blocking, in-process model in a worker thread so the event loop keeps serving other users."""

    def __init__(self, name: str, encode) -> None:
        self.name = name
        self._encode = encode

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the local model's vectors for `texts`."""
        return np.asarray(await asyncio.to_thread(self._encode, list(texts)), dtype=np.float32)


def local_embedder() -> Embedder:
    """Return the in-process multilingual model (see README: EMBEDDINGS=local), or raise EmbedderUnavailable."""
    raise EmbedderUnavailable("EMBEDDINGS=local is not available yet")
