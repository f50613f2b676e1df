"""The time words of a reminder request, found but not yet resolved: clocks, parts of the day, minutes and hours
from now, repeats, and a zone named with a clock.

memory/reminders/times.py decides what they mean together; days and dates are memory/time/dates.py's. A clock
keeps what was said of it (the hour as written, "утра"/"pm", whether minutes were written), because whether
"в 7" is asked about depends on the other words of the sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.reminders import reminder_patterns as p
from memory.reminders.spans import Span, longest, overlaps
from memory.text.prefilter import matches
from memory.time import date_patterns as dp
from memory.time.dates import Mention
from memory.time.zones import parse_zone, zone_for_city

# The clock patterns whose matches have "hour", and maybe "minute", "sep", "marker", "prep" and "unit".
NUMERIC_CLOCKS = (dp.RU_CLOCK, dp.EN_CLOCK, dp.AMPM_CLOCK, dp.BARE_CLOCK, p.RU_WORD_CLOCK, p.EN_WORD_CLOCK,
                  p.AT_SIGN_CLOCK, p.SPACED_CLOCK)


@dataclass(frozen=True)
class Clock:
    """A time of day as said: the hour as written, its half of the day if told, whether it is unambiguous."""

    start: int
    end: int
    hour: int
    minute: int = 0
    marker: str = ""  # "morning", "day", "evening", "night", "pm", "am", "lunch"
    exact: bool = False  # "07:30", "19", "noon": no half of the day to choose
    written: bool = False  # minutes in digits ("7:30"): as written unless a half of the day is said
    midnight: bool = False  # the end of the day: "в полночь", "в 24:00"


@dataclass(frozen=True)
class RepeatWords:
    """A repeat as said: its unit and period, and what it names of the days or the time of day."""

    start: int
    end: int
    unit: str  # "day", "weekdays", "week", "month", "hour", "too_often", "vague"
    every: int = 1
    weekdays: tuple[int, ...] = ()
    day: int | None = None
    marker: str = ""


@dataclass(frozen=True)
class Said:
    """The time words of a sentence other than its days, found but not yet resolved."""

    repeats: list[RepeatWords]
    clocks: list[Clock]
    starts: list[Clock]  # clocks said as where a repeat starts ("начиная с 11")
    relatives: list[tuple[int, int, float | None]]  # (start, end, minutes from now; seconds as a fraction)
    parts: list[tuple[int, int, str]]  # parts of the day said alone: (start, end, marker)
    same_time: list[Span]
    vague: list[Span]  # "позже", "до пятницы", "за час до встречи"
    zone: str | None
    this_part: list[Span]  # "this afternoon": today
    spans: tuple[Span, ...]  # where all but the vague ones are: hidden from the date rules, cut from the task


def find_time_words(text: str) -> Said:
    """Return the time words of `text` that the date rules do not read, or read otherwise than a reminder needs."""
    repeats = find_repeats(text)
    taken = [(r.start, r.end) for r in repeats]  # "раз в три дня" is no "в три дня" (15:00)
    clocks = [clock for clock in find_clocks(text) if not overlaps((clock.start, clock.end), taken)]
    starts: list[Clock] = []
    start_spans: list[Span] = []
    if repeats:
        clocks += [_start_clock(m) for m in matches(p.START_CLOCK, text) if not overlaps(m.span(), taken)]
        clocks = longest(clocks)
        for clock in clocks:
            before = p.START_BEFORE.search(text[max(0, clock.start - 16) : clock.start])
            if before:
                starts.append(clock)
                start_spans.append((max(0, clock.start - 16) + before.start(), clock.start))
    zone, zone_spans = _named_zone(text, clocks)
    relatives = [r for r in _relatives(text) if not overlaps(r[:2], taken)]
    parts = [part for part in parts_of_day(text) if not overlaps(part[:2], [(c.start, c.end) for c in clocks])]
    same_time = [(m.start(), m.end()) for m in matches(p.SAME_TIME, text)]
    vague = [(m.start(), m.end()) for m in matches(p.UNCLEAR_TIME, text)]
    this_part = [(m.start(), m.end()) for m in matches(p.THIS_PART, text)]
    spans = [_around(text, c.start, c.end) for c in clocks] + [r[:2] for r in relatives] + taken + zone_spans
    spans += same_time + start_spans + [part[:2] for part in parts]
    return Said(repeats, clocks, starts, relatives, parts, same_time, vague, zone, this_part, tuple(sorted(spans)))


def find_clocks(text: str) -> list[Clock]:
    """Return the times of day said in `text`, in order, none overlapping another (the longest wins)."""
    found = []
    for pattern in NUMERIC_CLOCKS:
        for match in matches(pattern, text):
            clock = _numeric_clock(match, text)
            if clock:
                found.append(clock)
    for match in matches(p.RU_HALF_CLOCK, text):
        hour = p.RU_GENITIVE_HOURS[match["hour"].lower()] - 1 or 12
        found.append(Clock(match.start(), match.end(), hour, 30, _marker(match["marker"])))
    for match in matches(p.RU_PAST_CLOCK, text):
        minute = 15 if match["quarter"] else number(match["minute"])
        if isinstance(minute, int) and 1 <= minute <= 59:
            hour = p.RU_GENITIVE_HOURS[match["hour"].lower()] - 1 or 12
            found.append(Clock(match.start(), match.end(), hour, minute, _marker(match["marker"])))
    for match in matches(p.RU_TO_CLOCK, text):
        said = 1 if match["hour"].lower() == "час" else number(match["hour"])
        words = " ".join((match["minute"] or "").lower().split())
        before = 15 if match["quarter"] else p.RU_TO_MINUTES.get(words) or number(words)
        if isinstance(said, int) and 1 <= said <= 12 and isinstance(before, int) and 1 <= before <= 30:
            found.append(Clock(match.start(), match.end(), said - 1 or 12, 60 - before, _marker(match["marker"])))
    for match in matches(p.EN_HALF_CLOCK, text):
        said = number(match["hour"])
        if not isinstance(said, int) or not 1 <= said <= 12:
            continue
        minute = 30 if match["part"].lower() == "half" else 15
        if match["way"].lower() == "to":
            said, minute = (said - 1 or 12), 60 - minute
        found.append(Clock(match.start(), match.end(), said, minute, _marker(match["marker"])))
    for pattern in (p.MIDNIGHT, p.END_OF_DAY):
        found += [Clock(m.start(), m.end(), 0, 0, exact=True, midnight=True) for m in matches(pattern, text)]
    found += [Clock(m.start(), m.end(), 12, 0, exact=True) for m in matches(p.NOON, text)]
    return longest(found)


def find_repeats(text: str) -> list[RepeatWords]:
    """Return the repeats said in `text` ("каждый понедельник", "every 2 hours"), none overlapping another."""
    found = []
    for pattern in (p.RU_REPEAT, p.EN_REPEAT):
        found += [_repeat_words(match) for match in matches(pattern, text) if not _describes(match, text)]
    for match in matches(p.WEEKDAY_LIST, text):
        days = _weekdays(match["weekdays"] or match["weekdays2"])
        if days:
            found.append(RepeatWords(match.start(), match.end(), "week", weekdays=days))
    for pattern in (p.RU_MONTH_DAY, p.EN_MONTH_DAY):
        for match in matches(pattern, text):
            day = int(next(value for value in match.groups() if value))
            found.append(RepeatWords(match.start(), match.end(), "month" if 1 <= day <= 31 else "vague", day=day))
    return longest(found)


def _numeric_clock(match: re.Match[str], text: str) -> Clock | None:
    """Return the Clock of a clock pattern's match, or None when the number is no hour."""
    groups = match.groupdict()
    hour_text, minute_text, sep = groups["hour"], groups.get("minute"), groups.get("sep")
    marker_text = groups.get("marker")
    if groups.get("prep") and groups["prep"].lower() == "на" and not (sep or marker_text or groups.get("unit")):
        if not re.search(r"(?:завтра|сегодня|послезавтра|[а-я]+у|напоминани[ея]|\d-го|числа)\s*$",
                         text[: match.start()], re.IGNORECASE):
            return None  # "на 10": ten of something, unless a day or the reminder stands before it
    if sep == "." and minute_text and int(minute_text) <= 12:
        return None  # "в 12.12": a date as much as a time; the date rules make it void
    hour = 1 if hour_text.lower() == "час" else number(hour_text)  # "в час дня" is 13:00
    minute = number(minute_text) if minute_text and not minute_text.lower().startswith("o") else 0
    if not isinstance(hour, int) or not isinstance(minute, int) or minute > 59 or hour > 24 or (hour == 24 and minute):
        return None
    if hour == 24:
        return Clock(match.start(), match.end(), 0, 0, exact=True, midnight=True)
    exact = hour_text.isdigit() and len(hour_text) == 2 and hour_text.startswith("0") and bool(minute_text)
    written = hour_text.isdigit() and minute_text is not None and minute_text.isdigit()
    return Clock(match.start(), match.end(), hour, minute, _marker(marker_text), exact or hour == 0, written=written)


