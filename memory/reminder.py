"""The plain type of a reminder the user asked for, as the store reads it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# Reminder.state
PENDING, ACTIVE, DONE, CANCELLED, MISSED = "pending", "active", "done", "cancelled", "missed"


@dataclass(frozen=True)
class Reminder:
    """A reminder as stored: what to remind of, where, and when it is next due (UTC)."""

    id: int
    user_id: int
    chat_id: int  # where it is delivered: their private chat, or the group it was asked in
    asker: str | None  # the name to mention in a group; None in a private chat
    task: str
    due_at: datetime  # aware, UTC: the next time the rule plans (or the one time), never when one was delivered
    rule: str | None  # None: a one-off; else a rule line such as "week mon 08:00"
    zone: str  # the IANA zone the rule is planned in
    created_at: datetime
    state: str = ACTIVE  # PENDING (which time was asked), ACTIVE, DONE, CANCELLED or MISSED
    delivered_at: datetime | None = None  # when Telegram last accepted it
    missed: int = 0  # occurrences skipped while the bot was down that the user has not been told of yet
