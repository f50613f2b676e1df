"""The store: what the bot remembers of its users, in the database it shares (memory/store/database.py).

The inbox, the send budget and the poller lock are the transport's (handlers/transport/transport_store.py), the
usage ledger the meter's (memory/store/meter.py); tests/test_table_owners.py says which tables each may touch."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Awaitable

import aiosqlite

from memory.store.backends import Session
from memory.store.claims import ClaimQueries
from memory.store.database import Backend, open_database
from memory.store.edit_rows import EditQueries
from memory.store.event_rows import EventQueries
from memory.store.fact_rows import FactQueries, _iso
from memory.store.forget_rows import ForgetQueries
from memory.store.migrations import LATEST_VERSION
from memory.store.outreach_rows import ProactiveQueries
from memory.store.postgres_backend import PostgresBackend
from memory.store.reminder_rows import ReminderQueries
from memory.store.scope_rows import ScopeQueries
from memory.store.scripts import Script, T
from memory.store.topic_rows import TopicQueries, newest_topics
from memory.store.turn_rows import TurnQueries, _parse
from memory.usage import notice_claim


@dataclass(frozen=True)
class Profile:
    """What the store keeps about a user, for /profile."""

    name: str | None
    first_seen: datetime
    messages: int
    language_code: str | None = None


class Store(
    TurnQueries, FactQueries, ForgetQueries, ProactiveQueries, TopicQueries, ClaimQueries, EditQueries, ReminderQueries,
    ScopeQueries, EventQueries,
):
    """Async access to users, their turns (TurnQueries), their facts (FactQueries), forgetting some with Undo
    (ForgetQueries), the schedule of messages written first (ProactiveQueries), the topic lines of conversations
    (TopicQueries), claims on memory upkeep (ClaimQueries), the user's messages an edit rewrites (EditQueries),
    the reminders they asked for (ReminderQueries), their memories in groups (ScopeQueries), and what became of
    each fact (EventQueries)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._dialect = backend.dialect

    @classmethod
    async def open(cls, target: Path | str, *, migrate_to: int | None = LATEST_VERSION) -> "Store":
        """Open the database at `target` (open_database: a SQLite file or a postgresql:// URL, migrated) and
        return the store over it."""
        return cls(await open_database(target, migrate_to=migrate_to))

    @property
    def backend(self) -> Backend:
        """The database under the store, which the usage meter and the transport's store may share."""
        return self._backend

    @property
    def on_postgres(self) -> bool:
        """True when the store runs on PostgreSQL: several machines may share it."""
        return isinstance(self._backend, PostgresBackend)

    @staticmethod
    async def backup(source: Path | str, target: Path | str) -> str:
        """Copy the SQLite database at `source` to `target` with SQLite's online backup API; return integrity_check.

        Safe while the bot runs and writes: the copy is one consistent snapshot.
        """
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        async with aiosqlite.connect(str(source)) as db, aiosqlite.connect(str(target)) as copy:
            await db.backup(copy)
            rows = await copy.execute_fetchall("PRAGMA integrity_check")
        return str(next(iter(rows))[0])

    async def close(self) -> None:
        """Close the database, for every owner built over it: the connection (SQLite checkpoints its WAL) or the
        pool."""
        await self._backend.close()

    def _session(self) -> AbstractAsyncContextManager[Session]:
        """A connection whose statements each commit on their own."""
        return self._backend.session()

    def _transaction(self) -> AbstractAsyncContextManager[Session]:
        """A connection inside one transaction, rolled back on any error."""
        return self._backend.transaction()

    def _run(self, script: Script[T]) -> Awaitable[T]:
        """Run a script (scripts.Script): on SQLite at once in one transaction, on PostgreSQL statement by statement."""
        return self._backend.run(script)

    async def schema_version(self) -> int:
        """Return the number of the last migration applied."""
        return await self._backend.schema_version()

    async def migrate(self, target: int = LATEST_VERSION) -> None:
        """Apply, in order and each in its own transaction, the migrations above the current version."""
        await self._backend.migrate(target)

    async def message_for_update(self, user_id: int, update_id: int) -> str | None:
        """Return what was stored of the user's message from this update (a voice note's transcript), or None.

        A turn resumed after a crash uses it instead of transcribing the voice note again.
        """
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT content FROM messages WHERE update_id = ? AND user_id = ?", (update_id, user_id)
            )
        return next((row[0] for row in rows), None)

    async def last_unanswered(self, user_id: int) -> tuple[int, str, str] | None:
        """Return (update id, content, kind) of the user's newest message when nothing answered it yet, else None.

        What a "Try again" press may answer: only their very last message, and only once (the reply ends it).
        """
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT m.update_id, m.content, m.kind FROM messages m WHERE m.user_id = ? AND m.role = 'user'"
                " AND m.update_id IS NOT NULL AND m.id = (SELECT MAX(id) FROM messages WHERE user_id = ?)"
                " AND NOT EXISTS (SELECT 1 FROM messages r WHERE r.user_id = m.user_id AND r.reply_to = m.id)",
                (user_id, user_id),
            )
        return next((tuple(row) for row in rows), None)

    async def user_name(self, user_id: int) -> str | None:
        """Return the name the user gave, if any."""
        async with self._session() as db:
            rows = await db.execute_fetchall("SELECT name FROM users WHERE id = ?", (user_id,))
        return next((row[0] for row in rows), None)

    async def profile(self, user_id: int) -> Profile | None:
        """Return what is stored about the user, or None if nothing is."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT name, first_seen, (SELECT COUNT(*) FROM messages WHERE user_id = users.id), language_code"
                " FROM users WHERE id = ?",
                (user_id,),
            )
        row = next(iter(rows), None)
        if row is None:
            return None
        return Profile(name=row[0], first_seen=_parse(row[1]), messages=row[2], language_code=row[3])  # type: ignore[arg-type]

    async def settings(self, user_id: int) -> dict:
        """Return the user's settings (empty for someone the bot has never met)."""
        async with self._session() as db:
            rows = await db.execute_fetchall("SELECT settings FROM users WHERE id = ?", (user_id,))
        return next((json.loads(row[0]) for row in rows), {})

    async def set_setting(self, user_id: int, key: str, value: object, now: datetime) -> None:
        """Set one of the user's settings, creating their row if the bot has not met them yet."""
        async with self._transaction() as db:
            await db.execute(self._dialect.set_setting, (user_id, _iso(now), _iso(now), key, json.dumps(value)))

    async def claim_limit_notice(self, user_id: int, day: str, kind: str) -> bool:
        """True once per local `day` and limit `kind`: the caller tells the user; later calls that day say False."""
        async with self._transaction() as db:
            rows = await db.execute_fetchall("SELECT limit_notice FROM users WHERE id = ?", (user_id,))
            if not rows:
                return False
            mark = notice_claim(rows[0][0], day, kind)
            if mark is not None:
                await db.execute("UPDATE users SET limit_notice = ? WHERE id = ?", (mark, user_id))
        return mark is not None

    async def meet_user(self, user_id: int, now: datetime) -> None:
        """Give the user a row if the bot has not met them yet (facts typed on the memory page need one)."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
                (user_id, _iso(now), _iso(now)),
            )

    async def export_user(self, user_id: int) -> dict:
        """Return everything stored about the user, as plain data (for /export): their private memory, then their
        memory in each group under the group's title."""
        async with self._session() as db:
            users = await db.execute_fetchall(
                "SELECT id, first_name, name, language_code, first_seen, last_seen, settings FROM users WHERE id = ?",
                (user_id,),
            )
            reminders = await db.execute_fetchall(
                "SELECT task, due_at, rule, zone, state, created_at, delivered_at FROM reminders WHERE user_id = ?"
                " ORDER BY id",
                (user_id,),
            )
        user = dict(zip(("id", "first_name", "name", "language_code", "first_seen", "last_seen", "settings"),
                        users[0], strict=True)) if users else None
        if user:
            user["settings"] = json.loads(user["settings"])
        groups = []
        for member in await self.memberships(user_id):
            groups.append({"group": member.title, "chat_id": member.chat_id, "name": await self.user_name(member.key),
                           **await self._export_memory(member.key)})
        return {
            "user": user,
            **await self._export_memory(user_id),
            "reminders": [dict(zip(("task", "due_at", "rule", "zone", "state", "created_at", "delivered_at"), row,
                                   strict=True)) for row in reminders],
            "groups": groups,
        }

    async def _export_memory(self, key: int) -> dict:
        """Return one memory (the private one, or a member's in a group) as plain data: facts, their history and
        relations, the session's messages and the conversations' topic lines."""
        async with self._session() as db:
            messages = await db.execute_fetchall(
                "SELECT role, kind, content, created_at FROM messages WHERE user_id = ? ORDER BY id", (key,)
            )
            history = await db.execute_fetchall(
                "SELECT f.key, h.value, h.valid_from, h.valid_until, h.when_at FROM fact_history h"
                " JOIN facts f ON f.id = h.fact_id WHERE h.user_id = ? ORDER BY h.id",
                (key,),
            )
            wrong = await db.execute_fetchall(
                "SELECT value, at FROM memory_events WHERE user_id = ? AND event = 'wrong' ORDER BY id", (key,)
            )
            topics = await newest_topics(db, key, self._dialect.no_limit)
        facts, relations = await self.fact_graph(key)
        return {
            "facts": [
                {"category": f.category, "key": f.key, "value": f.value, "importance": f.importance,
                 "confidence": f.confidence, "source": f.source, "learned": _iso(f.created_at),
                 "updated": _iso(f.updated_at), "when": f.when, **({"shared": True} if f.shared else {}),
                 **({"ended": f.ended, "ended_at": _iso(f.ended_at), "ended_on": f.ended_on} if f.ended_at else {})}
                for f in facts if f.created_at and f.updated_at
            ],
            "fact_history": [dict(zip(("key", "value", "valid_from", "valid_until", "when"), row, strict=True))
                             for row in history],
            "marked_wrong": [{"value": value, "at": at} for value, at in wrong],
            "relations": [{"source": r.source_key, "target": r.target_key, "relation": r.relation,
                           "strength": r.strength} for r in relations],
            "messages": [dict(zip(("role", "kind", "content", "at"), row, strict=True)) for row in messages],
            "conversations": [{"topics": t.text, "started": _iso(t.started_at), "ended": _iso(t.ended_at)}
                              for t in reversed(topics)],
        }

    async def forget_user(self, user_id: int) -> tuple[int, int]:
        """Delete everything stored about the user, their memory in every group too, in one transaction; return
        (messages, facts) deleted."""
        async with self._transaction() as db:
            keys = [user_id, *(int(row[0]) for row in await db.execute_fetchall(
                "SELECT key FROM members WHERE user_id = ?", (user_id,)))]
            among = f"IN ({', '.join('?' * len(keys))})"
            facts = (await db.execute(f"DELETE FROM facts WHERE user_id {among}", keys)).rowcount
            messages = (await db.execute(f"DELETE FROM messages WHERE user_id {among}", keys)).rowcount
            await db.execute(f"DELETE FROM topics WHERE user_id {among}", keys)
            await db.execute(f"DELETE FROM reminders WHERE user_id {among}", keys)
            # What they spent stays in the day's totals for /stats, and what became of their facts in memory's own
            # figures, but neither says whose any longer, nor what a fact marked wrong said.
            await db.execute(f"UPDATE usage SET user_id = NULL WHERE user_id {among}", keys)
            await db.execute(f"UPDATE memory_events SET user_id = NULL, value = NULL WHERE user_id {among}", keys)
            # Relations and fact history went with the facts, memberships with the users (ON DELETE CASCADE).
            await db.execute(f"DELETE FROM users WHERE id {among}", keys)
        return int(messages), int(facts)
