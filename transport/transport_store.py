"""The transport's own tables and locks, over the database memory's Store shares (memory/store/database.py).

The inbox of Telegram updates: an update is recorded before Telegram learns it arrived and marked handled after
its handlers ran, so a crash loses none (the unhandled are replayed) and answers none twice (a redelivered one
is known). The send budget: the machines of one bot share Telegram's rate in one token bucket row
(send_budget), taken from in one statement. And the locks across machines: a user's turns one at a time, and
one process polling. It owns the tables inbox and send_budget, and touches no other (tests/test_table_owners.py);
their schema is its own too (transport/transport_migrations.py).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Sequence

from memory.store.backends import iso
from memory.store.database import Backend
from memory.store.postgres_backend import PostgresBackend
from memory.store.scripts import statement
from transport.transport_migrations import migrate_transport

# The advisory lock the one polling process holds (PostgreSQL): users take their own id (positive), memory's
# migrations take -1 (memory/store/postgres_backend.py), the transport's -3 (transport/transport_migrations.py).
POLLER_LOCK = -2


class TransportStore:
    """Recording, replaying and retiring updates, taking send tokens, and the user and poller locks."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._dialect = backend.dialect

    @classmethod
    async def open(cls, backend: Backend) -> "TransportStore":
        """Return the transport's store over `backend`, its tables first brought to their latest migration
        (transport/transport_migrations.py)."""
        await migrate_transport(backend)
        return cls(backend)

    @property
    def on_postgres(self) -> bool:
        """True when the database is PostgreSQL: several machines may share it, and this inbox."""
        return isinstance(self._backend, PostgresBackend)

    def user_turn(self, key: int) -> AbstractAsyncContextManager[None]:
        """Hold the user's lock for one turn: on PostgreSQL their turns run one at a time on every machine."""
        return self._backend.user_lock(key)

    async def take_poller_lock(self) -> bool:
        """True when this process may poll Telegram: no other process polls with this database. Held until the
        database is closed."""
        return await self._backend.take_process_lock(POLLER_LOCK)

    async def record_updates(self, updates: Sequence[tuple[int, str, int | None]], now: datetime) -> set[int]:
        """Write (update_id, JSON payload, user id) triples in one statement; return the ids not there yet.

        An update recorded before (Telegram delivered it again) is left as it was. The user id (else the
        chat's; None for neither) says whose turn it is: their unhandled updates are handled in id order.
        """
        if not updates:
            return set()
        stamp = iso(now)
        rows = await self._backend.run(statement(
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
        rows = await self._backend.run(statement(
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
        async with self._backend.session() as db:
            rows = await db.execute_fetchall(
                "SELECT payload FROM inbox WHERE handled_at IS NULL AND payload IS NOT NULL AND received_at < ?"
                " ORDER BY update_id",
                (iso(received_before) if received_before else "9999",),
            )
        return [row[0] for row in rows]

    async def unhandled_count(self) -> int:
        """Return how many updates are recorded and not handled yet (on PostgreSQL, those of every machine): a count
        over the partial index of the unhandled, which holds only them."""
        async with self._backend.session() as db:
            [(count,)] = await db.execute_fetchall("SELECT COUNT(*) FROM inbox WHERE handled_at IS NULL")
        return int(count)

    async def was_handled(self, update_id: int) -> bool:
        """True if this update's handlers already ran (Telegram delivered it again)."""
        async with self._backend.session() as db:
            rows = await db.execute_fetchall(
                "SELECT 1 FROM inbox WHERE update_id = ? AND handled_at IS NOT NULL", (update_id,)
            )
        return bool(rows)

    async def mark_handled(self, update_id: int, now: datetime) -> None:
        """Mark the update handled and drop its payload and whose it was: only the id stays, for a day."""
        await self._backend.run(statement(
            "UPDATE inbox SET handled_at = ?, payload = NULL, user_id = NULL WHERE update_id = ?",
            (iso(now), update_id),
        ))

    async def prune_inbox(self, before: datetime) -> int:
        """Forget updates handled before `before` (Telegram never redelivers one that old); return how many."""
        async with self._backend.session() as db:
            cursor = await db.execute("DELETE FROM inbox WHERE handled_at < ?", (iso(before),))
        return int(cursor.rowcount)

    async def take_send_token(self, rate: float, burst: float, queue: bool = True) -> float | None:
        """Take one token from the bot's shared bucket (`rate` a second, at most `burst` saved) on the database's
        clock; return the seconds to wait before the request it pays for (transport/send_budget.py). With
        `queue` False, only a token there now: None when there is none."""
        d, number = self._dialect, "CAST(? AS DOUBLE PRECISION)"
        elapsed = f"{d.greatest}(0, {d.epoch_now} - send_budget.refilled_at)"
        refilled = f"{d.least}({number}, send_budget.tokens + {elapsed} * {number})"
        if queue:
            sql = (
                f"INSERT INTO send_budget (id, tokens, refilled_at) VALUES (1, {number} - 1, {d.epoch_now})"
                f" ON CONFLICT (id) DO UPDATE SET tokens = {refilled} - 1,"
                f" refilled_at = {d.greatest}(send_budget.refilled_at, {d.epoch_now}) RETURNING tokens"
            )
            params: tuple = (burst, burst, rate)
        else:
            sql = (
                f"UPDATE send_budget SET tokens = {refilled} - 1,"
                f" refilled_at = {d.greatest}(send_budget.refilled_at, {d.epoch_now})"
                f" WHERE id = 1 AND {refilled} >= 1 RETURNING tokens"
            )
            params = (burst, rate, burst, rate)
        async with self._backend.session() as db:
            rows = await db.execute_fetchall(sql, params)
        if not rows:
            return None
        return max(0.0, -float(rows[0][0]) / rate)
