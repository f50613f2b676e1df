"""The store: the only code that talks to the database (SQLite, or PostgreSQL through memory/store/backends.py)."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Awaitable

import aiosqlite

from memory.continuity import Topic
from memory.facts import Fact
from memory.store.backends import PostgresBackend, Session, SQLiteBackend, is_postgres_url
from memory.store.claims import ClaimQueries
from memory.store.fact_rows import FACT_COLUMNS, FactQueries, _fact, _iso
from memory.store.forget_rows import ForgetQueries
from memory.store.inbox_rows import InboxQueries
from memory.store.migrations import LATEST_VERSION
from memory.store.outreach_rows import ProactiveQueries
from memory.store.scripts import Script, T
from memory.store.topic_rows import TopicQueries, newest_topics, topics_from_json
from memory.store.usage_rows import UsageQueries

# However long the extractor is down, a session never keeps more than this many times HISTORY_LIMIT.
UNREAD_CAP = 10
TOPICS_READ = 6  # topic lines read with each turn: enough for 3 once those of this session are left out


@dataclass(frozen=True)
class Turn:
    """What the store knows at the start of a turn: who, since when, and the session so far."""

    user_id: int
    message_id: int
    name: str | None
    previous_seen: datetime | None
    history: list[dict[str, str]]
    facts: list[Fact] = field(default_factory=list)
    unread: int = 0  # the user's own messages in the session the fact extractor has not read yet
    settings: dict = field(default_factory=dict)
    stored_reply: str | None = None  # set when a crash cut this turn short after its reply was stored
    times: list[datetime] = field(default_factory=list)  # when each message of `history` was written
    topics: list[Topic] = field(default_factory=list)  # the newest topic lines of earlier conversations
    ids: list[int] = field(default_factory=list)  # the id of each message of `history`


@dataclass(frozen=True)
class Profile:
    """What the store keeps about a user, for /profile."""

    name: str | None
    first_seen: datetime
    messages: int
    language_code: str | None = None


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class Store(FactQueries, ForgetQueries, InboxQueries, ProactiveQueries, TopicQueries, UsageQueries, ClaimQueries):
    """Async access to users, their session history, their facts (FactQueries), forgetting some with Undo
    (ForgetQueries), the inbox (InboxQueries), the schedule of messages written first (ProactiveQueries), the
    topic lines of conversations (TopicQueries), the usage ledger (UsageQueries) and claims on background work
    (ClaimQueries)."""

    def __init__(self, backend: SQLiteBackend | PostgresBackend) -> None:
        self._backend = backend
        self._dialect = backend.dialect

    @classmethod
    async def open(cls, target: Path | str, *, migrate_to: int | None = LATEST_VERSION) -> "Store":
        """Open the database at `target`, a SQLite file (created if needed) or a postgresql:// URL, and bring
        its schema up to date."""
        backend = await (PostgresBackend.open(target) if is_postgres_url(target) else SQLiteBackend.open(target))
        try:
            if migrate_to is not None:
                await backend.migrate(migrate_to)
        except BaseException:
            await backend.close()
            raise
        return cls(backend)

    @property
    def on_postgres(self) -> bool:
        """True when the store runs on PostgreSQL: several machines may share it."""
        return isinstance(self._backend, PostgresBackend)

    def user_turn(self, key: int) -> AbstractAsyncContextManager[None]:
        """Hold the user's lock for one turn: on PostgreSQL their turns run one at a time on every machine."""
        return self._backend.user_lock(key)

    async def take_poller_lock(self) -> bool:
        """True when this process may poll Telegram: no other process polls with this database."""
        return await self._backend.take_poller_lock()

    @staticmethod
    async def backup(source: Path | str, target: Path | str) -> str:
        """Copy the SQLite database at `source` to `target` with SQLite's online backup API; return integrity_check.

        Safe while the bot runs and writes: the copy is one consistent snapshot.
        """
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        async with aiosqlite.connect(str(source)) as db, aiosqlite.connect(str(target)) as copy:
            await db.backup(copy)
            rows = await copy.execute_fetchall("PRAGMA integrity_check")
        return str(rows[0][0])

    async def close(self) -> None:
        """Close the connection (SQLite checkpoints its WAL) or the pool."""
        await self._backend.close()

    def _session(self) -> AbstractAsyncContextManager[Session]:
        """A connection whose statements each commit on their own."""
        return self._backend.session()

    def _transaction(self) -> AbstractAsyncContextManager[Session]:
        """A connection inside one transaction, rolled back on any error."""
        return self._backend.transaction()

    def _run(self, script: Script[T]) -> Awaitable[T]:
        """Run a script (backends.Script): on SQLite in one trip to its thread, shared with any that wait."""
        return self._backend.run(script)

    async def schema_version(self) -> int:
        """Return the number of the last migration applied."""
        return await self._backend.schema_version()

    async def migrate(self, target: int = LATEST_VERSION) -> None:
        """Apply, in order and each in its own transaction, the migrations above the current version."""
        await self._backend.migrate(target)

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
        kind: str = "text",
        private: bool = True,
        checkin_at: datetime | None = None,
    ) -> Turn | None:
        """Record the user's message and return the turn; None if the update id is another user's message's.

        An update seen before (a crash cut its turn short) is not stored twice: its turn is returned
        again, with the reply if one was stored. `kind` says what the user sent ('text', 'voice', 'photo',
        'sticker'). A message in their private chat unblocks them and moves their check-in to `checkin_at`.
        """
        return await self._run(self._begin_turn(
            user_id, first_name, language_code, text, now, update_id, history_limit, kind, private, checkin_at
        ))

    def _begin_turn(
        self, user_id: int, first_name: str | None, language_code: str | None, text: str, now: datetime,
        update_id: int | None, history_limit: int, kind: str, private: bool, checkin_at: datetime | None,
    ) -> Script[Turn | None]:
        stamp = _iso(now)
        # One transaction on SQLite; on PostgreSQL each statement commits on its own, in an order where a crash
        # between any two leaves a consistent database, and a write rides in the WITH clause of the statement
        # before it (which still reads the rows as they were): two round trips fewer. The user's newest topic
        # lines ride along as JSON.
        fused = self._dialect.writes_in_with
        read = (
            f"SELECT name, last_seen, extracted_upto, settings, ({self._dialect.topics_json}) FROM users"
            " WHERE id = ?"
        )
        upsert = (
            "INSERT INTO users (id, first_name, language_code, first_seen, last_seen, private_chat, checkin_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET first_name = excluded.first_name,"
            " language_code = excluded.language_code, last_seen = excluded.last_seen,"
            f" private_chat = {self._dialect.greatest}(users.private_chat, excluded.private_chat),"
            " checkin_at = CASE WHEN excluded.private_chat = 1 THEN excluded.checkin_at ELSE users.checkin_at END,"
            " blocked_at = CASE WHEN excluded.private_chat = 1 THEN NULL ELSE users.blocked_at END"
        )
        upserted = (user_id, first_name, language_code, stamp, stamp, int(private),
                    _iso(checkin_at) if private and checkin_at else None)
        if fused:
            rows = yield (f"WITH old AS ({read}), written AS ({upsert}) SELECT * FROM old",
                          (TOPICS_READ, user_id, *upserted))
        else:
            rows = yield read, (TOPICS_READ, user_id)
            yield upsert, upserted
        known_name, previous, read_upto, settings, topics = next(
            ((row[0], _parse(row[1]), row[2], json.loads(row[3]), topics_from_json(row[4])) for row in rows),
            (None, None, 0, {}, []),
        )
        insert = (
            "INSERT INTO messages (user_id, role, content, created_at, update_id, kind)"
            " VALUES (?, 'user', ?, ?, ?, ?) ON CONFLICT(update_id) DO NOTHING RETURNING id"
        )
        count = "INSERT INTO usage (user_id, at, messages) "  # once, with the message: for the daily limit and /stats
        if fused:
            inserted = yield (
                f"WITH message AS ({insert}), counted AS ({count} SELECT ?, ?, 1 FROM message) SELECT id FROM message",
                (user_id, text, stamp, update_id, kind, user_id, stamp),
            )
        else:
            inserted = yield insert, (user_id, text, stamp, update_id, kind)
            if inserted:
                yield count + "VALUES (?, ?, 1)", (user_id, stamp)
        message_id, stored_reply = next((row[0] for row in inserted), 0), None
        if not inserted:
            # Seen before: a crash cut the turn short. Resume it, or resend the reply it stored.
            seen = yield (
                "SELECT m.id, (SELECT r.content FROM messages r WHERE r.user_id = m.user_id AND r.reply_to = m.id)"
                " FROM messages m WHERE m.update_id = ? AND m.user_id = ?",
                (update_id, user_id),
            )
            if not seen:
                return None
            message_id, stored_reply = seen[0]
        # The session, and on each row the count of the user's unread messages (some may be older than
        # the session); the subquery does not depend on the row, so SQLite runs it once.
        rows = yield (
            "SELECT id, role, content, (SELECT COUNT(*) FROM messages WHERE user_id = ? AND role = 'user'"
            " AND id > ?), created_at FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT ?",
            (user_id, read_upto, user_id, history_limit),
        )
        unread = int(rows[0][3]) if rows else 0
        facts = yield f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ? ORDER BY id", (user_id,)
        return Turn(
            user_id=user_id,
            message_id=message_id,
            name=known_name,
            previous_seen=previous,
            history=[{"role": role, "content": content} for _id, role, content, _, _at in reversed(rows)],
            times=[datetime.fromisoformat(row[4]) for row in reversed(rows)],
            ids=[row[0] for row in reversed(rows)],
            topics=topics,
            facts=[_fact(row) for row in facts],
            settings=settings,
            unread=unread,
            stored_reply=stored_reply,
        )

    async def add_reply(
        self, user_id: int, text: str, now: datetime, history_limit: int, reply_to: int | None = None,
        tokens: int = 0,
    ) -> None:
        """Store the assistant's reply to message `reply_to`, the `tokens` it cost, and prune the session to
        `history_limit` messages."""
        await self._run(self._add_reply(user_id, text, now, history_limit, reply_to, tokens))

    def _add_reply(
        self, user_id: int, text: str, now: datetime, history_limit: int, reply_to: int | None, tokens: int
    ) -> Script[None]:
        insert = "INSERT INTO messages (user_id, role, content, created_at, reply_to) VALUES (?, 'assistant', ?, ?, ?)"
        count = "INSERT INTO usage (user_id, at, tokens) VALUES (?, ?, ?)"
        inserted, counted = (user_id, text, _iso(now), reply_to), (user_id, _iso(now), tokens)
        if self._dialect.writes_in_with:  # one round trip; the prune reads the session as it was before the reply
            prune, pruned = Store._prune_statement(user_id, history_limit, written=1)
            also = f", counted AS ({count})" if tokens else ""
            yield f"WITH reply AS ({insert}){also} {prune}", (*inserted, *(counted if tokens else ()), *pruned)
            return
        yield insert, inserted
        if tokens:
            yield count, counted
        yield Store._prune_statement(user_id, history_limit)

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
        return next((tuple(row) for row in rows), None)  # type: ignore[return-value]

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

    async def meet_user(self, user_id: int, now: datetime) -> None:
        """Give the user a row if the bot has not met them yet (facts typed on the memory page need one)."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
                (user_id, _iso(now), _iso(now)),
            )

    async def export_user(self, user_id: int) -> dict:
        """Return everything stored about the user, as plain data (for /export)."""
        async with self._session() as db:
            users = await db.execute_fetchall(
                "SELECT id, first_name, name, language_code, first_seen, last_seen, settings FROM users WHERE id = ?",
                (user_id,),
            )
            messages = await db.execute_fetchall(
                "SELECT role, kind, content, created_at FROM messages WHERE user_id = ? ORDER BY id", (user_id,)
            )
            history = await db.execute_fetchall(
                "SELECT f.key, h.value, h.valid_from, h.valid_until, h.when_at FROM fact_history h"
                " JOIN facts f ON f.id = h.fact_id WHERE h.user_id = ? ORDER BY h.id",
                (user_id,),
            )
            topics = await newest_topics(db, user_id, self._dialect.no_limit)
        facts, relations = await self.fact_graph(user_id)
        user = dict(zip(("id", "first_name", "name", "language_code", "first_seen", "last_seen", "settings"),
                        users[0], strict=True)) if users else None
        if user:
            user["settings"] = json.loads(user["settings"])
        return {
            "user": user,
            "facts": [
                {"category": f.category, "key": f.key, "value": f.value, "importance": f.importance,
                 "confidence": f.confidence, "source": f.source, "learned": _iso(f.created_at),
                 "updated": _iso(f.updated_at), "when": f.when,
                 **({"ended": f.ended, "ended_at": _iso(f.ended_at), "ended_on": f.ended_on} if f.ended_at else {})}
                for f in facts if f.created_at and f.updated_at
            ],
            "fact_history": [dict(zip(("key", "value", "valid_from", "valid_until", "when"), row, strict=True))
                             for row in history],
            "relations": [{"source": r.source_key, "target": r.target_key, "relation": r.relation,
                           "strength": r.strength} for r in relations],
            "messages": [dict(zip(("role", "kind", "content", "at"), row, strict=True)) for row in messages],
            "conversations": [{"topics": t.text, "started": _iso(t.started_at), "ended": _iso(t.ended_at)}
                              for t in reversed(topics)],
        }

    async def forget_user(self, user_id: int) -> tuple[int, int]:
        """Delete everything stored about the user in one transaction; return (messages, facts) deleted."""
        async with self._transaction() as db:
            facts = (await db.execute("DELETE FROM facts WHERE user_id = ?", (user_id,))).rowcount
            messages = (await db.execute("DELETE FROM messages WHERE user_id = ?", (user_id,))).rowcount
            await db.execute("DELETE FROM topics WHERE user_id = ?", (user_id,))
            # What they spent stays in the day's totals for /stats, but no longer says whose it was.
            await db.execute("UPDATE usage SET user_id = NULL WHERE user_id = ?", (user_id,))
            # Relations and fact history went with the facts (ON DELETE CASCADE).
            await db.execute("DELETE FROM users WHERE id = ?", (user_id,))
        return int(messages), int(facts)

    @staticmethod
    async def _prune(db: aiosqlite.Connection, user_id: int, keep: int) -> None:
        await db.execute(*Store._prune_statement(user_id, keep))

    @staticmethod
    def _prune_statement(user_id: int, keep: int, written: int = 0) -> tuple[str, tuple]:
        # Keeps the newest `keep` messages, and older ones the fact extractor has not read yet
        # (up to a hard cap). Update ids of pruned messages go with them, which is fine:
        # Telegram never redelivers an update that old. `written`: newer messages this statement cannot see
        # yet (written in its WITH clause), which count among the `keep`.
        return (
            "DELETE FROM messages WHERE user_id = ? AND id <= ("
            " SELECT id FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)"
            " AND (id <= (SELECT extracted_upto FROM users WHERE id = ?) OR id <= ("
            " SELECT id FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?))",
            (user_id, user_id, max(keep - written, 0), user_id, user_id, max(keep * UNREAD_CAP - written, 0)),
        )

