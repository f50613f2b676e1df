"""The SQLite store: the only module that talks to the database."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import AsyncIterator

import aiosqlite

from memory.migrations import LATEST_VERSION, MIGRATIONS


@dataclass(frozen=True)
class Turn:
    """What the store knows at the start of a turn: who, since when, and the session so far."""

    user_id: int
    name: str | None
    previous_seen: datetime | None
    history: list[dict[str, str]]


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat()


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class Store:
    """Async access to users and their session history; every write is one transaction."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._db = connection
        # One connection serves every coroutine; the lock keeps transactions from interleaving.
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str, *, migrate_to: int | None = LATEST_VERSION) -> "Store":
        """Open (creating if needed) the database at `path` and bring its schema up to date."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        await connection.execute("PRAGMA journal_mode = WAL")
        await connection.execute("PRAGMA synchronous = NORMAL")
        await connection.execute("PRAGMA foreign_keys = ON")
        await connection.execute("PRAGMA busy_timeout = 5000")
        store = cls(connection)
        if migrate_to is not None:
            await store.migrate(migrate_to)
        return store

    async def close(self) -> None:
        """Close the connection; the WAL is checkpointed by SQLite."""
        await self._db.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def schema_version(self) -> int:
        """Return the number of the last migration applied."""
        async with self._db.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        return int(row[0])

    async def migrate(self, target: int = LATEST_VERSION) -> None:
        """Apply, in order and each in its own transaction, the migrations above the current version."""
        current = await self.schema_version()
        for version, _name, statements in MIGRATIONS:
            if current < version <= target:
                async with self._transaction() as db:
                    for statement in statements:
                        await db.execute(statement)
                    await db.execute(f"PRAGMA user_version = {version}")

    async def begin_turn(
        self,
        *,
        user_id: int,
        first_name: str | None,
        language_code: str | None,
        text: str,
        now: datetime,
        update_id: int | None,
        history_limit: int,
        name: str | None = None,
    ) -> Turn | None:
        """Record the user's message and return the turn, or None if this update was already handled."""
        stamp = _iso(now)
        async with self._transaction() as db:
            async with db.execute("SELECT name, last_seen FROM users WHERE id = ?", (user_id,)) as cursor:
                row = await cursor.fetchone()
            if row is None:
                await db.execute(
                    "INSERT INTO users (id, first_name, language_code, first_seen, last_seen)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (user_id, first_name, language_code, stamp, stamp),
                )
                known_name, previous = None, None
            else:
                known_name, previous = row[0], _parse(row[1])
            cursor = await db.execute(
                "INSERT INTO messages (user_id, role, content, created_at, update_id) VALUES (?, 'user', ?, ?, ?)"
                " ON CONFLICT(update_id) DO NOTHING",
                (user_id, text, stamp, update_id),
            )
            if cursor.rowcount == 0:
                return None
            await db.execute(
                "UPDATE users SET first_name = ?, language_code = ?, last_seen = ?, name = COALESCE(?, name)"
                " WHERE id = ?",
                (first_name, language_code, stamp, name, user_id),
            )
            await self._prune(db, user_id, history_limit)
            history = await self._history(db, user_id, history_limit)
        return Turn(user_id=user_id, name=name or known_name, previous_seen=previous, history=history)

    async def add_reply(self, user_id: int, text: str, now: datetime, history_limit: int) -> None:
        """Store the assistant's reply and prune the session to `history_limit` messages."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO messages (user_id, role, content, created_at) VALUES (?, 'assistant', ?, ?)",
                (user_id, text, _iso(now)),
            )
            await self._prune(db, user_id, history_limit)

    async def history(self, user_id: int, limit: int) -> list[dict[str, str]]:
        """Return the user's last `limit` messages, oldest first, as chat messages."""
        async with self._lock:
            return await self._history(self._db, user_id, limit)

    async def user_name(self, user_id: int) -> str | None:
        """Return the name the user gave, if any."""
        async with self._lock, self._db.execute("SELECT name FROM users WHERE id = ?", (user_id,)) as cursor:
            row = await cursor.fetchone()
        return row[0] if row else None

    @staticmethod
    async def _history(db: aiosqlite.Connection, user_id: int, limit: int) -> list[dict[str, str]]:
        async with db.execute(
            "SELECT role, content FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT ?", (user_id, limit)
        ) as cursor:
            rows = await cursor.fetchall()
        return [{"role": role, "content": content} for role, content in reversed(rows)]

    @staticmethod
    async def _prune(db: aiosqlite.Connection, user_id: int, keep: int) -> None:
        # Keeps the newest `keep` messages; update ids of pruned messages go with them,
        # which is fine: Telegram never redelivers an update that old.
        await db.execute(
            "DELETE FROM messages WHERE user_id = ? AND id <= ("
            " SELECT id FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
            (user_id, user_id, keep),
        )

