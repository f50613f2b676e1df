"""Claims on memory upkeep, for several machines on one PostgreSQL database (part of Store).

A machine takes a user's fact extraction, or one message to write first, by setting a claim that runs until
a given time. The row is read `FOR UPDATE SKIP LOCKED`: a machine that finds another one claiming the same row
at that moment moves on instead of waiting, and an unexpired claim is left alone. If a machine dies, its claims
simply expire. On SQLite (one process) the same statements run, without the row locks.

(The machines' share of Telegram's rate, and the inbox of updates, are the transport's:
transport/transport_store.py.)
"""

from __future__ import annotations

from datetime import datetime

from memory.due import DueItem
from memory.store.backends import iso as _iso
from memory.store.rows import Rows


class ClaimQueries(Rows):
    """Mixed into Store: claims on extraction passes and on due items."""


    async def claim_extraction(self, user_id: int, now: datetime, until: datetime) -> bool:
        """Take the user's next extraction pass until `until`; False when another machine holds it."""
        return await self._claim(
            "UPDATE users SET extract_claim = ? WHERE id = (SELECT id FROM users WHERE id = ?"
            f" AND (extract_claim IS NULL OR extract_claim < ?){self._dialect.skip_locked}) RETURNING id",
            (_iso(until), user_id, _iso(now)),
        )

    async def release_extraction(self, user_id: int, until: datetime | None = None) -> None:
        """Let go of the user's extraction claim (or keep it until `until`: after a failure, the retry time)."""
        async with self._session() as db:
            await db.execute("UPDATE users SET extract_claim = ? WHERE id = ?", (until and _iso(until), user_id))

    async def take_item(self, item: DueItem, now: datetime, until: datetime) -> bool:
        """Take a due item until `until` before writing it; False when another machine is writing it, or it
        is no longer due as read."""
        if item.kind == "checkin":
            sql = (
                "UPDATE users SET checkin_claim = ? WHERE id = (SELECT id FROM users WHERE id = ? AND checkin_at = ?"
                f" AND (checkin_claim IS NULL OR checkin_claim < ?){self._dialect.skip_locked}) RETURNING id"
            )
            return await self._claim(sql, (_iso(until), item.user_id, _iso(item.due_at), _iso(now)))
        sql = (
            "UPDATE facts SET followup_claim = ? WHERE id = (SELECT id FROM facts WHERE id = ? AND followup_at = ?"
            f" AND (followup_claim IS NULL OR followup_claim < ?){self._dialect.skip_locked}) RETURNING id"
        )
        return await self._claim(sql, (_iso(until), item.fact_id, _iso(item.due_at), _iso(now)))

    async def _claim(self, sql: str, params: tuple) -> bool:
        async with self._session() as db:
            return bool(await db.execute_fetchall(sql, params))
