"""A voice message heard once: the words a crash already stored, else a transcript whose seconds are counted."""

from __future__ import annotations

from datetime import datetime
from typing import Awaitable, Callable

from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.turn_rows import TurnQueries
from memory.store.user_rows import UserRows
from memory.usage import voice_reached
from services.limits import LimitSettings, limits_for, today
from services.transcriber import Transcriber


class Listener:
    """Turns a user's recording into their words, within their daily seconds of voice."""

    def __init__(
        self, turns: TurnQueries, users: UserRows, facts: FactQueries, transcriber: Transcriber,
        config: LimitSettings, clock: Callable[[], datetime], *, meter: UsageMeter,
    ) -> None:
        self.turns = turns
        self.users = users  # the user's zone, where their day starts
        self.facts = facts
        self.meter = meter  # counts the seconds heard
        self.transcriber = transcriber
        self.config = config
        self.clock = clock

    async def used_up(self, user_id: int) -> bool:
        """True when the user's seconds of voice for today are spent (DAILY_VOICE_SECONDS); no query without it."""
        if not limits_for(self.config, user_id).voice_seconds:
            return False
        day = await today(self.users, self.facts, self.meter, self.config, user_id, self.clock())
        return voice_reached(day.spent, day.limits)

    async def words(
        self, user_id: int, update_id: int, fetch: Callable[[], Awaitable[bytes]], name: str, language: str | None,
        duration: float | None,
    ) -> str:
        """Return what the recording says: stored already if a crash cut this update's turn short, else
        transcribed (secrets masked) from the audio `fetch` downloads, its seconds counted for today."""
        stored = await self.turns.message_for_update(user_id, update_id)
        if stored is not None:
            return stored
        words = await self.transcriber.transcribe(await fetch(), name, language)
        await self.meter.record_usage(user_id, self.clock(), voice_seconds=max(1.0, duration or 0.0))
        return words
