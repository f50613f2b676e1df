"""The outreach policy, pure: when the companion may write first. Quiet hours, the daily cap, a greeting's day
window, how late a follow-up may come, when a birthday comes back, and whether the user has talked about the event
since. The user's clock and when a fact falls due are memory's (memory/time/schedule.py); `now` is always passed in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from memory.due import DueItem
from memory.text.word_forms import bases
from memory.time.schedule import DAY_WINDOW, followup_due, local_at, next_birthday, parse_when

LATE_LIMIT = timedelta(days=2)  # a follow-up later than this is dropped: "how did it go?" a week on is odd
WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass(frozen=True)
class Manners:
    """The bot-wide settings that govern writing first."""

    quiet_hours: tuple[int, int] | None = (22 * 60, 9 * 60)
    daily_max: int = 1
    followup_after_hours: float = 3.0


@dataclass(frozen=True)
class Decision:
    """What the sweep does with a due item: 'send' it now, or move it to `at` ('later'; 'drop': None or next year)."""

    action: str
    at: datetime | None = None


def _minute(local: datetime) -> int:
    return local.hour * 60 + local.minute


def quiet_end(local: datetime, quiet: tuple[int, int] | None) -> datetime | None:
    """Return when the quiet hours around `local` end, or None when `local` is outside them."""
    if quiet is None:
        return None
    start, end = quiet
    minute = _minute(local)
    inside = (minute >= start or minute < end) if start > end else start <= minute < end
    if not inside:
        return None
    day = local.date() if minute < end else local.date() + timedelta(days=1)
    return local_at(day, time(end // 60, end % 60), local.tzinfo)  # type: ignore[arg-type]


def earliest_allowed(local: datetime, quiet: tuple[int, int] | None, window: tuple[int, int] | None) -> datetime:
    """Return the first moment from `local` on that is outside quiet hours and, if given, inside the day window."""
    for _ in range(4):
        moved = False
        later = quiet_end(local, quiet)
        if later is not None:
            local, moved = later, True
        if window is not None and not window[0] <= local.hour < window[1]:
            day = local.date() if local.hour < window[0] else local.date() + timedelta(days=1)
            local, moved = local_at(day, time(window[0]), local.tzinfo), True  # type: ignore[arg-type]
        if not moved:
            break
    return local


def recurrence(item: DueItem, zone: ZoneInfo) -> datetime | None:
    """Return when an item comes back once its day is over: a birthday next year; anything else never (None)."""
    if item.kind != "birthday" or not item.when:
        return None
    day_after = local_at(item.due_at.astimezone(zone).date() + timedelta(days=1), time(0), zone)
    return next_birthday(item.when, zone, day_after)


def decide(item: DueItem, now: datetime, manners: Manners, zone: ZoneInfo) -> Decision:
    """Return whether to send a due item now, move it later (quiet hours, daily cap, day window) or drop it."""
    local = now.astimezone(zone)
    drop = Decision("drop", recurrence(item, zone))
    if item.settings.get("checkins") == "off":
        return drop
    if item.kind != "checkin" and item.settings.get("memory", "on") == "off":
        return drop  # follow-ups come from memory
    deadline: datetime | None = None
    window = None
    if item.kind == "followup":
        original = followup_due(item.when or "", zone, manners.followup_after_hours)
        if original is None:
            return drop
        deadline = original + LATE_LIMIT
        parsed = parse_when(item.when)
        window = DAY_WINDOW if parsed is not None and parsed[1] is None else None
    elif item.kind == "birthday":
        deadline = local_at(item.due_at.astimezone(zone).date() + timedelta(days=1), time(0), zone)
        window = DAY_WINDOW
    if deadline is not None and now >= deadline:
        return drop
    start = local
    if item.proactive_day == local.date().isoformat() and item.proactive_count >= manners.daily_max:
        start = local_at(local.date() + timedelta(days=1), time(0), zone)
    allowed = earliest_allowed(start, manners.quiet_hours, window)
    if allowed <= local:
        return Decision("send")
    if deadline is not None and allowed >= deadline:
        return drop
    return Decision("later", allowed)


def talked_about(value: str, later_messages: list[str]) -> bool:
    """True when one of the user's later messages shares a word of four letters or more with the event, in any
    form: a lemma or English stem in common ("экзамен" ~ "на экзамене", "interview" ~ "interviews")."""
    named = set().union(*(bases(word) for word in WORD.findall(value)))
    return any(bases(word) & named for message in later_messages for word in WORD.findall(message))
