"""Pure rules of the user's own clock: their zone, the dates facts carry, and when a fact's follow-up or birthday
greeting falls due; `now` is always passed in. Whether and when it may be sent is the outreach policy's
(services/outreach_policy.py)."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Sequence, TypeGuard
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.facts import Fact
from memory.time.zones import zone_for_city

DAY_WINDOW = (10, 20)  # local hours for a follow-up on a date without a time, and for a birthday greeting
WHEN_PATTERN = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?")


def valid_zone(name: object) -> TypeGuard[str]:
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


def local_at(day: date, moment: time, zone: ZoneInfo) -> datetime:
    """Return `moment` on `day` on the clock of `zone`."""
    return datetime.combine(day, moment, tzinfo=zone)


def followup_due(when: str, zone: ZoneInfo, after_hours: float) -> datetime | None:
    """Return when to ask how an event went: `after_hours` after a date-time, or 10:00 the next day for a date."""
    parsed = parse_when(when)
    if parsed is None:
        return None
    day, moment = parsed
    if moment is None:
        return local_at(day + timedelta(days=1), time(DAY_WINDOW[0]), zone)
    return local_at(day, moment, zone) + timedelta(hours=after_hours)


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
            return local_at(day, time(DAY_WINDOW[0]), zone)
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
    happens = local_at(day, moment, zone) if moment else local_at(day + timedelta(days=1), time(0), zone)
    # An event already over when it is told ("I had an exam yesterday") needs no question.
    return due if happens > now else None
