"""A user's own row: their name, settings, the notices of their limits, and what /profile shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from memory.store.fact_rows import _iso
from memory.store.rows import Rows
from memory.store.turn_rows import _parse
from memory.usage import notice_claim


@dataclass(frozen=True)
class Profile:
    """What the store keeps about a user, for /profile."""

    name: str | None
    first_seen: datetime
    messages: int
    language_code: str | None = None


class UserRows(Rows):
    """The table users: a user's name, settings and limit notices (and, for /profile, how many messages they have)."""

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

