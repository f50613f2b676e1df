"""Daily usage limits, pure: what a user spent today, which limit it reaches, when their day starts and ends.

A day is the user's own: it starts at midnight in their zone. Messages are refused once more than the limit
were sent; tokens and voice seconds once the limit is reached (the message that crosses it is still answered).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class Limits:
    """Per-user daily limits; 0 means none."""

    messages: int = 0
    tokens: int = 0
    voice_seconds: int = 0

    def __bool__(self) -> bool:
        return bool(self.messages or self.tokens or self.voice_seconds)


@dataclass(frozen=True)
class Spent:
    """What one user (or everyone) spent in a span of time: their messages, model tokens, seconds of audio."""

    messages: int = 0
    tokens: int = 0
    voice_seconds: float = 0.0


def reached(spent: Spent, limits: Limits) -> str | None:
    """Return the first limit that keeps the model from answering ("messages" or "tokens"), or None.

    `spent.messages` counts the message being answered, so with a limit of n the n+1-th is refused.
    Voice seconds only stop transcription (see `voice_reached`), never a typed message.
    """
    if limits.messages and spent.messages > limits.messages:
        return "messages"
    if limits.tokens and spent.tokens >= limits.tokens:
        return "tokens"
    return None


def voice_reached(spent: Spent, limits: Limits) -> bool:
    """True when the day's seconds of audio are used up: the next voice message is not transcribed."""
    return bool(limits.voice_seconds) and spent.voice_seconds >= limits.voice_seconds


def day_start(now: datetime, zone: ZoneInfo) -> datetime:
    """Return the moment (UTC) the user's day began: the last midnight in `zone` at or before `now`."""
    return _midnight(now.astimezone(zone).date(), zone)


def next_reset(now: datetime, zone: ZoneInfo) -> datetime:
    """Return the next midnight in `zone` after `now`, in `zone`: when the limits start again."""
    return _midnight(now.astimezone(zone).date() + timedelta(days=1), zone).astimezone(zone)


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    # Where a change of clocks skips midnight (America/Santiago, Asia/Beirut), the day starts at the first
    # moment that exists: zoneinfo reads the skipped 00:00 with the offset before the change, which is it.
    local = datetime.combine(day, time.min, tzinfo=zone)
    return local.astimezone(timezone.utc)


def notice_claim(previous: str | None, day: str, kind: str) -> str | None:
    """Return the new notice mark once `kind` may be told on `day`, or None when it already was.

    The mark is "<day> <kind>,<kind>": each limit is told once a day, and a new day starts afresh.
    """
    told_day, _, kinds = (previous or "").partition(" ")
    told = set(kinds.split(",")) if told_day == day and kinds else set()
    if kind in told:
        return None
    return f"{day} {','.join(sorted(told | {kind}))}"

