"""The store's groups: each member's memory in a group, the group's own conversation, and what a user shares into
groups (part of Store, on either engine). Why they are kept apart: memory/scopes.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memory.facts import Fact
from memory.scopes import is_member_key, member_keys
from memory.store.backends import iso as _iso
from memory.store.fact_rows import FACT_COLUMN_NAMES, FACT_COLUMNS, _fact
from memory.store.rows import Rows


@dataclass(frozen=True)
class Membership:
    """A user's memory in one group."""

    key: int  # the memory key (memory/scopes.py)
    chat_id: int
    title: str | None


@dataclass(frozen=True)
class GroupMessage:
    """One message of a group's recent conversation with the bot."""

    id: int
    role: str  # "user" or "assistant"
    content: str
    at: datetime
    speaker: str | None  # the member's name as Telegram showed it there (a user message's)


class ScopeQueries(Rows):
    """Members' memories in groups and what crosses into them: a repository over the shared database."""


    async def member_key(self, user_id: int, chat_id: int, title: str | None, now: datetime) -> int:
        """Return the key of the user's memory in the group `chat_id`, giving them one (and the user a row of their
        own) the first time; the group's `title` is kept as last seen."""
        stamp = _iso(now)
        async with self._transaction() as db:
            rows = await db.execute_fetchall(
                "SELECT key, title FROM members WHERE user_id = ? AND chat_id = ?", (user_id, chat_id)
            )
            if rows:
                key, known_title = rows[0]
                if title and title != known_title:
                    await db.execute("UPDATE members SET title = ? WHERE key = ?", (title, key))
                return int(key)
            await db.execute(
                "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
                (user_id, stamp, stamp),
            )
            for key in member_keys(user_id, chat_id):
                if await db.execute_fetchall("SELECT 1 FROM users WHERE id = ?", (key,)):
                    continue  # another pair's key (a hash collision): the next one
                await db.execute("INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?)", (key, stamp, stamp))
                await db.execute("INSERT INTO members (key, user_id, chat_id, title) VALUES (?, ?, ?, ?)",
                                 (key, user_id, chat_id, title))
                return key
        raise RuntimeError(f"no free memory key for a member of group {chat_id}")

    async def known_member(self, user_id: int, chat_id: int) -> int | None:
        """Return the key of the user's memory in the group `chat_id`, or None when they have none there."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT key FROM members WHERE user_id = ? AND chat_id = ?", (user_id, chat_id)
            )
        return next((int(row[0]) for row in rows), None)

    async def memberships(self, user_id: int) -> list[Membership]:
        """Return the user's memories in groups, in the order they were first met there."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT m.key, m.chat_id, m.title FROM members m JOIN users u ON u.id = m.key WHERE m.user_id = ?"
                " ORDER BY u.first_seen, m.key",
                (user_id,),
            )
        return [Membership(int(key), int(chat_id), title) for key, chat_id, title in rows]

    async def memories_of(self, user_id: int) -> list[int]:
        """Return the keys of the user's memories: their private one, then theirs in each group."""
        return [user_id, *(member.key for member in await self.memberships(user_id))]

    async def owner_of(self, key: int) -> int:
        """Return the user behind a memory key: the member's own id for a group's key, else the key itself."""
        if not is_member_key(key):
            return key
        async with self._session() as db:
            rows = await db.execute_fetchall("SELECT user_id FROM members WHERE key = ?", (key,))
        return next((int(row[0]) for row in rows), key)

    async def shared_facts(self, user_id: int) -> list[Fact]:
        """Return the facts of the user's private memory they chose to let follow them into groups."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ? AND shared = 1 ORDER BY id", (user_id,)
            )
        return [_fact(row) for row in rows]

    async def shared_from_groups(self, user_id: int) -> list[tuple[int, Fact]]:
        """Return (memory key, fact) for each fact of the user's memories in groups they chose to let follow them
        into their private chat, in the order learned."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT m.key, {', '.join('f.' + column for column in FACT_COLUMN_NAMES)}"
                " FROM members m JOIN facts f ON f.user_id = m.key WHERE m.user_id = ? AND f.shared = 1 ORDER BY f.id",
                (user_id,),
            )
        return [(int(row[0]), _fact(tuple(row[1:]))) for row in rows]

    async def set_shared(self, user_id: int, fact_id: int, shared: bool) -> bool:
        """Let one of the user's facts follow them into groups, or not; False when it is not theirs."""
        async with self._session() as db:
            cursor = await db.execute(
                "UPDATE facts SET shared = ? WHERE id = ? AND user_id = ?", (int(shared), fact_id, user_id)
            )
        return bool(cursor.rowcount)

    async def group_history(self, chat_id: int, limit: int) -> list[GroupMessage]:
        """Return the group's newest `limit` messages with the bot, oldest first: every member's, and those sent on
        behalf of the group itself (an anonymous admin's, kept under the group's id)."""
        columns = "m.id, m.role, m.content, m.created_at, u.first_name"
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT * FROM (SELECT {columns} FROM members k JOIN messages m ON m.user_id = k.key"
                " JOIN users u ON u.id = m.user_id WHERE k.chat_id = ?"
                f" UNION ALL SELECT {columns} FROM messages m JOIN users u ON u.id = m.user_id WHERE m.user_id = ?)"
                " AS conversation ORDER BY id DESC LIMIT ?",
                (chat_id, chat_id, limit),
            )
        return [GroupMessage(int(row[0]), row[1], row[2], datetime.fromisoformat(row[3]), row[4])
                for row in reversed(rows)]