def _start_clock(match: re.Match[str]) -> Clock:
    """Return the Clock of "начиная с 11", said where a repeat starts; the span leaves out "начиная с"."""
    hour, minute = int(match["hour"]), int(match["minute"] or 0)
    marker = _marker(match["marker"])
    return Clock(match.start("hour"), match.end(), hour, minute, marker, written=bool(match["minute"]))


def _marker(text: str | None) -> str:
    """Return the half of the day that "утра", "pm", "вечера" names, or ""."""
    word = (text or "").lower().replace(".", "").replace(" ", "")
    if word in ("pm", "am"):
        return word
    return dp.MARKERS.get(word, "")


def parts_of_day(text: str):
    """Yield (start, end, marker) for each part of the day said in `text` ("утром", "in the evening")."""
    for match in matches(p.PART_OF_DAY, text):
        word = match.group().lower()
        marker = next(marker for stem, marker in p.PART_MARKERS if stem in word)
        yield match.start(), match.end(), marker


def _relatives(text: str):
    """Yield (start, end, minutes) for each "через 20 минут" / "in 2 hours"; minutes is None when vague."""
    for pattern in (p.RU_RELATIVE, p.EN_RELATIVE):
        for match in matches(pattern, text):
            yield match.start(), match.end(), _minutes(match)


