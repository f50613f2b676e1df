"""The store's inbox of Telegram updates (part of Store, on either engine).

An update is recorded before Telegram learns it arrived and marked handled after its handlers ran, so
a crash loses none (the unhandled are replayed) and answers none twice (a redelivered one is known).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any, Awaitable, Callable, Sequence

from memory.store.backends import Dialect, Session
from memory.store.fact_rows import _iso
from memory.store.scripts import Script, statement


class InboxQueries:
    """Recording, replaying and retiring updates; mixed into Store, which provides the connection and lock."""

    _session: Callable[[], AbstractAsyncContextManager[Session]]
    _transaction: Callable[[], AbstractAsyncContextManager[Session]]
    _run: Callable[[Script[Any]], Awaitable[Any]]
    _dialect: Dialect

    async def record_updates(self, updates: Sequence[tuple[int, str, int | None]], now: datetime) -> set[int]:
        """Write (update_id, JSON payload, user id) triples in one statement; return the ids not there yet.

        An update recorded before (Telegram delivered it again) is left as it was. The user id (else the
        chat's; None for neither) says whose turn it is: their unhandled updates are handled in id order.
        """
        if not updates:
            return set()
        stamp = _iso(now)
        rows = await self._run(statement(
            "INSERT INTO inbox (update_id, payload, received_at, user_id) VALUES "
            + ", ".join("(?, ?, ?, ?)" for _ in updates)
            + " ON CONFLICT(update_id) DO NOTHING RETURNING update_id",
            [value for update_id, payload, key in updates for value in (update_id, payload, stamp, key)],
        ))
        return {row[0] for row in rows}

    async def earlier_unhandled(self, key: int, update_id: int) -> tuple[list[str], bool]:
        """Return the payloads of the user's unhandled updates older than `update_id`, oldest first, and whether
        `update_id` itself was handled (one query for both: a round trip less on PostgreSQL).

        With several machines, one of them may have recorded an earlier update that it has not started yet:
        the machine holding the user's lock handles it first, so the user's turns keep their order.
        """
        rows = await self._run(statement(
            "SELECT update_id, payload, 0 FROM inbox WHERE user_id = ? AND update_id < ? AND handled_at IS NULL"
            " AND payload IS NOT NULL UNION ALL SELECT update_id, NULL, CASE WHEN handled_at IS NULL THEN 0 ELSE 1 END"
            " FROM inbox WHERE update_id = ? ORDER BY 1",
            (key, update_id, update_id),
        ))
        handled = any(row[0] == update_id and row[2] for row in rows)
        return [row[1] for row in rows if row[0] != update_id], handled

    async def unhandled_updates(self, received_before: datetime | None = None) -> list[str]:
        """Return the payloads of the updates recorded but never handled (and received before
        `received_before`, if given), oldest first."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT payload FROM inbox WHERE handled_at IS NULL AND payload IS NOT NULL AND received_at < ?"
                " ORDER BY update_id",
                (_iso(received_before) if received_before else "9999",),
            )
        return [row[0] for row in rows]

    async def was_handled(self, update_id: int) -> bool:
        """True if this update's handlers already ran (Telegram delivered it again)."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT 1 FROM inbox WHERE update_id = ? AND handled_at IS NOT NULL", (update_id,)
            )
        return bool(rows)

    async def mark_handled(self, update_id: int, now: datetime) -> None:
        """Mark the update handled and drop its payload and whose it was: only the id stays, for a day."""
        await self._run(statement(
            "UPDATE inbox SET handled_at = ?, payload = NULL, user_id = NULL WHERE update_id = ?",
            (_iso(now), update_id),
        ))

    async def prune_inbox(self, before: datetime) -> int:
        """Forget updates handled before `before` (Telegram never redelivers one that old); return how many."""
        async with self._session() as db:
            cursor = await db.execute("DELETE FROM inbox WHERE handled_at < ?", (_iso(before),))
        return int(cursor.rowcount)
