"""Dates and times in Russian and English speech, resolved against the message's own local time.

Pure functions, no I/O: `now` is an aware datetime already in the user's zone, and what comes back is a
local ISO 8601 string, "2026-12-04" or "2026-12-04T10:00". Precision first: an expression that could mean
two different days, or none in particular, resolves to nothing rather than to a guess.

`find_when` and `resolve_when` answer for a text and for a whole expression. Underneath, `find_mentions`
gives every expression with its day and hour kept apart, and `when_of` joins those one sentence states in
different places ("завтра экзамен в 10"); memory/rules/events.py uses these two. The words and patterns
live in memory/time/date_patterns.py; this module decides what they mean.

Decisions, each one a guess avoided:
  - a weekday ("в пятницу", "on Friday") is the next one after today, never today; "this Friday" /
    "в эту пятницу" may be today; "next Friday" / "в следующую пятницу" is the Friday of next calendar
    week (weeks start on Monday), so on a Sunday "next Monday" is tomorrow;
  - "12-го", "12 числа", "on the 12th" are this month's 12th if it is still ahead (today counts), else the
    next month's; a day that month lacks moves on one month at most;
  - "12 декабря", "December 12", "12.12" are this year's if still ahead, else next year's, except a date
    passed less than REFERENCE_DAYS ago: said on 13 December, "12 декабря" is yesterday spoken of, not a
    plan eleven months away. A date with its year is taken as written and is nothing once past;
  - a bare hour without "утра/вечера/am/pm" is kept as written only from 9 to 12 (and 13-23, or written
    "07:30"): "в 3" and "at 7:15" may be morning or afternoon, so the hour is dropped, the day kept and
    the Mention marked `hour_dropped`; "в 2 ночи" is the next calendar day or not, so it resolves to nothing;
  - a time with no day is today's if still ahead, else nothing ("в 9 утра" said at 19:40);
  - past ("вчера", "last Friday", "3 days ago"), recurring ("every Friday", "по пятницам"), vague ("next week",
    "на выходных", "скоро", "в декабре") and ranges or alternatives ("с 12 по 15", "Friday or Saturday",
    "by Friday", "до пятницы") resolve to nothing, and they are found as such so that what is left of them
    ("Friday" in "last Friday") is not read as a date on its own.
"""

from __future__ import annotations

import bisect
import calendar
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from operator import itemgetter

from memory.text.prefilter import Shortlist
from memory.time import date_patterns as p

REFERENCE_DAYS = 31


@dataclass(frozen=True)
class Part:
    """One piece of a date expression: a day, an hour, a half of the day, a week, or something unusable."""

    start: int
    end: int
    kind: str  # "day", "weekday", "clock", "moment" (day and clock), "marker", "week", "void"
    day: date | None = None
    weekday: int | None = None
    mode: str = ""  # weekday: "" (after today), "this" (today or after), "next" (next calendar week)
    clock: tuple[int, int] | None = None
    marker: str = ""  # which half of the day, for a bare hour
    exact: bool = False  # an hour written with two digits ("07:30") or as "noon": no half to choose


@dataclass(frozen=True)
class Mention:
    """One date expression found in a text; `usable` is False for past, recurring, vague or ambiguous ones."""

    start: int
    end: int
    day: date | None
    clock: tuple[int, int] | None
    usable: bool
    hour_dropped: bool = False  # an hour was said that could not be placed ("завтра в 3"): only the day is kept

    def iso(self, now: datetime) -> str | None:
        """Return the mention as local ISO 8601, or None when it names no single moment from today on."""
        return when_of([self], now)


# ---- public API ---------------------------------------------------------------------------------------


def find_when(text: str, now: datetime) -> tuple[int, int, str] | None:
    """Return (start, end, iso) of the first date expression in `text` that resolves, or None.

    Unusable expressions (past, recurring, vague) are skipped, not mistaken for what is left of them.
    """
    for mention in find_mentions(text, now):
        iso = mention.iso(now)
        if iso:
            return mention.start, mention.end, iso
    return None


