"""The store's reminders the user asked for (part of Store, on either engine).

A reminder is sent at most once per time it is due: a machine takes it (`take_reminder`, a claim until a given
time, read `FOR UPDATE SKIP LOCKED` on PostgreSQL as in claims.py), sends it, and then `finish_reminder` moves it
on: a one-off is done, a recurring one gets its next time from the rule. Every step after the take holds only
while the row still has the due time it was read with, so a cancel or a move meanwhile wins over the send.
"""

from __future__ import annotations

from datetime import datetime

from memory.reminder import ACTIVE, Reminder
from memory.store.backends import Session
from memory.store.fact_rows import _iso
from memory.store.rows import Rows

REMINDER_COLUMNS = "id, user_id, chat_id, asker, task, due_at, rule, zone, created_at, state, delivered_at, missed"
# `state = 'active'` as written in the partial index reminders_by_due, so that both engines use it.
DUE_REMINDERS = (
    f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE state = 'active' AND due_at <= ?"
    " AND (claim_until IS NULL OR claim_until < ?) ORDER BY due_at, id LIMIT ?"
)
# The soonest time a sweep could take a reminder: the first active one (by the same index) that no machine holds.
NEXT_DUE = (
    "SELECT due_at FROM reminders WHERE state = 'active' AND (claim_until IS NULL OR claim_until < ?)"
    " ORDER BY due_at LIMIT 1"
)


def _reminder(row: tuple) -> Reminder:
    return Reminder(
        id=row[0], user_id=row[1], chat_id=row[2], asker=row[3], task=row[4], due_at=datetime.fromisoformat(row[5]),
        rule=row[6], zone=row[7], created_at=datetime.fromisoformat(row[8]), state=row[9],
        delivered_at=datetime.fromisoformat(row[10]) if row[10] else None, missed=row[11],
    )


async def _active_count(db: Session, user_id: int) -> int:
    [(count,)] = await db.execute_fetchall(
        "SELECT COUNT(*) FROM reminders WHERE user_id = ? AND state = 'active'", (user_id,)
    )
    return int(count)


