"""The store's schedule of messages the companion writes first (part of Store, on either engine).

The schedule is two indexed columns: `users.checkin_at` (when to check in on someone silent) and
`facts.followup_at` (when to ask how a dated event went, or to greet a birthday). Sending one is at most
once: it is claimed (its due time cleared, the text put in the session) in one transaction before it goes
to Telegram, so a crash after the claim can lose it but never send it twice.
"""

from __future__ import annotations

import json
from datetime import datetime

from memory.due import DueItem
from memory.store.fact_rows import _iso
from memory.store.rows import Rows
from memory.store.turn_rows import TurnQueries

USER_COLUMNS = (
    "u.settings, (SELECT c.value FROM facts c WHERE c.user_id = u.id AND c.key = 'city' AND c.ended IS NULL),"
    " u.language_code, u.proactive_day, u.proactive_count"
)
# Both halves use their partial index; only items of users who can be written to are read.
DUE_QUERY = (
    f"SELECT 'checkin', u.id, u.checkin_at, NULL, NULL, NULL, {USER_COLUMNS} FROM users u"
    " WHERE u.checkin_at <= ? AND u.blocked_at IS NULL AND u.private_chat = 1"
    " UNION ALL"
    f" SELECT CASE WHEN f.key = 'birthday' THEN 'birthday' ELSE 'followup' END, f.user_id, f.followup_at, f.id,"
    f" f.value, f.when_at, {USER_COLUMNS} FROM facts f JOIN users u ON u.id = f.user_id"
    " WHERE f.followup_at <= ? AND u.blocked_at IS NULL AND u.private_chat = 1"
    " ORDER BY 3 LIMIT ?"
)


def _item(row: tuple) -> DueItem:
    return DueItem(
        kind=row[0], user_id=row[1], due_at=datetime.fromisoformat(row[2]), fact_id=row[3], fact_value=row[4],
        when=row[5], settings=json.loads(row[6]), city=row[7], language_code=row[8], proactive_day=row[9],
        proactive_count=row[10],
    )


class ProactiveQueries(Rows):
    """Reading, moving and claiming due items."""


    async def due_items(self, now: datetime, limit: int) -> list[DueItem]:
        """Return up to `limit` items due by `now`, the longest overdue first, for users who can be written to."""
        stamp = _iso(now)
        async with self._session() as db:
            rows = await db.execute_fetchall(DUE_QUERY, (stamp, stamp, limit))
        return [_item(row) for row in rows]

    async def move_items(self, moves: list[tuple[DueItem, datetime | None]]) -> None:
        """Give each item a new due time (None: nothing more is due), in one transaction.

        An item the user changed meanwhile (they wrote, or the fact changed) keeps its new time.
        """
        if not moves:
            return
        checkins = [(_iso(at) if at else None, item.user_id, _iso(item.due_at))
                    for item, at in moves if item.kind == "checkin"]
        facts = [(_iso(at) if at else None, item.fact_id, _iso(item.due_at))
                 for item, at in moves if item.kind != "checkin"]
        async with self._transaction() as db:
            await db.executemany(
                "UPDATE users SET checkin_at = ?, checkin_claim = NULL WHERE id = ? AND checkin_at = ?", checkins
            )
            await db.executemany(
                "UPDATE facts SET followup_at = ?, followup_claim = NULL WHERE id = ? AND followup_at = ?", facts
            )

    async def claim_item(
        self, item: DueItem, text: str, now: datetime, local_day: str, next_due: datetime | None, history_limit: int,
        persona: str = "",
    ) -> int | None:
        """Take a due item for sending and put `text` in the session as the companion's; return its message id.

        None when the item is no longer due as read (the user wrote meanwhile, the fact changed or went, or
        another sweep took it); it joins `persona`'s session. Any message written first also cancels the pending
        check-in: after it, only the user's next message arms one again. `next_due` is the item's next time (a
        birthday's next year).
        """
        async with self._transaction() as db:
            if item.kind == "checkin":
                cursor = await db.execute(
                    "UPDATE users SET checkin_at = NULL, checkin_claim = NULL WHERE id = ? AND checkin_at = ?",
                    (item.user_id, _iso(item.due_at)),
                )
            else:
                cursor = await db.execute(
                    "UPDATE facts SET followup_at = ?, followup_claim = NULL"
                    " WHERE id = ? AND user_id = ? AND followup_at = ?",
                    (_iso(next_due) if next_due else None, item.fact_id, item.user_id, _iso(item.due_at)),
                )
            if cursor.rowcount != 1:
                return None
            await db.execute(
                "UPDATE users SET checkin_at = NULL, proactive_count = CASE WHEN proactive_day = ?"
                " THEN proactive_count + 1 ELSE 1 END, proactive_day = ? WHERE id = ?",
                (local_day, local_day, item.user_id),
            )
            [(message_id,)] = await db.execute_fetchall(
                "INSERT INTO messages (user_id, role, content, created_at, kind, persona)"
                " VALUES (?, 'assistant', ?, ?, ?, ?) RETURNING id",
                (item.user_id, text, _iso(now), item.kind, persona),
            )
            await TurnQueries._prune(db, item.user_id, history_limit, persona)
        return message_id

    async def mark_blocked(self, user_id: int, message_id: int | None, now: datetime, first: bool = False) -> None:
        """Record that the user blocked the bot: nothing is written to them until they write; the unsent text goes.

        The message never arrived, so it leaves the day's count, and with `first` (it was the first one ever,
        with the line on how to stop them) the user is again one who has never been written to.
        """
        async with self._transaction() as db:
            await db.execute(
                "UPDATE users SET blocked_at = ?, checkin_at = NULL,"
                f" proactive_count = {self._dialect.greatest}(proactive_count - 1, 0),"
                " proactive_day = CASE WHEN ? THEN NULL ELSE proactive_day END WHERE id = ?",
                (_iso(now), first, user_id),
            )
            if message_id is not None:
                await db.execute("DELETE FROM messages WHERE id = ? AND user_id = ?", (message_id, user_id))

    async def block_user(self, user_id: int, now: datetime) -> None:
        """Record that the user blocked the bot (a reply was refused): nothing is written first to them until they
        write again."""
        async with self._transaction() as db:
            await db.execute("UPDATE users SET blocked_at = ?, checkin_at = NULL WHERE id = ?", (_iso(now), user_id))

    async def timed_history(self, user_id: int, limit: int, persona: str = "") -> list[tuple[str, str, datetime]]:
        """Return the user's last `limit` messages of `persona`'s session (the default's: ""), oldest first, as
        (role, content, created_at)."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT role, content, created_at FROM messages WHERE user_id = ? AND persona = ?"
                " ORDER BY id DESC LIMIT ?",
                (user_id, persona, limit),
            )
        return [(role, content, datetime.fromisoformat(at)) for role, content, at in reversed(rows)]
