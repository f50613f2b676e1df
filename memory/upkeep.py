"""Memory upkeep off the reply path: the LLM reads a user's unread messages and merges what it finds."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Callable

from chat.locks import KeyedLocks
from config import Config
from memory.extraction import LLMExtractor
from memory.facts import Extraction, Fact
from memory.store import Store

log = logging.getLogger(__name__)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class MemoryKeeper:
    """Runs LLM extraction for one user at a time per user; nothing is stored half-way."""

    def __init__(
        self, store: Store, extractor: LLMExtractor, config: Config, clock: Callable[[], datetime] = _utc_now
    ) -> None:
        self.store = store
        self.extractor = extractor
        self.config = config
        self.clock = clock
        self._locks = KeyedLocks()
        self.calls = 0  # extraction calls made, for the cost report

    async def extract_pending(self, user_id: int) -> list[Fact]:
        """Read the user's unread messages in batches and save the facts found; return the new or changed ones.

        Errors from the model or its output propagate; the messages stay unread and are tried again later.
        """
        saved: list[Fact] = []
        async with self._locks.hold(user_id):
            while True:
                pending = await self.store.pending_messages(user_id, self.config.memory_batch)
                if not pending:
                    return saved
                last_id = pending[-1]["id"]
                if any(message["role"] == "user" for message in pending):
                    known = await self.store.facts(user_id)
                    self.calls += 1
                    extraction = await self.extractor.extract(pending, known)
                else:  # only the bot's own replies: nothing to learn from them
                    extraction = Extraction()
                saved += await self.store.save_facts(
                    user_id, extraction, self.clock(), self.config.memory_max_facts, extracted_upto=last_id
                )
                if len(pending) < self.config.memory_batch:
                    if saved:
                        log.info("learned %d facts for a user", len(saved))
                    return saved
