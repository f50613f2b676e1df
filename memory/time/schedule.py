"""Pure rules of the user's own clock and of when the companion may write first; `now` is always passed in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.due import DueItem
from memory.facts import Fact
from memory.time.zones import zone_for_city

LATE_LIMIT = timedelta(days=2)  # a follow-up later than this is dropped: "how did it go?" a week on is odd
DAY_WINDOW = (10, 20)  # local hours for a follow-up on a date without a time, and for a birthday greeting
WHEN_PATTERN = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?")
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


def valid_zone(name: object) -> bool:
    """True for a string that names an IANA time zone."""
    if not isinstance(name, str) or not name or len(name) > 64:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def user_zone(settings: dict, city: str | None, default: str) -> tuple[str, str]:
    """Return the user's zone and where it came from: 'command' (/timezone), 'city' (their city fact) or 'default'."""
    chosen = settings.get("timezone")
    if valid_zone(chosen):
        return chosen, "command"
    zone = zone_for_city(city) if city else None
    if zone:
        return zone, "city"
    return default, "default"


def city_of(facts: Sequence[Fact]) -> str | None:
    """Return the value of the user's city fact, if they have one and still live there."""
    return next((fact.value for fact in facts if fact.key == "city" and fact.ended is None), None)


def local_zone(settings: dict, facts: Sequence[Fact], default: str) -> ZoneInfo:
    """Return the user's zone: chosen with /timezone, else their city's, else `default`."""
    return ZoneInfo(user_zone(settings, city_of(facts), default)[0])


def parse_when(value: object) -> tuple[date, time | None] | None:
    """Return (date, time or None) of an ISO 8601 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM'; None if it is neither."""
    if not isinstance(value, str):
        return None
    match = WHEN_PATTERN.fullmatch(value.strip())
    if not match:
        return None
    year, month, day, hour, minute = match.groups()
    try:
        day_part = date(int(year), int(month), int(day))
        time_part = time(int(hour), int(minute)) if hour is not None else None
    except ValueError:
        return None
    return day_part, time_part


def normalize_when(value: object) -> str | None:
    """Return `value` as 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM' (seconds and offsets dropped), or None if invalid."""
    parsed = parse_when(value)
    if parsed is None:
        return None
    day, moment = parsed
    return day.isoformat() if moment is None else f"{day.isoformat()}T{moment:%H:%M}"


def _local(day: date, moment: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, moment, tzinfo=zone)


def followup_due(when: str, zone: ZoneInfo, after_hours: float) -> datetime | None:
    """Return when to ask how an event went: `after_hours` after a date-time, or 10:00 the next day for a date."""
    parsed = parse_when(when)
    if parsed is None:
        return None
    day, moment = parsed
    if moment is None:
        return _local(day + timedelta(days=1), time(DAY_WINDOW[0]), zone)
    return _local(day, moment, zone) + timedelta(hours=after_hours)


def next_birthday(when: str, zone: ZoneInfo, now: datetime) -> datetime | None:
    """Return 10:00 local on the user's next birthday; today's counts until its greeting window closes."""
    parsed = parse_when(when)
    if parsed is None:
        return None
    born, local = parsed[0], now.astimezone(zone)
    for year in (local.year, local.year + 1):
        try:
            day = date(year, born.month, born.day)
        except ValueError:  # 29 February is greeted on 28 February in other years
            day = date(year, 2, 28)
        if day > local.date() or (day == local.date() and local.hour < DAY_WINDOW[1]):
            return _local(day, time(DAY_WINDOW[0]), zone)
    return None


def plan_followup(fact: Fact, zone: ZoneInfo, now: datetime, after_hours: float) -> datetime | None:
    """Return when to write first about a fact: a birthday greeting, or a follow-up on a plan still ahead; else None."""
    if fact.when is None:
        return None
    if fact.key == "birthday":
        return next_birthday(fact.when, zone, now)
    if fact.category != "plans":
        return None
    parsed = parse_when(fact.when)
    due = followup_due(fact.when, zone, after_hours)
    if parsed is None or due is None:
        return None
    day, moment = parsed
    happens = _local(day, moment, zone) if moment else _local(day + timedelta(days=1), time(0), zone)
    # An event already over when it is told ("I had an exam yesterday") needs no question.
    return due if happens > now else None


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
    return _local(day, time(end // 60, end % 60), local.tzinfo)  # type: ignore[arg-type]


def earliest_allowed(local: datetime, quiet: tuple[int, int] | None, window: tuple[int, int] | None) -> datetime:
    """Return the first moment from `local` on that is outside quiet hours and, if given, inside the day window."""
    for _ in range(4):
        moved = False
        later = quiet_end(local, quiet)
        if later is not None:
            local, moved = later, True
        if window is not None and not window[0] <= local.hour < window[1]:
            day = local.date() if local.hour < window[0] else local.date() + timedelta(days=1)
            local, moved = _local(day, time(window[0]), local.tzinfo), True  # type: ignore[arg-type]
        if not moved:
            break
    return local


def recurrence(item: DueItem, zone: ZoneInfo) -> datetime | None:
    """Return when an item comes back once its day is over: a birthday next year; anything else never (None)."""
    if item.kind != "birthday" or not item.when:
        return None
    day_after = _local(item.due_at.astimezone(zone).date() + timedelta(days=1), time(0), zone)
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
        deadline = _local(item.due_at.astimezone(zone).date() + timedelta(days=1), time(0), zone)
        window = DAY_WINDOW
    if deadline is not None and now >= deadline:
        return drop
    start = local
    if item.proactive_day == local.date().isoformat() and item.proactive_count >= manners.daily_max:
        start = _local(local.date() + timedelta(days=1), time(0), zone)
    allowed = earliest_allowed(start, manners.quiet_hours, window)
    if allowed <= local:
        return Decision("send")
    if deadline is not None and allowed >= deadline:
        return drop
    return Decision("later", allowed)


def talked_about(value: str, later_messages: list[str]) -> bool:
    """True when one of the user's later messages shares a word with the event ("экзамен" ~ "экзамена")."""
    stems = {word[:6] for word in WORD.findall(value.lower().replace("ё", "е"))}
    if not stems:
        return False
    for message in later_messages:
        words = WORD.findall(message.lower().replace("ё", "е"))
        if any(word.startswith(stem) for word in words for stem in stems):
            return True
    return False
