"""Relevance recall: pick the facts that matter for this message, by cosine similarity of embeddings."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memory.facts import Fact, choose_for_prompt, prompt_candidates
from memory.recall.embeddings import Embedder, EmbeddingsMissing
from memory.recall.ranking import bm25_scores, cosine_scores, decode, encode, fuse, select_facts, session_pull
from memory.store.fact_rows import FactQueries

log = logging.getLogger(__name__)
RIDE_ALONG = 32  # at most this many new facts embedded with a query, to keep the call short


def fact_text(fact: Fact) -> str:
    """Return the text embedded for a fact: its slot and value ("city: Kazan"), so a bare value has context."""
    return f"{fact.key.split(':')[0].replace('_', ' ')}: {fact.value}"


def learned_at(fact: Fact | None) -> float:
    """Return when the fact's current value was last said (seconds since the epoch), NaN if unknown."""
    stamp = (fact.updated_at or fact.created_at) if fact else None
    return stamp.timestamp() if stamp else float("nan")


def vector_matrix(blobs: list[tuple[bytes, int]]) -> np.ndarray:
    """Return the stored vectors as one float32 matrix: one frombuffer when all share a dimension (16× faster)."""
    dims = {dim for _, dim in blobs}
    if len(dims) == 1:
        dim = dims.pop()
        joined = b"".join(blob for blob, _ in blobs)
        if len(joined) == 4 * dim * len(blobs):
            return np.frombuffer(joined, dtype="<f4").reshape(len(blobs), dim)
    return np.stack([decode(blob, dim) for blob, dim in blobs])


@dataclass(frozen=True)
class RecallSettings:
    """The settings recall uses (named as in Config: see README's configuration table)."""

    memory_prompt_facts: int
    recall_top_k: int
    recall_min_similarity: float
    recall_timeout_s: float


class FactRecaller:
    """Chooses a user's facts for the prompt; with few facts all of them, else the most relevant."""

    def __init__(self, facts: FactQueries, embedder: Embedder, config: RecallSettings) -> None:
        self.facts = facts
        self.embedder = embedder
        self.config = config
        # Users whose last recall found facts without a vector from an in-process model (after an embedding
        # outage or a change of model): the turn's upkeep embeds them (lacks_vectors, embed_missing).
        self._lacking: set[int] = set()

    async def choose(self, user_id: int, text: str, facts: list[Fact], now: datetime) -> list[Fact]:
        """Return the facts for system message zero; an embedding error or timeout falls back to importance."""
        limit = self.config.memory_prompt_facts
        if len(prompt_candidates(facts, now)) <= limit:
            return choose_for_prompt(facts, now, limit)  # everything fits: no embedding call
        try:
            rows = await self.facts.fact_vectors(user_id, self.embedder.name)
            lacking = self._lacking_vectors(facts, rows)
            if lacking and not self.embedder.remote:
                self._lacking.add(user_id)  # for the turn's upkeep, whatever becomes of the query
            missing = lacking[:RIDE_ALONG] if self.embedder.remote else []
            vectors = await asyncio.wait_for(
                self.embedder.embed_query([text, *map(fact_text, missing)]), self.config.recall_timeout_s
            )
            query = vectors[:1]
            if missing:
                rows = [*rows, *await self._save(user_id, missing, vectors[1:])]
            scores = {}
            if rows:
                matrix = vector_matrix([(blob, dim) for _, blob, dim in rows])
                dense = cosine_scores(query[0], matrix)
                by_id = {fact.id: fact for fact in facts}
                if self.embedder.lexical_weight:
                    texts = [fact_text(by_id[fact_id]) if fact_id in by_id else "" for fact_id, _, _ in rows]
                    dense = fuse(dense, bm25_scores(text, texts), self.embedder.lexical_weight)
                if self.embedder.session_weight:
                    times = [learned_at(by_id.get(fact_id)) for fact_id, _, _ in rows]
                    dense = session_pull(dense, times, self.embedder.session_weight)
                scores = dict(zip((fact_id for fact_id, _, _ in rows), dense.tolist(), strict=True))
        except EmbeddingsMissing:  # said once when found out; the turn goes on by importance
            return choose_for_prompt(facts, now, limit)
        except Exception as error:  # noqa: BLE001 - any failure of recall must not cost the turn
            log.warning("recall fell back to importance order (%s)", type(error).__name__)
            return choose_for_prompt(facts, now, limit)
        return select_facts(
            facts, scores, now, limit=limit, top_k=self.config.recall_top_k,
            min_similarity=self.config.recall_min_similarity,
        )

    @staticmethod
    def _lacking_vectors(facts: list[Fact], rows: list[tuple[int, bytes, int]]) -> list[Fact]:
        """Return the facts that have no vector among `rows` (the current model's), in the order given.

        A remote model embeds up to RIDE_ALONG of them in the query's own call (calls are network round trips),
        so a user with more gets the rest with their next turns. An in-process model embeds stored facts
        apart from queries (e5 reads them as passages), so the turn's upkeep embeds them all, off the reply path.
        """
        have = {fact_id for fact_id, _, _ in rows}
        return [fact for fact in facts if fact.id is not None and fact.id not in have]

    async def _save(self, user_id: int, facts: list[Fact], vectors: np.ndarray) -> list[tuple[int, bytes, int]]:
        rows = [(fact.id, encode(vector), len(vector))
                for fact, vector in zip(facts, vectors, strict=True) if fact.id is not None]
        await self.facts.save_embeddings(user_id, self.embedder.name, rows)
        return rows

    @property
    def embeds_eagerly(self) -> bool:
        """Whether new facts get their own embedding call (in-process models) or wait for the next recall."""
        return not self.embedder.remote

    def lacks_vectors(self, user_id: int) -> bool:
        """Whether the user's last recall found facts without a vector that an in-process model has yet to embed
        (left by an embedding outage or a change of model); embed_missing clears it."""
        return user_id in self._lacking

    async def embed_missing(self, user_id: int) -> int:
        """Embed the user's facts that have no vector from the current model; return how many."""
        self._lacking.discard(user_id)  # a failure here is found again by the user's next recall
        facts = await self.facts.facts_to_embed(user_id, self.embedder.name)
        if not facts:
            return 0
        vectors = await self.embedder.embed([fact_text(fact) for fact in facts])
        await self._save(user_id, facts, vectors)
        return len(facts)
