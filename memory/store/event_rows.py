"""The store's record of what became of each fact (memory_events), and the memory's own figures read from it (part
of Store, on either engine).

A fact is learned (from the rules, the extractor or the memory page), and later maybe corrected, replaced by a new
value, removed by its user, or marked wrong from a reply's "why" list. The record holds no content but a value
marked wrong (kept as that fact's history); forget_user takes the user's id and that value off their rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable

from memory.facts import Fact
from memory.store.backends import Session
from memory.store.backends import iso as _iso
from memory.store.rows import Rows

LEARNED, CORRECTED, REPLACED, REMOVED, WRONG = "learned", "corrected", "replaced", "removed", "wrong"
BY_USER = "user"  # the source of a removal or a ✗: the user's own doing
SETTLED = timedelta(days=7)  # a fact that lasted this long without its user correcting or removing it has held
WINDOW = timedelta(days=30)  # the facts whose 7 days are over that the share is taken of: those learned in 30 days
EVENT_COLUMNS = "user_id, fact_id, event, source, at, learned_at, value"


@dataclass(frozen=True)
class MemoryFigures:
    """The memory's quality over a window, for /stats."""

    learned: dict[str, int] = field(default_factory=dict)  # facts learned in the last day, by source
    settled: int = 0  # facts learned 7–37 days ago, whose 7 days are over
    undone: int = 0  # of those, how many their user corrected, removed or marked wrong within 7 days
    wrong: int = 0  # ✗ marks in the last day

    @property
    def undone_share(self) -> float | None:
        """The share of settled facts their user corrected, removed or marked wrong within 7 days (None: none)."""
        return self.undone / self.settled if self.settled else None


def event_rows(facts: Iterable[Fact], stamp: str, keep_value: bool = False) -> list[tuple[int, str, str | None]]:
    """Return (fact id, when it was learned, its value where kept) for record_events, of facts read from the store."""
    return [(fact.id, _iso(fact.created_at) if fact.created_at else stamp, fact.value if keep_value else None)
            for fact in facts if fact.id is not None]


async def record_events(db: Session, user_id: int, event: str, source: str, stamp: str,
                        rows: Iterable[tuple[int, str, str | None]]) -> None:
    """Record one `event` at `stamp` for each (fact id, when it was learned, value kept or None) of `rows`."""
    events = [(user_id, fact_id, event, source, stamp, learned_at, value) for fact_id, learned_at, value in rows]
    if events:
        await db.executemany(f"INSERT INTO memory_events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", events)


class EventQueries(Rows):
    """The memory's own figures: a repository over the shared database."""


    async def memory_figures(self, now: datetime) -> MemoryFigures:
        """Return what memory learned in the 24 hours before `now` by source, the ✗ marks then, and of the facts
        learned 7–37 days before, how many their user corrected, removed or marked wrong within 7 days."""
        day, settled_by, oldest = now - timedelta(days=1), now - SETTLED, now - SETTLED - WINDOW
        async with self._session() as db:
            learned = await db.execute_fetchall(
                "SELECT source, COUNT(*) FROM memory_events WHERE event = 'learned' AND at >= ? GROUP BY source",
                (_iso(day),),
            )
            wrong = await db.execute_fetchall(
                "SELECT COUNT(*) FROM memory_events WHERE event = 'wrong' AND at >= ?", (_iso(day),)
            )
            settled = await db.execute_fetchall(
                "SELECT COUNT(*) FROM memory_events WHERE event = 'learned' AND at >= ? AND at < ?",
                (_iso(oldest), _iso(settled_by)),
            )
            undone = await db.execute_fetchall(
                "SELECT fact_id, at, learned_at FROM memory_events WHERE event IN ('corrected', 'removed', 'wrong')"
                " AND learned_at >= ? AND learned_at < ?",
                (_iso(oldest), _iso(settled_by)),
            )
        soon = {fact_id for fact_id, at, learned_at in undone
                if datetime.fromisoformat(at) - datetime.fromisoformat(learned_at) <= SETTLED}
        return MemoryFigures(
            learned={source: int(count) for source, count in learned},
            settled=int(settled[0][0]),
            undone=len(soon),
            wrong=int(wrong[0][0]),
        )