def resolve_when(expression: str, now: datetime) -> str | None:
    """Return the local ISO date or date-time that the whole of `expression` names, or None."""
    mentions = find_mentions(expression, now)
    covered = 0
    for mention in mentions:
        if expression[covered : mention.start].strip(" \t\n,.!;:—–-"):
            return None  # words that are no date: this is not a date expression
        covered = mention.end
    if not mentions or expression[covered:].strip(" \t\n,.!;:—–-"):
        return None
    return when_of(mentions, now)


def when_of(mentions: list[Mention], now: datetime) -> str | None:
    """Return the one moment that all `mentions` agree on as local ISO 8601, or None.

    They must all be usable, name at most one day and one time of day; a time with no day is today's
    when it is still ahead. A day before today is nothing.
    """
    if not mentions or not all(m.usable for m in mentions):
        return None
    days = {m.day for m in mentions if m.day}
    clocks = {m.clock for m in mentions if m.clock}
    if len(days) > 1 or len(clocks) > 1:
        return None
    clock = clocks.pop() if clocks else None
    if days:
        day = days.pop()
    elif clock and time(*clock) > now.time().replace(tzinfo=None):
        day = now.date()
    else:
        return None
    if day < now.date():
        return None
    return day.isoformat() if clock is None else f"{day.isoformat()}T{clock[0]:02d}:{clock[1]:02d}"


def find_mentions(text: str, now: datetime) -> list[Mention]:
    """Return every date expression in `text`, in order, resolved against `now` (usable or not)."""
    parts = _choose(list(_parts(text, now)))
    groups: list[list[Part]] = []
    for part in parts:
        if groups and p.GROUP_GAP.match(text[groups[-1][-1].end : part.start]):
            groups[-1].append(part)
        else:
            groups.append([part])
    mentions = []
    for index, group in enumerate(groups):
        start, end = group[0].start, group[-1].end
        point = not p.NOT_A_POINT_BEFORE.search(text[max(0, start - 20) : start])
        point = point and not p.NOT_A_POINT_AFTER.match(text[end : end + 12])
        mention = _mention(group, now.date(), start, end, usable=point and not _joined(text, groups, index))
        if mention:
            mentions.append(mention)
    return mentions


# ---- parts --------------------------------------------------------------------------------------------


def _parts(text: str, now: datetime) -> Iterator[Part]:
    """Yield every Part that any pattern finds in `text`, overlapping ones included."""
    for pattern, read in READERS.possible(text):
        for match in pattern.finditer(text):
            part = read(match, now)
            if part:
                yield part


# The readers: each returns the Part its pattern's match is (None when it is none), resolved against `now`.


