"""The store's turn: the user's message in, with what the reply needs; the reply out, the session pruned (part of
Store, on either engine)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from memory.continuity import Topic
from memory.facts import Fact
from memory.store.backends import Session
from memory.store.fact_rows import FACT_COLUMNS, _fact, _iso
from memory.store.rows import Rows
from memory.store.scripts import Script
from memory.store.topic_rows import topics_from_json

# However long the extractor is down, a session never keeps more than this many times HISTORY_LIMIT.
UNREAD_CAP = 10
TOPICS_READ = 6  # topic lines read with each turn: enough for 3 once those of this session are left out

# Where a statement may write in its WITH clause (PostgreSQL), the turn's reads ride with its writes as JSON.
_FACTS_JSON = f"SELECT json_agg(json_build_array({FACT_COLUMNS}) ORDER BY id) FROM facts WHERE user_id = users.id"
_SESSION_JSON = (
    "SELECT json_agg(json_build_array(id, role, content, created_at) ORDER BY id DESC) FROM ("
    "SELECT id, role, content, created_at FROM messages WHERE user_id = ? AND persona = ?"
    " ORDER BY id DESC LIMIT ?) AS s"
)
_UNREAD = "SELECT COUNT(*) FROM messages WHERE user_id = ? AND role = 'user' AND id > ?"


@dataclass(frozen=True)
class StoredReply:
    """One of the companion's replies, with what its prompt held of memory."""

    id: int
    content: str
    at: datetime
    used: str  # JSON (services/why.py)
    chat_message_id: int | None


REPLY_COLUMNS = "id, content, created_at, used, chat_message_id"


def _stored_reply(row: tuple) -> StoredReply:
    return StoredReply(int(row[0]), row[1], datetime.fromisoformat(row[2]), row[3],
                       None if row[4] is None else int(row[4]))


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


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _facts_from_json(text: str | None) -> list[Fact]:
    rows = json.loads(text or "[]")
    for row in rows:
        row[5] = float(row[5])  # confidence: JSON writes a DOUBLE PRECISION 1.0 as 1
    return [_fact(tuple(row)) for row in rows]


