"""Forgetting on request, for the turn (the rules), the extraction pass (the LLM) and the buttons alike: the facts
go, the session and topic lines are scrubbed of them, and an Undo record is kept for UNDO_MINUTES."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Callable, Sequence

from memory.changes import Forgotten
from memory.facts import Fact
from memory.store.store import Store
from memory.unlearn.scrub import scrubber

log = logging.getLogger(__name__)
UNDO_MINUTES = 15  # how long the Undo button of a forget works; after that nothing of it is kept
# What the session keeps of a message that asked to forget: the model sees that something was asked, not what.
REQUEST_MARK = "(they asked you to forget something; it is forgotten)"


class Forgetter:
    """Carries out forget requests and their Undo, on the user's own memory only."""

    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock

    async def forget(
        self, user_id: int, facts: Sequence[Fact], edits: dict[int, str | None] | None = None
    ) -> Forgotten:
        """Delete `facts` (the user's), scrub every session message and topic line that mentions them, apply
        `edits` (message id -> new content, None: drop it), and keep it all for Undo."""
        forgotten = await self.store.forget(
            user_id, [fact.id for fact in facts if fact.id is not None], scrubber(facts), self.clock(),
            timedelta(minutes=UNDO_MINUTES), edits,
        )
        log.info("memory: forgot %d facts and scrubbed %d messages at the user's request", len(forgotten.facts),
                 forgotten.messages)
        return forgotten

    async def undo(self, user_id: int, undo_id: int) -> list[Fact] | None:
        """Put back what the forget `undo_id` removed, if it is the user's and still kept; return the facts."""
        restored = await self.store.restore_forgotten(user_id, undo_id, self.clock())
        if restored is None:
            return None
        return [fact for fact in await self.store.facts(user_id) if fact.id in restored]