def _ru_day(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "сегодня", "завтра", "послезавтра"."""
    word = match.group().lower()
    shift = 2 if word.startswith("послезавтра") else 1 if word.startswith("завтра") else 0
    return Part(match.start(), match.end(), "day", day=now.date() + timedelta(days=shift))


def _en_day(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "today", "tonight", "tomorrow", "the day after tomorrow"."""
    word = " ".join(match.group().lower().split())
    word = {"tonite": "tonight", "2nite": "tonight", "2day": "today"}.get(word, word)
    shift = 2 if "after" in word else 1 if word.startswith(("tom", "tm", "2m")) else 0
    marker = p.MARKERS.get(word.split()[-1], "") if word.startswith(("this", "tonight")) else ""
    return Part(match.start(), match.end(), "day", day=now.date() + timedelta(days=shift), marker=marker)


def _day_of_month_part(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "15-го", "on the 15th": this month's, or next month's once it has passed."""
    day = _day_of_month(int(match.group("day")), now.date())
    return Part(match.start(), match.end(), "day" if day else "void", day=day)


def _part_of_day(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "вечером", "in the morning"."""
    word = match.group().lower().split()[-1]
    return Part(match.start(), match.end(), "marker", marker=p.MARKERS.get(word, ""))


def _noon(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "в полдень", "at noon"."""
    return Part(match.start(), match.end(), "clock", clock=(12, 0), exact=True)


def _void(match: re.Match[str], now: datetime) -> Part:
    """Return a Part that is no date: it keeps the words from being read as part of one."""
    return Part(match.start(), match.end(), "void")


def _week(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "на этой неделе", "next week"."""
    return Part(match.start(), match.end(), "week", mode="this" if match.group("this") else "next")


def _choose(parts: list[Part]) -> list[Part]:
    """Return the longest parts that do not overlap, in text order (the earlier one wins a tie)."""
    starts: list[int] = []  # the chosen parts, kept in text order; they never overlap one another
    chosen: list[Part] = []
    for part in sorted(parts, key=lambda p: (p.start - p.end, p.start)):
        index = bisect.bisect_right(starts, part.start)
        before_ok = index == 0 or chosen[index - 1].end <= part.start
        after_ok = index == len(chosen) or part.end <= chosen[index].start
        if before_ok and after_ok:
            starts.insert(index, part.start)
            chosen.insert(index, part)
    return chosen


def _joined(text: str, groups: list[list[Part]], index: int) -> bool:
    """True when group `index` is one end of a range or a choice with a neighbouring group."""
    group = groups[index]
    if index and p.JOINED.match(text[groups[index - 1][-1].end : group[0].start]):
        return True
    return index + 1 < len(groups) and bool(p.JOINED.match(text[group[-1].end : groups[index + 1][0].start]))


def _weekday_part(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "в пятницу", "this Friday", "next Friday"; past and recurring ones are void."""
    mod = " ".join((match.group("mod") or "").lower().split())
    weekday = p.WEEKDAYS[match.group("weekday").lower()]
    if mod.startswith(("прошл", "позапрошл", "кажд", "last", "every", "each")):
        return Part(match.start(), match.end(), "void")
    mode = "next" if mod.startswith(("следующ", "next")) else "this" if mod else ""
    return Part(match.start(), match.end(), "weekday", weekday=weekday, mode=mode)


def _calendar_part(match: re.Match[str], now: datetime) -> Part | None:
    """Return the Part for "12 декабря", "December 12", "12.12.2026"; None when it is no date at all."""
    today = now.date()
    month_word = match.group("month")
    if month_word.isdigit():
        month = int(month_word)
    else:
        if month_word == "may" and match.re is p.EN_MONTH_DAY:
            return None  # "may 5 people come": the verb, not the month
        month = p.MONTHS[month_word.lower().rstrip(".")]
    day, year = int(match.group("day")), match.group("year")
    if year:
        full_year = int(year) + (2000 if len(year) == 2 else 0)
        found = _date(full_year, month, day)
        usable = found is not None and found >= today
        return Part(match.start(), match.end(), "day" if usable else "void", day=found if usable else None)
    found = _date(today.year, month, day)
    if found is None and not _date(2000, month, day):
        return Part(match.start(), match.end(), "void")  # "31 февраля"
    if found is not None and found >= today:
        return Part(match.start(), match.end(), "day", day=found)
    if found is not None and (today - found).days < REFERENCE_DAYS:
        return Part(match.start(), match.end(), "void")  # just passed: spoken of, not planned
    following = _date(today.year + 1, month, day)  # 29 February may wait for a leap year: that is too far
    return Part(match.start(), match.end(), "day" if following else "void", day=following)


def _day_of_month(day: int, today: date) -> date | None:
    """Return this month's `day` if still ahead, else next month's; None when neither has it."""
    year, month = today.year, today.month
    for _ in range(2):
        found = _date(year, month, day)
        if found and found >= today:
            return found
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def _relative_part(match: re.Match[str], now: datetime) -> Part:
    """Return the Part for "через неделю", "in 3 days", "через 2 часа"; vague counts are void."""
    today = now.date()
    count_word = (match.group("count") or match.groupdict().get("count2") or "").lower()
    unit = (match.group("unit") or match.groupdict().get("unit2") or "").lower()
    count_word = " ".join(count_word.split())
    if count_word and not count_word.isdigit() and count_word not in p.NUMBERS:
        return Part(match.start(), match.end(), "void")  # "через пару дней", "in a few days"
    count = int(count_word) if count_word.isdigit() else p.NUMBERS.get(count_word, 1)
    if unit.startswith(("дн", "день", "сут", "day")):
        if not count_word:
            return Part(match.start(), match.end(), "void")  # "через день" is also "every other day"
        return Part(match.start(), match.end(), "day", day=today + timedelta(days=count))
    if unit.startswith(("недел", "week")):
        return Part(match.start(), match.end(), "day", day=today + timedelta(weeks=count))
    if unit.startswith(("месяц", "month")):
        found = _add_months(today, count)
        return Part(match.start(), match.end(), "day" if found else "void", day=found)
    if unit.startswith(("час", "hour")):
        if count > 23:
            return Part(match.start(), match.end(), "void")
        moment = now + timedelta(hours=count)  # counted from now, not read off a clock
        return Part(match.start(), match.end(), "moment", day=moment.date(), clock=(moment.hour, moment.minute),
                    exact=True)
    return Part(match.start(), match.end(), "void")  # years: too far to be a plan's date


def _clock_part(match: re.Match[str], now: datetime) -> Part | None:
    """Return the Part for "в 10", "в 10:30 вечера", "at 3pm", "15:00"; None when the number is no hour."""
    groups = match.groupdict()
    hour_text, minute_text, sep = groups["hour"], groups.get("minute"), groups.get("sep")
    marker_text = (groups.get("marker") or "").lower().replace(".", "").replace(" ", "")
    if groups.get("prep") and groups["prep"].lower() == "на" and not (sep or marker_text or groups.get("unit")):
        return None  # "на 10": ten of something, unless it is plainly an hour
    hour, minute = int(hour_text), int(minute_text or 0)
    if sep == "." and minute <= 12 and 1 <= hour <= 31:
        return Part(match.start(), match.end(), "void")  # "в 12.12": noon past twelve or the 12th of December
    if hour > 23 or minute > 59:
        return None
    marker = p.MARKERS.get(marker_text, "")
    exact = len(hour_text) == 2 and hour_text.startswith("0") and bool(minute_text)
    return Part(match.start(), match.end(), "clock", clock=(hour, minute), marker=marker, exact=exact)


# ---- groups -------------------------------------------------------------------------------------------


def _mention(group: list[Part], today: date, start: int, end: int, usable: bool) -> Mention | None:
    """Return the Mention that a run of adjacent parts makes, or None when it names neither day nor time."""
    kinds = [part.kind for part in group]
    if "void" in kinds or not usable:
        return Mention(start, end, None, None, usable=False)
    markers = {part.marker for part in group if part.marker}
    weeks = [part for part in group if part.kind == "week"]
    days: set[date] = {part.day for part in group if part.kind == "day" and part.day}
    clocks = [part for part in group if part.kind in ("clock", "moment")]
    days |= {part.day for part in group if part.kind == "moment" and part.day}
    for part in group:
        if part.kind == "weekday":
            found = _weekday(part, today, weeks[0].mode if weeks else None)
            if found is None:
                return Mention(start, end, None, None, usable=False)
            days.add(found)
    if (weeks and not any(kind == "weekday" for kind in kinds)) or len(weeks) > 1:
        return Mention(start, end, None, None, usable=False)  # "next week" alone is no day
    if len(days) > 1 or len(clocks) > 1 or len(markers) > 1:
        return Mention(start, end, None, None, usable=False)
    if not clocks:
        return Mention(start, end, days.pop(), None, usable=True) if days else None
    clock_part = clocks[0]
    clock = _clock(clock_part, markers.pop() if markers else "")
    if isinstance(clock, str):  # "ambiguous"
        return Mention(start, end, None, None, usable=False)
    day = days.pop() if days else None
    if clock is None and day is None:
        return None  # "в 3": neither a day nor an hour one can trust
    return Mention(start, end, day, clock, usable=True, hour_dropped=clock is None)


def _weekday(part: Part, today: date, week: str | None) -> date | None:
    """Return the day a weekday Part names, given "this week"/"next week" said beside it, or None."""
    assert part.weekday is not None  # every weekday Part names its day
    ahead = (part.weekday - today.weekday()) % 7
    if week == "next" or part.mode == "next":
        if week == "this":
            return None
        return today - timedelta(days=today.weekday()) + timedelta(weeks=1, days=part.weekday)
    if week == "this":
        found = today - timedelta(days=today.weekday()) + timedelta(days=part.weekday)
        return found if found >= today else None
    if part.mode == "this":
        return today + timedelta(days=ahead)
    return today + timedelta(days=ahead or 7)


def _clock(part: Part, group_marker: str) -> tuple[int, int] | None | str:
    """Return (hour, minute) in 24 hours, None when the half of the day is unknown, or "ambiguous"."""
    assert part.clock is not None  # every clock and moment Part holds its hour
    hour, minute = part.clock
    marker = part.marker or group_marker
    if part.exact or hour >= 13:
        return "ambiguous" if marker == "morning" and hour >= 13 else (hour, minute)
    if hour == 0:
        return "ambiguous"  # midnight belongs to which day?
    if marker == "morning":
        return "ambiguous" if hour == 12 else (hour, minute)
    if marker == "pm":
        return (hour, minute) if hour == 12 else (hour + 12, minute)
    if marker == "day":
        return (hour, minute) if hour == 12 else (hour + 12, minute) if hour <= 6 else "ambiguous"
    if marker == "evening":
        return (hour + 12, minute) if 4 <= hour <= 11 else "ambiguous"
    if marker == "night":
        return (hour + 12, minute) if 9 <= hour <= 11 else "ambiguous"  # "в 2 ночи": which night?
    return (hour, minute) if 9 <= hour <= 12 else None  # "в 3" is 3:00 or 15:00: keep the day only


# ---- calendar -----------------------------------------------------------------------------------------


def _date(year: int, month: int, day: int) -> date | None:
    """Return the date, or None when that month has no such day."""
    if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]:
        return date(year, month, day)
    return None


def _add_months(day: date, months: int) -> date | None:
    """Return the same day `months` later, or None when that month is too short (31 January + 1 month)."""
    month = day.month - 1 + months
    return _date(day.year + month // 12, month % 12 + 1, day.day)


# (pattern, its reader: the Part a match is, or None when it is none), in the order their Parts are preferred when
# two of the same length start together; all asked about at once (memory/text/prefilter.py).
READERS = Shortlist([
    (p.RU_DAY, _ru_day),
    (p.EN_DAY, _en_day),
    (p.RU_WEEKDAY, _weekday_part), (p.EN_WEEKDAY, _weekday_part),
    *((pattern, _calendar_part) for pattern in (p.RU_DAY_MONTH, p.EN_DAY_MONTH, p.EN_MONTH_DAY, p.NUMERIC_DATE,
                                                p.ISO_DATE)),
    (p.RU_DAY_OF_MONTH, _day_of_month_part), (p.EN_DAY_OF_MONTH, _day_of_month_part),
    (p.RU_RELATIVE, _relative_part), (p.EN_RELATIVE, _relative_part),
    (p.RU_PART_OF_DAY, _part_of_day), (p.EN_PART_OF_DAY, _part_of_day),
    *((pattern, _clock_part) for pattern in (p.RU_CLOCK, p.EN_CLOCK, p.AMPM_CLOCK, p.BARE_CLOCK)),
    (p.NOON, _noon),
    (p.VOID, _void),
    (p.WEEK, _week),
], itemgetter(0))
