"""Pure descriptions of time for the prompt: time of day, season, how long since we talked."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from importlib import resources

NORTHERN_SEASONS = {
    12: "winter", 1: "winter", 2: "winter",
    3: "spring", 4: "spring", 5: "spring",
    6: "summer", 7: "summer", 8: "summer",
    9: "autumn", 10: "autumn", 11: "autumn",
}
OPPOSITE = {"winter": "summer", "summer": "winter", "spring": "autumn", "autumn": "spring"}


def time_of_day(hour: int) -> str:
    """Return 'morning', 'afternoon', 'evening' or 'night' for an hour 0–23."""
    if 5 <= hour < 12:
        return "morning"
    if 12 <= hour < 17:
        return "afternoon"
    if 17 <= hour < 22:
        return "evening"
    return "night"


def season(month: int, hemisphere: str = "north") -> str:
    """Return the meteorological season of a month in the given hemisphere."""
    name = NORTHERN_SEASONS[month]
    return OPPOSITE[name] if hemisphere == "south" else name


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def describe_gap(now: datetime, previous: datetime | None) -> str:
    """Return how long ago the previous message was, in words ('3 days ago'), or '' if never."""
    if previous is None:
        return ""
    seconds = (now - previous).total_seconds()
    if seconds < 60:
        return "less than a minute ago"
    minutes = int(seconds // 60)
    if minutes < 60:
        return _plural(minutes, "minute") + " ago"
    hours = minutes // 60
    if hours < 24:
        return _plural(hours, "hour") + " ago"
    days = (now.date() - previous.astimezone(now.tzinfo).date()).days
    if days <= 1:
        return "yesterday"
    if days < 14:
        return _plural(days, "day") + " ago"
    if days < 60:
        return _plural(days // 7, "week") + " ago"
    if days < 365:
        return _plural(days // 30, "month") + " ago"
    return _plural(days // 365, "year") + " ago"


def format_date(moment: datetime) -> str:
    """Return 'Sunday, 29 November 2026'."""
    return f"{moment:%A}, {moment.day} {moment:%B %Y}"


def format_when(when: str) -> str:
    """Return a dated fact's moment for people: 'Friday, 4 December 2026, 10:00' (or without the time)."""
    try:
        moment = datetime.fromisoformat(when)
    except ValueError:
        return when
    return format_date(moment) + (f", {moment:%H:%M}" if "T" in when else "")


@lru_cache(maxsize=None)
def _zone_latitudes() -> dict[str, float]:
    latitudes: dict[str, float] = {}
    for table in ("zone.tab", "zone1970.tab"):
        try:
            text = resources.files("tzdata").joinpath("zoneinfo", table).read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError):
            continue
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            columns = line.split("\t")
            coordinates, zone = columns[1], columns[2]
            # ISO 6709: ±DDMM or ±DDMMSS latitude, then longitude.
            sign = -1 if coordinates[0] == "-" else 1
            latitudes[zone] = sign * int(coordinates[1:3])
    return latitudes


def zone_hemisphere(zone: str) -> str:
    """Return 'south' for an IANA zone whose reference city lies south of the equator, else 'north'."""
    return "south" if _zone_latitudes().get(zone, 1) < 0 else "north"
