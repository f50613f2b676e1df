"""The memory's own figures, for /stats: what it learned a day by source, how much of it its users undid within a
week, the ✗ marks, near-duplicates, and how many memories each reply's prompt held."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import fmean

from memory.recall.duplicates import duplicate_summary, duplicate_threshold, near_duplicates
from memory.recall.ranking import decode
from memory.store.event_rows import EventQueries, MemoryFigures
from memory.store.fact_rows import FactQueries
from memory.store.turn_rows import TurnQueries
from services.why import Used

SAMPLE = 100  # memories looked through for near-duplicates: the most recently active in 7 days (about 20 ms each)


@dataclass(frozen=True)
class Duplicates:
    """Near-duplicates over the memories sampled: how many memories, pairs, and facts in a pair of those compared."""

    memories: int = 0
    pairs: int = 0
    involved: int = 0
    compared: int = 0

    @property
    def per_memory(self) -> float | None:
        """Pairs per memory sampled (None: none was)."""
        return self.pairs / self.memories if self.memories else None

    @property
    def share(self) -> float | None:
        """The share of the compared facts that are in a pair (None: no fact was compared)."""
        return self.involved / self.compared if self.compared else None


@dataclass(frozen=True)
class Quality:
    """How well memory does: learned and ✗ over the last day, undone within 7 days over the last 30, the
    near-duplicates in the memories active this week, and memories per reply over the last day."""

    figures: MemoryFigures
    duplicates: Duplicates
    replies: int  # replies of the last 24 hours still in a session
    memories_per_reply: float | None  # how many memories their prompts held, on average (None: no reply)


class MemoryQuality:
    """Measures memory from what the store records of it; `embedder` names the model whose vectors recall stores
    (Embedder.name), whose own threshold the near-duplicate test uses."""

    def __init__(self, events: EventQueries, facts: FactQueries, turns: TurnQueries, embedder: str) -> None:
        self.events = events
        self.facts = facts
        self.turns = turns
        self.embedder = embedder

    async def measure(self, now: datetime) -> Quality:
        """Return memory's figures at `now`."""
        used = [Used.from_json(text).count for text in
                await self.turns.memories_used_since(now - timedelta(days=1))]
        return Quality(await self.events.memory_figures(now), await self._duplicates(now), len(used),
                       fmean(used) if used else None)

    async def _duplicates(self, now: datetime) -> Duplicates:
        threshold = duplicate_threshold(self.embedder)
        found = Duplicates()
        for key in await self.facts.memories_active_since(now - timedelta(days=7), SAMPLE):
            facts = await self.facts.facts(key)
            vectors = {fact_id: decode(blob, dim) for fact_id, blob, dim in
                       await self.facts.fact_vectors(key, self.embedder)} if threshold is not None else {}
            summary = duplicate_summary(facts, now, near_duplicates(facts, now, vectors, threshold))
            found = Duplicates(found.memories + 1, found.pairs + summary.pairs, found.involved + summary.involved,
                               found.compared + summary.compared)
        return found