class ReminderQueries(Rows):
    """Setting, listing, cancelling and moving a user's reminders, and taking due ones to send: a repository over
    the shared database."""


    async def add_reminder(
        self, user_id: int, chat_id: int, task: str, due_at: datetime, rule: str | None, zone: str, now: datetime,
        asker: str | None = None, limit: int = 50, update_id: int | None = None, state: str = ACTIVE,
    ) -> Reminder | None:
        """Return the reminder set for the user (who must have a row: their turn met them), or None when they
        already have `limit` active ones. `update_id` is the message that asked: a turn resumed after a crash gets
        the reminder it set the first time. `state` PENDING: the bot asked which time (`activate_reminder`)."""
        async with self._transaction() as db:
            if self._dialect.lock_user:  # two adds at once on two machines must not both pass the count
                await db.execute(self._dialect.lock_user, (user_id,))
            if update_id is not None:
                rows = await db.execute_fetchall(
                    f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE user_id = ? AND source_update = ?",
                    (user_id, update_id),
                )
                if rows:
                    return _reminder(tuple(rows[0]))
            if state == ACTIVE and await _active_count(db, user_id) >= limit:
                return None
            [row] = await db.execute_fetchall(
                "INSERT INTO reminders (user_id, chat_id, asker, task, due_at, rule, zone, created_at, state,"
                f" source_update) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {REMINDER_COLUMNS}",
                (user_id, chat_id, asker, task, _iso(due_at), rule, zone, _iso(now), state, update_id),
            )
        return _reminder(tuple(row))

    async def activate_reminder(
        self, user_id: int, reminder_id: int, due_at: datetime, limit: int = 50
    ) -> Reminder | None:
        """Set the user's pending reminder (the bot asked which time) for `due_at`; None when it is not pending
        (already chosen, or not theirs) or they have `limit` active ones."""
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            if await _active_count(db, user_id) >= limit:
                return None
            rows = await db.execute_fetchall(
                "UPDATE reminders SET state = 'active', due_at = ? WHERE id = ? AND user_id = ? AND state = 'pending'"
                f" RETURNING {REMINDER_COLUMNS}",
                (_iso(due_at), reminder_id, user_id),
            )
        return _reminder(tuple(rows[0])) if rows else None

    async def drop_pending(self, user_id: int, reminder_id: int) -> bool:
        """Drop the user's pending reminder (the bot asked which time and the user answered otherwise, or went on
        to something else); False when it is not pending (a button chose its time) or not theirs."""
        async with self._session() as db:
            cursor = await db.execute(
                "UPDATE reminders SET state = 'cancelled' WHERE id = ? AND user_id = ? AND state = 'pending'",
                (reminder_id, user_id),
            )
        return cursor.rowcount == 1

    async def reminders(self, user_id: int, missed_too: bool = False) -> list[Reminder]:
        """Return the user's active reminders, the soonest first; with `missed_too` (what a turn needs, in one
        read) also any other with a missed time they have not been told of (`missed` > 0)."""
        which = "(state = 'active' OR missed > 0)" if missed_too else "state = 'active'"
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE user_id = ? AND {which} ORDER BY due_at, id",
                (user_id,),
            )
        return [_reminder(tuple(row)) for row in rows]

    async def reminder(self, user_id: int, reminder_id: int) -> Reminder | None:
        """Return the user's reminder `reminder_id` in whatever state, or None (another user's is never found)."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {REMINDER_COLUMNS} FROM reminders WHERE id = ? AND user_id = ?", (reminder_id, user_id)
            )
        return next((_reminder(tuple(row)) for row in rows), None)

    async def cancel_reminder(self, user_id: int, reminder_id: int) -> bool:
        """Cancel the user's active reminder; False when there is none of that id (done, cancelled, or not theirs)."""
        async with self._session() as db:
            cursor = await db.execute(
                "UPDATE reminders SET state = 'cancelled', claim_until = NULL"
                " WHERE id = ? AND user_id = ? AND state = 'active'",
                (reminder_id, user_id),
            )
        return cursor.rowcount == 1

    async def move_reminder(self, user_id: int, reminder_id: int, due_at: datetime) -> bool:
        """Move the user's active reminder to `due_at` (a machine's claim on it goes); False when there is none."""
        async with self._session() as db:
            cursor = await db.execute(
                "UPDATE reminders SET due_at = ?, claim_until = NULL WHERE id = ? AND user_id = ? AND state = 'active'",
                (_iso(due_at), reminder_id, user_id),
            )
        return cursor.rowcount == 1

    async def due_reminders(self, now: datetime, limit: int) -> list[Reminder]:
        """Return up to `limit` active reminders due by `now` that no machine holds, the longest overdue first."""
        stamp = _iso(now)
        async with self._session() as db:
            rows = await db.execute_fetchall(DUE_REMINDERS, (stamp, stamp, limit))
        return [_reminder(tuple(row)) for row in rows]

    async def next_reminder_due(self, now: datetime) -> datetime | None:
        """Return when the soonest active reminder no machine holds at `now` is due (in the past when one is
        waiting already); None when there is none."""
        async with self._session() as db:
            rows = await db.execute_fetchall(NEXT_DUE, (_iso(now),))
        return datetime.fromisoformat(rows[0][0]) if rows else None

    async def take_reminder(self, reminder: Reminder, now: datetime, until: datetime) -> bool:
        """Take a due reminder until `until` before sending it; False when another machine holds it, or it is no
        longer due as read (cancelled, moved, or sent meanwhile)."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "UPDATE reminders SET claim_until = ? WHERE id = (SELECT id FROM reminders WHERE id = ?"
                " AND state = 'active' AND due_at = ? AND (claim_until IS NULL OR claim_until < ?)"
                f"{self._dialect.skip_locked}) RETURNING id",
                (_iso(until), reminder.id, _iso(reminder.due_at), _iso(now)),
            )
        return bool(rows)

    async def finish_reminder(self, reminder: Reminder, delivered_at: datetime, next_due: datetime | None) -> bool:
        """Record that Telegram accepted the reminder: with no `next_due` it is done, else it is next due then.

        False when it was cancelled or moved while it was being sent: that stands, and nothing changes.
        """
        change, params = ("state = 'done'", ()) if next_due is None else ("due_at = ?", (_iso(next_due),))
        async with self._session() as db:
            cursor = await db.execute(
                f"UPDATE reminders SET {change}, claim_until = NULL, delivered_at = ?"
                " WHERE id = ? AND state = 'active' AND due_at = ?",
                (*params, _iso(delivered_at), reminder.id, _iso(reminder.due_at)),
            )
        return cursor.rowcount == 1

    async def release_reminder_claims(self) -> None:
        """Let go of every claim (SQLite only, one process: claims found at start-up are a dead process's)."""
        async with self._session() as db:
            await db.execute("UPDATE reminders SET claim_until = NULL WHERE claim_until IS NOT NULL")

    async def release_reminder(self, reminder: Reminder, retry_at: datetime | None = None) -> None:
        """Let go of a reminder whose sending failed: still due as it was, taken again by a sweep once `retry_at`
        has passed (None: by the next sweep)."""
        async with self._session() as db:
            await db.execute(
                "UPDATE reminders SET claim_until = ? WHERE id = ? AND state = 'active' AND due_at = ?",
                (_iso(retry_at) if retry_at else None, reminder.id, _iso(reminder.due_at)),
            )

    async def skip_reminder(self, reminder: Reminder, next_due: datetime | None) -> bool:
        """Count a reminder as missed (due too long ago to send now, the bot was down): with no `next_due` it is
        'missed', else it is next due then. False when it was cancelled or moved meanwhile."""
        change, params = ("state = 'missed'", ()) if next_due is None else ("due_at = ?", (_iso(next_due),))
        async with self._session() as db:
            cursor = await db.execute(
                f"UPDATE reminders SET {change}, claim_until = NULL, missed = missed + 1"
                " WHERE id = ? AND state = 'active' AND due_at = ?",
                (*params, reminder.id, _iso(reminder.due_at)),
            )
        return cursor.rowcount == 1

    async def take_missed(self, user_id: int) -> list[str]:
        """Return the tasks of the user's reminders that missed a time they have not been told of, oldest set
        first, and clear that: each is told once (a missed one-off is then done)."""
        async with self._transaction() as db:
            # One statement: of two machines at once, the second finds the counts already cleared.
            rows = await db.execute_fetchall(
                "UPDATE reminders SET missed = 0, state = CASE WHEN state = 'missed' THEN 'done' ELSE state END"
                " WHERE user_id = ? AND missed > 0 RETURNING id, task",
                (user_id,),
            )
        return [task for _id, task in sorted(tuple(row) for row in rows)]