def _minutes(match: re.Match[str]) -> float | None:
    """Return how many minutes a relative time names (a fraction for seconds), or None when it names no number."""
    groups = match.groupdict()
    if groups.get("half"):
        return p.HALVES[" ".join(groups["half"].lower().split())]
    count_text = groups.get("count") or groups.get("count3")
    unit = (groups.get("unit") or groups.get("unit3") or "").lower()
    count = number(count_text) if count_text else 1
    if count is None:
        return None
    minutes = count * (60 if unit.startswith(("ч", "h")) else 1 / 60 if unit.startswith(("с", "s")) else 1)
    if groups.get("and_half"):
        minutes += 30
    if groups.get("count2"):
        extra = number(groups["count2"])
        if extra is None:
            return None
        minutes += extra
    return minutes


def number(text: str | None) -> float | int | None:
    """Return the number "25", "1,5", "двадцать пять" or "twenty-five" names, or None."""
    if not text:
        return None
    text = text.lower().strip()
    if re.fullmatch(r"\d+(?:[.,]\d+)?", text):
        value = float(text.replace(",", "."))
        return int(value) if value.is_integer() else value
    total = 0
    for word in re.split(r"[\s-]+", text):
        if word not in p.NUMBERS:
            return None
        total += p.NUMBERS[word]
    return total


def _describes(match: re.Match[str], text: str) -> bool:
    """True when a repeat word describes a thing ("the weekly update", "my daily pills"): no repeat is asked."""
    return bool(match["adverb"]) and bool(p.DETERMINER_BEFORE.search(text[: match.start()]))


def described_repeats(text: str) -> list[Span]:
    """Return where repeat words describe a thing, hidden from the date rules, which would take them for repeats."""
    return [(match.start(), match.end()) for pattern in (p.RU_REPEAT, p.EN_REPEAT)
            for match in matches(pattern, text) if _describes(match, text)]


