"""The usage meter: the one place a charge is recorded (tokens, seconds of voice, model errors), and the ledger
it keeps summed for the daily limits, /usage and /stats.

Built once over the database every owner shares (memory/store/database.py) and passed to everything that spends:
the companion's daily limits, the voice listener, messages written first, the memory keeper, and the model
client's failures. A user's messages, and a reply's tokens, are counted by the store's turn itself, in the
statement that stores them (memory/store/turn_rows.py), so that each is counted exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory.scopes import MEMBER_KEYS
from memory.store.backends import iso
from memory.store.database import Backend
from memory.usage import Spent

SPENT = "COALESCE(SUM(messages), 0), COALESCE(SUM(tokens), 0), COALESCE(SUM(voice_seconds), 0)"


@dataclass(frozen=True)
class Stats:
    """How the bot is used, for an admin's /stats: "today" is the UTC day, active means a message written."""

    users: int
    active_today: int
    active_week: int
    today: Spent
    heaviest: list[tuple[int, Spent]] = field(default_factory=list)  # (user id, what they spent today)
    facts: int = 0
    database_bytes: int = 0
    model_errors: int = 0  # in the last 24 hours


class UsageMeter:
    """Writes and sums the usage ledger (the table usage)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._dialect = backend.dialect

    async def record_usage(
        self, user_id: int | None, now: datetime, *, tokens: int = 0, voice_seconds: float = 0.0,
        model_errors: int = 0, while_stored: bool = False,
    ) -> None:
        """Add one charge to the ledger (a user's messages are counted by begin_turn, with the message).

        `while_stored`: work done on the user's stored memory (an extraction pass, a message written first) is
        theirs only while they are stored; if they were forgotten while it ran, it goes to nobody, as forget_user
        does with what they spent before.
        """
        if not (tokens or voice_seconds or model_errors):
            return
        whose = "(SELECT id FROM users WHERE id = ?)" if while_stored else "?"
        async with self._backend.session() as db:
            await db.execute(
                f"INSERT INTO usage (user_id, at, tokens, voice_seconds, model_errors) VALUES ({whose}, ?, ?, ?, ?)",
                (user_id, iso(now), tokens, voice_seconds, model_errors),
            )

    async def spent_since(self, user_id: int, since: datetime) -> Spent:
        """Return what the user spent from `since` on (their messages, tokens and seconds of audio)."""
        async with self._backend.session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {SPENT} FROM usage WHERE user_id = ? AND at >= ?", (user_id, iso(since))
            )
        return _spent(next(iter(rows)))

    async def prune_usage(self, before: datetime) -> int:
        """Delete ledger rows older than `before`; return how many."""
        async with self._backend.session() as db:
            cursor = await db.execute("DELETE FROM usage WHERE at < ?", (iso(before),))
        return int(cursor.rowcount)

    async def stats(self, now: datetime, day_start: datetime, heaviest: int = 5) -> Stats:
        """Return the numbers of /stats at `now`; "today" starts at `day_start`."""
        today, week, errors_since = iso(day_start), iso(now - timedelta(days=7)), iso(now - timedelta(days=1))
        async with self._backend.session() as db:
            [(users, active_today, active_week, facts, size)] = await db.execute_fetchall(
                "SELECT COUNT(*), COALESCE(SUM(CASE WHEN last_seen >= ? THEN 1 ELSE 0 END), 0),"
                " COALESCE(SUM(CASE WHEN last_seen >= ? THEN 1 ELSE 0 END), 0), (SELECT COUNT(*) FROM facts),"
                f" ({self._dialect.database_size}) FROM users WHERE id >= ?",  # not members' memories in groups
                (today, week, MEMBER_KEYS),
            )
            [spent] = await db.execute_fetchall(f"SELECT {SPENT} FROM usage WHERE at >= ?", (today,))
            [(errors,)] = await db.execute_fetchall(
                "SELECT COALESCE(SUM(model_errors), 0) FROM usage WHERE at >= ?", (errors_since,)
            )
            top = await db.execute_fetchall(
                f"SELECT user_id, {SPENT} FROM usage WHERE at >= ? AND user_id IS NOT NULL GROUP BY user_id"
                " ORDER BY SUM(tokens) DESC, SUM(messages) DESC, user_id LIMIT ?",
                (today, heaviest),
            )
        return Stats(
            users=users, active_today=active_today, active_week=active_week, today=_spent(spent),
            heaviest=[(row[0], _spent(row[1:])) for row in top], facts=facts, database_bytes=size,
            model_errors=errors,
        )


def _spent(row: tuple) -> Spent:
    return Spent(messages=int(row[0]), tokens=int(row[1]), voice_seconds=float(row[2]))
