"""The memory's own figures, for /stats: what it learned a day by source, how much of it its users undid within a
week, the ✗ marks, near-duplicates, and how many memories each reply's prompt held."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import fmean

from memory.store.event_rows import MemoryFigures
from memory.store.memory_store import Store
from services.why import Used


@dataclass(frozen=True)
class Quality:
    """How well memory does, over the last day (learned, ✗) and the last 30 days (undone within 7 days)."""

    figures: MemoryFigures
    replies: int  # replies of the last 24 hours still in a session
    memories_per_reply: float | None  # how many memories their prompts held, on average (None: no reply)


class MemoryQuality:
    """Measures memory from what the store records of it."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def measure(self, now: datetime) -> Quality:
        """Return memory's figures at `now`."""
        used = [Used.from_json(text).count for text in
                await self.store.memories_used_since(now - timedelta(days=1))]
        return Quality(await self.store.memory_figures(now), len(used), fmean(used) if used else None)