def _repeat_words(match: re.Match[str]) -> RepeatWords:
    """Return the RepeatWords of a repeat pattern's match."""
    groups = {key: (value or "").lower() for key, value in match.groupdict().items()}
    start, end = match.start(), match.end()
    count_text = groups.get("count") or groups.get("count2") or ""
    every: float | int | None
    if re.match(r"(?:втор|second|other|2nd|2-?[а-я])", count_text):
        every = 2
    elif re.match(rf"(?:{p.VAGUE_COUNT})$", count_text):
        return RepeatWords(start, end, "vague")
    else:
        every = number(count_text) if count_text and count_text != "single" else 1
    if not isinstance(every, int) or not 1 <= every <= 99:
        return RepeatWords(start, end, "vague")
    what = " ".join((groups.get("what") or groups.get("what2") or "").split())
    if groups.get("weekdays"):
        return RepeatWords(start, end, "week", weekdays=_weekdays(groups["weekdays"]))
    if groups.get("weekdays_word"):
        return RepeatWords(start, end, "weekdays")
    if groups.get("weekend"):
        return RepeatWords(start, end, "week", weekdays=(5, 6))
    if groups.get("parts"):
        return RepeatWords(start, end, "day", marker=_part_marker(groups["parts"]))
    if groups.get("other_day"):
        return RepeatWords(start, end, "day", every=2)
    if groups.get("adverb"):
        adverb = groups["adverb"]
        unit = next(unit for stem, unit in _ADVERBS if adverb.startswith(stem))
        return RepeatWords(start, end, unit, every=2 if adverb.startswith(("bi", "fort")) else 1)
    return _repeat_of_word(what, every, start, end)


_ADVERBS = (("ежедн", "day"), ("ежечас", "hour"), ("еженед", "week"), ("ежемес", "month"), ("ежемин", "too_often"),
            ("daily", "day"), ("hourly", "hour"), ("weekly", "week"), ("monthly", "month"), ("biweekly", "week"),
            ("fortnightly", "week"))


def _repeat_of_word(what: str, every: int, start: int, end: int) -> RepeatWords:
    """Return the RepeatWords for "каждые 2 дня", "every Monday and Thursday", "каждый час"."""
    weekdays = _weekdays(what)
    if weekdays and not what.startswith(("week", "weekend", "будн", "рабоч", "выходн")):
        return RepeatWords(start, end, "week", every, weekdays)
    if what.startswith(("будн", "рабоч", "week day", "weekday", "work", "business")):
        return RepeatWords(start, end, "weekdays") if every == 1 else RepeatWords(start, end, "vague")
    if what.startswith(("выходн", "weekend")):
        return RepeatWords(start, end, "week", every, (5, 6))
    if what.startswith(("утр", "morning")):
        return RepeatWords(start, end, "day", every, marker="morning")
    if what.startswith(("вечер", "evening")):
        return RepeatWords(start, end, "day", every, marker="evening")
    if what.startswith(("ноч", "night")):
        return RepeatWords(start, end, "day", every, marker="night")
    if what.startswith("afternoon"):
        return RepeatWords(start, end, "day", every, marker="day")
    if what.startswith(("дн", "день", "сут", "day")):
        return RepeatWords(start, end, "day", every)
    if what.startswith(("недел", "week")):
        return RepeatWords(start, end, "week", every)
    if what.startswith("fortnight"):
        return RepeatWords(start, end, "week", 2 * every)
    if what.startswith(("месяц", "month")):
        return RepeatWords(start, end, "month", every)
    if what.startswith(("час", "hour")):
        return RepeatWords(start, end, "hour", every)
    if what.startswith(("минут", "min")):
        return RepeatWords(start, end, "hour", every // 60) if every % 60 == 0 else RepeatWords(
            start, end, "too_often")
    return RepeatWords(start, end, "too_often")  # seconds, half an hour


def _weekdays(words: str) -> tuple[int, ...]:
    """Return the weekdays named in `words`, in order of the week: "понедельникам и четвергам" → (0, 3)."""
    found = set()
    for word in re.findall(r"[a-zа-яё]+", words.lower()):
        for stem, weekday in p.WEEKDAY_STEMS:
            if word.startswith(stem) and not word.startswith(("week", "month", "sunday school")):
                found.add(weekday)
    return tuple(sorted(found))