class TurnQueries(Rows):
    """Beginning a turn (begin_turn) and storing its reply (add_reply): a repository over the shared database."""


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
        chat_message_id: int | None = None,
        payer: int | None = None,
        persona: str = "",
    ) -> Turn | None:
        """Record the user's message and return the turn; None if the update id is another user's message's.

        An update seen before (a crash cut its turn short) is not stored twice: its turn is returned
        again, with the reply if one was stored. `kind` says what the user sent ('text', 'voice', 'photo',
        'sticker', 'forward'). A message in their private chat unblocks them and moves their check-in to
        `checkin_at`. `chat_message_id` is Telegram's id of the message in its chat, by which an edit finds it.
        The message counts toward `payer`'s day (the user by default; a member's memory in a group charges them).
        `persona`: the key of the persona the user talks with ("" the owner's default); the message joins its
        session, and the turn's history is that session alone.
        """
        return await self._run(self._begin_turn(
            user_id, first_name, language_code, text, now, update_id, history_limit, kind, private, checkin_at,
            chat_message_id, user_id if payer is None else payer, persona,
        ))

    def _begin_turn(
        self, user_id: int, first_name: str | None, language_code: str | None, text: str, now: datetime,
        update_id: int | None, history_limit: int, kind: str, private: bool, checkin_at: datetime | None,
        chat_message_id: int | None, payer: int, persona: str = "",
    ) -> Script[Turn | None]:
        stamp = _iso(now)
        # One transaction on SQLite, a statement at a time. On PostgreSQL each statement commits on its own, in an
        # order where a crash between any two leaves a consistent database, and it takes two round trips: a write
        # rides in the WITH clause of a read (which still sees the rows as they were), and what the turn reads
        # rides along as JSON: the user's row with their facts and newest topic lines, then the message with
        # the session before it.
        fused = self._dialect.writes_in_with
        facts_column = f", ({_FACTS_JSON})" if fused else ""
        read = (
            f"SELECT name, last_seen, extracted_upto, settings, ({self._dialect.topics_json}){facts_column}"
            " FROM users WHERE id = ?"
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
        facts = (_facts_from_json(rows[0][5]) if rows else []) if fused else None
        insert = (
            "INSERT INTO messages (user_id, role, content, created_at, update_id, kind, chat_message_id, persona)"
            " VALUES (?, 'user', ?, ?, ?, ?, ?, ?) ON CONFLICT(update_id) DO NOTHING RETURNING id"
        )
        count = "INSERT INTO usage (user_id, at, messages) "  # once, with the message: for the daily limit and /stats
        session: list | None = None  # (id, role, content, created_at) of the newest messages, newest first
        if fused:
            inserted = yield (
                f"WITH message AS ({insert}), counted AS ({count} SELECT ?, ?, 1 FROM message)"
                f" SELECT id, ({_SESSION_JSON}), ({_UNREAD}) FROM message",
                (user_id, text, stamp, update_id, kind, chat_message_id, persona, payer, stamp,
                 user_id, persona, max(history_limit - 1, 0), user_id, read_upto),
            )
            if inserted:  # the session before this message, which the statement could not see yet
                message_id, before, unread = inserted[0]
                session = [(message_id, "user", text, stamp), *map(tuple, json.loads(before or "[]"))]
                session, unread = session[:history_limit], int(unread) + 1
        else:
            inserted = yield insert, (user_id, text, stamp, update_id, kind, chat_message_id, persona)
            if inserted:
                yield count + "VALUES (?, ?, 1)", (payer, stamp)
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
        if session is None:
            # The session, and on each row the count of the user's unread messages (some may be older than
            # the session); the subquery does not depend on the row, so SQLite runs it once.
            rows = yield (
                f"SELECT id, role, content, created_at, ({_UNREAD}) FROM messages WHERE user_id = ? AND persona = ?"
                " ORDER BY id DESC LIMIT ?",
                (user_id, read_upto, user_id, persona, history_limit),
            )
            session, unread = [row[:4] for row in rows], int(rows[0][4]) if rows else 0
        if facts is None:
            rows = yield f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ? ORDER BY id", (user_id,)
            facts = [_fact(row) for row in rows]
        session.reverse()
        return Turn(
            user_id=user_id,
            message_id=message_id,
            name=known_name,
            previous_seen=previous,
            history=[{"role": role, "content": content} for _id, role, content, _at in session],
            times=[datetime.fromisoformat(at) for *_, at in session],
            ids=[row[0] for row in session],
            topics=topics,
            facts=facts,
            settings=settings,
            unread=unread,
            stored_reply=stored_reply,
        )

    async def add_reply(
        self, user_id: int, text: str, now: datetime, history_limit: int, reply_to: int | None = None,
        tokens: int = 0, used: str | None = None, payer: int | None = None, persona: str = "",
    ) -> int:
        """Store the assistant's reply to message `reply_to`, what its prompt held of memory (`used`, JSON: see
        services/why.py), the `tokens` it cost (charged to `payer`, the user by default), and prune the session to
        `history_limit` messages (the session of `persona`, the key of the persona that answered); return the
        reply's id."""
        return await self._run(self._add_reply(user_id, text, now, history_limit, reply_to, tokens, used,
                                               user_id if payer is None else payer, persona))

    def _add_reply(
        self, user_id: int, text: str, now: datetime, history_limit: int, reply_to: int | None, tokens: int,
        used: str | None, payer: int, persona: str = "",
    ) -> Script[int]:
        insert = (
            "INSERT INTO messages (user_id, role, content, created_at, reply_to, used, persona)"
            " VALUES (?, 'assistant', ?, ?, ?, ?, ?) RETURNING id"
        )
        count = "INSERT INTO usage (user_id, at, tokens) VALUES (?, ?, ?)"
        inserted, counted = (user_id, text, _iso(now), reply_to, used, persona), (payer, _iso(now), tokens)
        if self._dialect.writes_in_with:  # one round trip; the prune reads the session as it was before the reply
            prune, pruned = TurnQueries._prune_statement(user_id, history_limit, written=1, persona=persona)
            also = f", counted AS ({count})" if tokens else ""
            rows = yield (f"WITH reply AS ({insert}){also}, pruned AS ({prune}) SELECT id FROM reply",
                          (*inserted, *(counted if tokens else ()), *pruned))
            return int(rows[0][0])
        rows = yield insert, inserted
        if tokens:
            yield count, counted
        yield TurnQueries._prune_statement(user_id, history_limit, persona=persona)
        return int(rows[0][0])

    async def mark_sent(self, user_id: int, reply_id: int, chat_message_id: int) -> None:
        """Record which Telegram message carried the user's reply `reply_id` (its first part), so that a "/why"
        sent in reply to it finds it."""
        async with self._session() as db:
            await db.execute("UPDATE messages SET chat_message_id = ? WHERE id = ? AND user_id = ?",
                             (chat_message_id, reply_id, user_id))

    async def reply_used(self, user_id: int, chat_message_id: int | None = None, reply_id: int | None = None
                         ) -> StoredReply | None:
        """Return the user's reply that Telegram's `chat_message_id` carried, or their stored reply `reply_id`, or else
        their newest reply, with what its prompt held; None when it is no longer in the session, or none was kept."""
        if chat_message_id is not None:
            found = await self._replies(user_id, 1, "AND chat_message_id = ?", (chat_message_id,))
        elif reply_id is not None:
            found = await self._replies(user_id, 1, "AND id = ?", (reply_id,))
        else:
            found = await self._replies(user_id, 1)
        return next(iter(found), None)

    async def memories_used_since(self, since: datetime) -> list[str]:
        """Return what each reply since `since` still in a session held of memory (JSON: services/why.py), every
        user's: the sample /stats averages."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT used FROM messages WHERE role = 'assistant' AND used IS NOT NULL AND created_at >= ?",
                (_iso(since),),
            )
        return [row[0] for row in rows]

    async def replies_used(self, user_id: int, limit: int) -> list[StoredReply]:
        """Return the user's newest `limit` replies still in the session with what each prompt held, newest
        first."""
        return await self._replies(user_id, limit)

    async def _replies(self, user_id: int, limit: int, where: str = "", params: tuple = ()) -> list[StoredReply]:
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {REPLY_COLUMNS} FROM messages WHERE user_id = ? AND role = 'assistant' AND used IS NOT NULL"
                f" {where} ORDER BY id DESC LIMIT ?",
                (user_id, *params, limit),
            )
        return [_stored_reply(row) for row in rows]

    @staticmethod
    async def _prune(db: Session, user_id: int, keep: int, persona: str = "") -> None:
        await db.execute(*TurnQueries._prune_statement(user_id, keep, persona=persona))

    @staticmethod
    def _prune_statement(user_id: int, keep: int, written: int = 0, persona: str = "") -> tuple[str, tuple]:
        # Keeps the newest `keep` messages, and older ones the fact extractor has not read yet
        # (up to a hard cap). Update ids of pruned messages go with them, which is fine:
        # Telegram never redelivers an update that old. `written`: newer messages this statement cannot see
        # yet (written in its WITH clause), which count among the `keep`. Each persona's session is kept on its
        # own (`persona`): talking with one never prunes another's.
        return (
            "DELETE FROM messages WHERE user_id = ? AND persona = ? AND id <= ("
            " SELECT id FROM messages WHERE user_id = ? AND persona = ? ORDER BY id DESC LIMIT 1 OFFSET ?)"
            " AND (id <= (SELECT extracted_upto FROM users WHERE id = ?) OR id <= ("
            " SELECT id FROM messages WHERE user_id = ? AND persona = ? ORDER BY id DESC LIMIT 1 OFFSET ?))",
            (user_id, persona, user_id, persona, max(keep - written, 0), user_id, user_id, persona,
             max(keep * UNREAD_CAP - written, 0)),
        )

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
