"""Memory upkeep off the reply path: the LLM reads a user's unread messages and merges what it finds."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timedelta, timezone
from typing import Awaitable, Callable
from zoneinfo import ZoneInfo

from config import Config
from llm.client import ModelUnavailable, Tally
from memory.continuity import continues, conversation_topic, first_conversation
from memory.extraction import ExtractionError, LLMExtractor
from memory.facts import Extraction, Fact, memory_enabled
from memory.recaller import FactRecaller
from memory.schedule import local_zone, plan_followup
from memory.store import Store

log = logging.getLogger(__name__)

CONCURRENT_EXTRACTIONS = 4
CLAIM = timedelta(minutes=15)  # on PostgreSQL, how long a machine keeps a user's extraction pass to itself


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class MemoryKeeper:
    """Runs LLM extraction, one pass per user at a time and a few users at once; nothing is stored half-way."""

    def __init__(
        self, store: Store, extractor: LLMExtractor, config: Config, clock: Callable[[], datetime] = _utc_now
    ) -> None:
        self.store = store
        self.extractor = extractor
        self.config = config
        self.clock = clock
        self.calls = 0  # extraction calls made, for the cost report
        self._running: set[int] = set()
        self._slots = asyncio.Semaphore(CONCURRENT_EXTRACTIONS)
        # After a failure a user waits memory_retry_s; kept in memory, so a restart simply tries once more.
        self._retry_at: dict[int, float] = {}
        # Told about new facts (the handlers use it for "✎ remembered" notes).
        self.on_learned: Callable[[int, list[Fact]], Awaitable[None]] | None = None
        self.recaller: FactRecaller | None = None  # embeds what was learned
        # Set on shutdown: passes still waiting for a slot give up (their messages stay unread for next time).
        self.stopping = asyncio.Event()

    async def sweep(self) -> None:
        """Extract for every user who has been idle long enough and has unread messages."""
        idle_since = self.clock().timestamp() - self.config.memory_extract_delay_s
        due = await self.store.users_due_for_extraction(datetime.fromtimestamp(idle_since, timezone.utc))
        await asyncio.gather(*(self.extract_quietly(user_id) for user_id in due))

    async def extract_quietly(self, user_id: int) -> list[Fact]:
        """Extract for one user unless a pass is already running or a failure is recent; log errors."""
        if user_id in self._running or self._retry_at.get(user_id, 0) > time.monotonic():
            return []
        shared = self.store.on_postgres  # other machines may extract too: take the user's pass first
        if shared and not await self.store.claim_extraction(user_id, self.clock(), self.clock() + CLAIM):
            return []
        self._running.add(user_id)
        retry_at = None  # after a failure, no machine tries again before this
        try:
            async with self._slots:
                if self.stopping.is_set():
                    return []
                saved = await self.extract_pending(user_id)
        except (ModelUnavailable, ExtractionError) as error:
            log.warning("fact extraction failed (%s); trying again in %.0fs", type(error).__name__,
                        self.config.memory_retry_s)
            self._retry_at[user_id] = time.monotonic() + self.config.memory_retry_s
            retry_at = self.clock() + timedelta(seconds=self.config.memory_retry_s)
            return []
        finally:
            self._running.discard(user_id)
            if shared:
                await self.store.release_extraction(user_id, retry_at)
        self._retry_at.pop(user_id, None)
        if saved:
            await self.embed_learned(user_id)
        if saved and self.on_learned is not None:
            await self.on_learned(user_id, saved)
        return saved

    async def embed_learned(self, user_id: int) -> int:
        """Embed newly learned facts now with an in-process model; a remote one takes them with the next query."""
        if self.recaller is None or not self.recaller.embeds_eagerly:
            return 0
        return await self.embed_quietly(user_id)

    async def embed_quietly(self, user_id: int) -> int:
        """Embed the user's facts that lack a vector; an error is logged and left for a later pass."""
        if self.recaller is None:
            return 0
        try:
            return await self.recaller.embed_missing(user_id)
        except Exception as error:  # noqa: BLE001 - embedding is an optimisation; recall falls back without it
            log.warning("embedding facts failed (%s); trying again later", type(error).__name__)
            return 0

    def _planner(self, zone: ZoneInfo, now: datetime, pending: list[dict]) -> Callable[[Fact], datetime | None]:
        """Return when to write first about a fact found in `pending`, judged against the message that told it."""
        # "Today at 10", said at 9:50 and read at 10:05, was still ahead when it was told.
        told = {message["id"]: message["at"] for message in pending}
        after = self.config.followup_after_hours
        return lambda fact: plan_followup(fact, zone, told.get(fact.source_message_id, now), after)

    async def extract_pending(self, user_id: int) -> list[Fact]:
        """Read the user's unread messages in batches and save the facts found; return the new or changed ones.

        A batch never spans two conversations, so each pass also writes (or rewrites) one conversation's topic
        line. Errors from the model or its output propagate; the messages stay unread and are tried again later.
        """
        saved: list[Fact] = []
        gap = timedelta(minutes=self.config.conversation_gap_minutes)
        while True:
            pending = await self.store.pending_messages(user_id, self.config.memory_batch)
            if not pending:
                return saved
            batch = first_conversation(pending, gap)
            settings = await self.store.settings(user_id)
            known = await self.store.facts(user_id)
            zone = local_zone(settings, known, self.config.timezone)
            said = [message["at"] for message in batch if message["role"] == "user"]
            ongoing = None
            if memory_enabled(settings) and said:
                latest = await self.store.topics(user_id, 1)
                ongoing = latest[0] if latest and continues(latest[0], said[0], gap) else None
                self.calls += 1
                tally = Tally()
                try:
                    extraction = await self.extractor.extract(
                        batch, known, zone, ongoing.text if ongoing else None, tally=tally
                    )
                finally:  # an answer that could not be read was still paid for
                    await self.store.record_usage(user_id, self.clock(), tokens=tally.tokens)
            else:  # memory is off, or only the bot's own replies: nothing to learn; mark them read
                extraction = Extraction()
            now = self.clock()
            saved += await self.store.save_facts(
                user_id, extraction, now, self.config.memory_max_facts, extracted_upto=batch[-1]["id"],
                plan=self._planner(zone, now, batch), topic=conversation_topic(extraction.topics, ongoing, said),
                max_topics=self.config.memory_max_topics,
            )
            if len(batch) == len(pending) and len(pending) < self.config.memory_batch:
                return saved