def _part_marker(word: str) -> str:
    return next(marker for stem, marker in p.PART_MARKERS if stem in word)


def _named_zone(text: str, clocks: list[Clock]) -> tuple[str | None, list[Span]]:
    """Return the zone named with a clock ("в 9 по Москве") and where it is said; "unknown" when not found."""
    zones, spans = set(), []
    for clock in clocks:
        match = p.ZONE_AFTER_CLOCK.match(text[clock.end :])
        if match:
            zones.add(_zone_of(match))
            spans.append((clock.end + match.start(), clock.end + match.end()))
    for match in matches(p.ZONE_ANYWHERE, text):
        if not overlaps((match.start(), match.end()), spans):
            zones.add(_zone_of(match))
            spans.append((match.start(), match.end()))
    zones.discard("")
    if not zones:
        return None, spans
    return (zones.pop() if len(zones) == 1 else "unknown"), spans


def _zone_of(match: re.Match[str]) -> str:
    """Return the IANA zone a match of a zone pattern names, "" for the user's own, "unknown" when not found."""
    groups = match.groupdict()
    found: str | None = None
    if groups.get("adjective"):
        adjective = groups["adjective"].lower()
        if adjective in p.LOCAL_ADJECTIVES:
            return ""
        stem = adjective[:-3]  # "минскому" → "минск", "берлинскому" → "берлинск" → "берлин"
        found = p.ZONE_ADJECTIVES.get(adjective)
        for name in (stem, stem[:-2], stem[:-2] + "а"):
            if found:
                break
            found = zone_for_city(name) if len(name) >= 4 else None
    elif groups.get("abbreviation"):
        abbreviation, offset = groups["abbreviation"].lower(), (groups.get("offset") or "").replace(" ", "")
        found = parse_zone(abbreviation + offset) if offset else p.ZONE_ABBREVIATIONS.get(abbreviation)
    elif groups.get("city") or groups.get("city_en"):
        found = zone_for_city(groups.get("city") or groups["city_en"])
    if not found:
        return "unknown"
    try:
        ZoneInfo(found)
    except (ZoneInfoNotFoundError, ValueError):
        return "unknown"
    return found


def _around(text: str, start: int, end: int) -> Span:
    """Return the span of a clock with the words that only soften or stress it ("around 6pm", "ровно в 9")."""
    before = p.CLOCK_BEFORE.search(text[max(0, start - 16) : start])
    after = p.CLOCK_AFTER.match(text[end : end + 12])
    return (max(0, start - 16) + before.start() if before else start, end + after.end() if after else end)


def holidays(text: str, now: datetime) -> list[Mention]:
    """Return "new year's eve", "christmas", "в новогоднюю ночь" as mentions: the next such date from today."""
    found = []
    for match in matches(p.HOLIDAY, text):
        name = next(key for key, value in match.groupdict().items() if value)
        month, day = p.HOLIDAY_DATES[name]
        moment = date(now.year, month, day)
        if moment < now.date():
            moment = date(now.year + 1, month, day)
        found.append(Mention(match.start(), match.end(), moment, None, usable=True))
    return found


def short_weekdays(text: str, now: datetime) -> list[Mention]:
    """Return "on Wed", "next Fri", "в пт" as mentions: the next such day after today, or in next week after
    "next"/"следующий"."""
    found = []
    for match in [*matches(p.EN_SHORT_WEEKDAY, text), *matches(p.RU_SHORT_WEEKDAY, text)]:
        name = (match["day"] or match.groupdict().get("capital") or "").lower()
        weekday = next(day for stem, day in p.WEEKDAY_STEMS if name.startswith(stem))
        today = now.date()
        if re.search(r"\bnext\b|следующ", match.group(), re.IGNORECASE):
            day = today - timedelta(days=today.weekday()) + timedelta(weeks=1, days=weekday)
        else:
            day = today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
        found.append(Mention(match.start(), match.end(), day, None, usable=True))
    return found
