"""When a reminder request says to remind: the words for time in one sentence, resolved against `now`.

Pure, no I/O beyond the city-to-zone index that memory/time/zones.py reads. Days and dates come from
memory/time/dates.py (`find_mentions`); the other time words (clocks, parts of the day, minutes from now,
repeats, a zone) from memory/reminders/time_words.py. This module decides what they mean together: a bare
hour 1-8 is asked about, a clock already past today is tomorrow's, midnight ends the day.

Decisions (docs/reminders.md has the table):
  - a day with no time is 09:00; утром/morning 09:00, днём/в обед/afternoon 13:00, вечером/evening/tonight
    19:00, ночью/at night 23:00; a part of the day with a bare hour tells its half ("вечером в 7" is 19:00);
  - "7:30", minutes in digits, is as written; a bare hour 1-8 ("в 7", "at 7", "в полвосьмого") is asked about;
    "в 2 ночи" is the next 02:00, but "завтра в 2 ночи" (which night?) is unclear;
  - a clock with no day is today's if still ahead, else tomorrow's; a named day already past, or a named day
    whose time today has passed ("сегодня в 9" said at 10), is unclear, never moved on silently;
  - "в полночь", "midnight", "в 24:00", "в 12 ночи" are 00:00 at the end of the named day (or of today);
    "в 00:00" is that clock, the next one to come;
  - "через 20 минут", "in 2 hours", "через полчаса", "через 30 секунд" are now plus that, in real time, to the
    second; "через 3
    дня", "in 2 weeks" keep now's clock on that day unless a clock is said; "через 0 минут" is unclear;
  - "31-го" follows memory/time/dates.py: this month's 31st if ahead, else the next month's if it has one,
    else nothing (unclear); a repeat "каждое 31-е число" fires on the last day of a shorter month;
  - more than ten years ahead is unclear, and so is a vague time ("позже", "после работы", "до пятницы", "за
    час до встречи") unless a clock or "через…" names the time: then those words are the task's; "на следующей
    неделе", "в выходные", two days or two clocks are unclear;
  - of two days, one said with "на"/"for" after another ("в воскресенье … форму на понедельник") is the task's;
  - a repeat takes its weekday or day of the month from a day said beside it ("каждую неделю в пятницу"),
    is unclear without one ("каждую неделю"), and an hourly one may start at a clock ("начиная с 11");
  - time words left that the rules did not read (a number or unit right after a time they read, "that day",
    "минут за 15", "на новый год") make the request unclear: a reminder is set only when all its time was read;
  - "в 23 50" and "at 6 30 pm" are clocks; a list of short weekdays ("mon wed fri") is a weekly repeat;
  - a zone named with a clock ("в 9 по Москве", "9am London time", "15:00 UTC") resolves the day and clock
    on that zone's calendar, then gives the moment in the user's zone; a repeat keeps the user's wall clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from memory.reminders import reminder_patterns as p
from memory.reminders.repeat import Repeat, local
from memory.reminders.spans import Span, blank
from memory.reminders.time_words import (
    Clock,
    RepeatWords,
    described_repeats,
    find_time_words,
    holidays,
    short_weekdays,
)
from memory.time import date_patterns as dp
from memory.time.dates import Mention, find_mentions

DEFAULT_CLOCK = (9, 0)
PART_CLOCKS = {"morning": (9, 0), "day": (13, 0), "lunch": (13, 0), "evening": (19, 0), "night": (23, 0)}
MAX_AHEAD = timedelta(days=10 * 365 + 3)  # ten years, their leap days included: the farthest a reminder is set


@dataclass(frozen=True)
class Timing:
    """What the words of a sentence say about when.

    kind: "at" (one time, `options` holds it), "ask" (a bare hour: `options` holds morning and evening),
    "unclear" (time words that name no one time), "too_often" (a repeat more often than hourly) or "none".
    `spans` are where the time words are, so that the task can be read without them.
    """

    kind: str
    options: tuple[tuple[datetime, Repeat | None], ...] = ()
    spans: tuple[Span, ...] = ()


def read_timing(text: str, now: datetime) -> Timing:
    """Return what `text` (one sentence) says about when, resolved against `now` (aware, the user's zone)."""
    said = find_time_words(text)
    # Vague words ("после работы", "до пятницы", "позже") leave the time unclear unless a clock or "через…" names
    # it: then they belong to the task ("в 9 сдать отчёт до пятницы").
    vague = [] if said.clocks or said.relatives else said.vague
    if said.zone == "unknown":
        return Timing("unclear", spans=said.spans)
    reference = now.astimezone(ZoneInfo(said.zone)) if said.zone else now
    found = list(said.spans) + said.vague  # hidden from the date rules, which would take "by Friday" for a date
    short = short_weekdays(blank(text, found), reference)
    short += holidays(blank(text, found + [(m.start, m.end) for m in short]), reference)
    hidden = found + said.this_part + described_repeats(text) + [(m.start, m.end) for m in short]
    mentions = find_mentions(blank(text, hidden), reference) + short
    mentions += [Mention(start, end, reference.date(), None, usable=True) for start, end in said.this_part]
    mentions = _without_task_days(mentions, text)
    spans = tuple(sorted(said.spans + tuple(vague) + tuple((m.start, m.end) for m in mentions)))
    if any(r.unit == "too_often" for r in said.repeats):
        return Timing("too_often", spans=spans)
    if not (spans or said.this_part):
        return Timing("none")
    unclear = Timing("unclear", spans=spans)
    markers = {part[2] for part in said.parts}
    if vague or len(said.same_time) > 1 or len(said.clocks) > 1 or len(markers) > 1:
        return unclear
    if _unclear_words(text, [c for c in said.clocks if c not in said.starts], said.relatives, mentions, said.repeats):
        return unclear
    clock = said.clocks[0] if said.clocks else None
    marker = markers.pop() if markers else ""
    same_time = bool(said.same_time)
    if said.repeats:
        options = _repeating(said.repeats, clock, marker, same_time, mentions, reference, bool(said.starts))
    elif said.relatives:
        minutes = said.relatives[0][2]
        assert minutes is not None  # _unclear_words turned a vague "через …" down above
        options = _relative(minutes, clock or same_time or marker, mentions, now)
    else:
        options = _once(clock, marker, same_time, mentions, reference, text)
    if not options or _partly_read(text, spans, any(mention.day for mention in mentions)):
        return unclear
    options = tuple(_in_zone(option, now, said.zone) for option in options)
    if any(option is None or option[0] - now > MAX_AHEAD or option[0] <= now for option in options):
        return unclear
    return Timing("ask" if len(options) == 2 else "at", options, spans)


def _partly_read(text: str, spans: tuple[Span, ...], has_day: bool) -> bool:
    """True when time words are left that the rules did not read: more of a time right after one they read ("в 23
    50", "at 6 30 pm"), or a day they cannot place ("that day", "минут за 15", "new year's eve"). The rules then
    set nothing rather than a time nobody said: the request is unclear, and the model or the user says when."""
    starts = {start for start, _ in spans}
    for _, end in spans:
        after = p.LEFT_AFTER_TIME.match(text, end)
        if after and after.end() - len(after.group().lstrip()) not in starts:
            return True
    unread = p.UNREAD_TIME.finditer(blank(text, spans))
    return any(not _inside(found.start(), spans) and not (found["for"] and has_day) for found in unread)


def _inside(position: int, spans: tuple[Span, ...]) -> bool:
    """True when `position` falls within one of `spans`."""
    return any(start <= position < end for start, end in spans)


def _unclear_words(text, clocks, relatives, mentions, repeats) -> bool:
    """True when the time words cannot name one time: vague, a range or deadline, relative to an event."""
    if any(not mention.usable for mention in mentions) or any(r[2] is None or r[2] <= 0 for r in relatives):
        return True
    if any(r.unit == "vague" for r in repeats) or len(clocks) > 1 or len(relatives) > 1:
        return True
    if any(p.NOT_A_POINT_BEFORE.search(text[max(0, c.start - 12) : c.start]) for c in clocks):
        return True
    ends = [clock.end for clock in clocks] + [relative[1] for relative in relatives]
    return any(dp.NOT_A_POINT_AFTER.match(text[end : end + 12]) for end in ends)  # "в 7-8", "через час-полтора"


def clock_meaning(clock: Clock, marker: str) -> list[tuple[int, int]] | str | None:
    """Return the clock as [(hour, minute)] or, for a bare hour 1-8, [morning, evening]; "midnight"; or None."""
    hour, minute = clock.hour, clock.minute
    marker = clock.marker or marker
    if clock.midnight:
        return "midnight"
    if clock.exact or hour >= 13:
        return None if marker in ("morning", "am") and hour >= 13 else [(hour, minute)]
    if marker == "am":
        return [(0, minute)] if hour == 12 else [(hour, minute)]
    if marker == "morning":
        return [(hour, minute)] if hour <= 11 else None
    if marker == "pm":
        return [(hour if hour == 12 else hour + 12, minute)]
    if marker in ("day", "lunch"):
        return [(12, minute)] if hour == 12 else [(hour + 12, minute)] if hour <= 6 else None
    if marker == "evening":
        return [(hour + 12, minute)] if 4 <= hour <= 11 else None
    if marker == "night":
        if hour == 12 and not minute:
            return "midnight"
        return [(hour + 12, minute)] if 9 <= hour <= 11 else [(hour, minute)] if hour <= 5 else None
    if 9 <= hour <= 12 or clock.written:
        return [(hour, minute)]
    return [(hour, minute), (hour + 12, minute)]  # "в 7": morning or evening, the user is asked


def _clocks_meant(clock: Clock | None, marker: str, same_time: bool, now: datetime, default: tuple[int, int] | None):
    """Return the clocks a sentence means ([one] or [morning, evening]), "midnight", None (unclear) or []."""
    if clock is not None:
        return clock_meaning(clock, marker)
    if same_time:
        return [(now.hour, now.minute)]
    if marker:
        return [PART_CLOCKS[marker]]
    return [default] if default else []


def _once(clock, marker, same_time, mentions: list[Mention], now: datetime, text: str):
    """Return the options of a one-off reminder, or None when unclear."""
    days = sorted({mention.day for mention in mentions if mention.day})
    moments = {(mention.day, mention.clock) for mention in mentions if mention.clock}
    if len(days) > 1 or len(moments) > 1 or (moments and (clock or same_time or marker)):
        return None
    if moments:
        day, hm = moments.pop()
        assert day is not None  # the clocks were hidden from the date rules: a mention with a clock has its day
        return [(local(day, hm, now.tzinfo), None)]
    day = days[0] if days else None
    relative_day = any(mention.day and p.RELATIVE_DAY.search(text[mention.start : mention.end])
                       for mention in mentions)
    default = (now.hour, now.minute) if relative_day else DEFAULT_CLOCK if day else None
    meant = _clocks_meant(clock, marker, same_time, now, default)
    if meant is None or meant == []:
        return None
    if day and clock and (clock.marker or marker) == "night" and meant != "midnight" and meant[0][0] <= 5:
        return None  # "завтра в 2 ночи": the night before tomorrow or after it
    if meant == "midnight":
        return [(local((day or now.date()) + timedelta(days=1), (0, 0), now.tzinfo), None)]
    options = []
    for hm in meant:
        moment = local(day or now.date(), hm, now.tzinfo)
        if moment <= now:
            if day is not None:
                return None  # a day said, its time gone: which was meant is for the user to say
            moment = local(now.date() + timedelta(days=1), hm, now.tzinfo)
        options.append((moment, None))
    return options


def _relative(minutes: float, other, mentions: list[Mention], now: datetime):
    """Return the option of "через 20 минут": now plus that in real time, to the second; None when unclear.

    The seconds are kept: "через 1 минуту" said at 10:07:32 is due at 10:08:32, not at 10:08 (28 s early).
    """
    moment = (now.astimezone(timezone.utc) + timedelta(minutes=minutes)).astimezone(now.tzinfo)
    if other or any(mention.day not in (None, moment.date()) or mention.clock for mention in mentions):
        return None  # "через 2 часа в 5": two times, one too many
    return [(moment, None)]


def _repeating(repeats: list[RepeatWords], clock, marker, same_time, mentions: list[Mention], now: datetime,
               starting: bool = False):
    """Return the options of a repeating reminder (one rule, or two when the hour is bare), or None.

    A clock said as the start ("каждые 3 часа начиная с 11") is the first time of an hourly rule.
    """
    rule = _merged(repeats)
    if rule is None or any(mention.clock for mention in mentions):
        return None
    if rule.marker and marker and rule.marker != marker:
        return None
    marker = marker or rule.marker
    days = sorted({mention.day for mention in mentions if mention.day})
    if rule.unit == "hour":
        repeat = Repeat("hour", rule.every)
        if not (clock or marker or same_time or days):
            return [(repeat.first_after(now), repeat)]
        if not starting or len(days) > 1:
            return None
        firsts = _once(clock, marker, same_time, mentions, now, "")
        return [(first, repeat) for first, _ in firsts] if firsts else None
    if rule.unit == "week" and not rule.weekdays:
        if not days:
            return None
        rule, days = replace(rule, weekdays=tuple(sorted({day.weekday() for day in days}))), []
    if rule.unit == "month" and rule.day is None:
        if len(days) != 1:
            return None
        rule, days = replace(rule, day=days[0].day), []
    if len(days) > 1 or (rule.unit == "weekdays" and rule.every != 1):
        return None
    meant = _clocks_meant(clock, marker, same_time, now, DEFAULT_CLOCK)
    if meant is None:
        return None
    meant = [(0, 0)] if meant == "midnight" else meant
    start = now
    if days:
        start = max(now, local(days[0], (0, 0), now.tzinfo) - timedelta(minutes=1))
    options = []
    for hm in meant:
        repeat = Repeat(rule.unit, rule.every, rule.weekdays, rule.day, hm)
        options.append((repeat.first_after(start), repeat))
    return options


def _without_task_days(mentions: list[Mention], text: str) -> list[Mention]:
    """Return the mentions less a day said as part of the task ("подготовить форму на понедельник", "for Monday")
    when another day is the reminder's."""
    days = [mention for mention in mentions if mention.day]
    if len(days) < 2:
        return mentions
    for_task = [m for m in days if re.match(r"(?:на|for)\s", text[m.start : m.end], re.IGNORECASE)]
    if len(for_task) == len(days) - 1:
        return [mention for mention in mentions if mention not in for_task]
    return mentions


def _merged(repeats: list[RepeatWords]) -> RepeatWords | None:
    """Return one repeat from the several a sentence says ("раз в две недели по пятницам"), or None."""
    rule = repeats[0]
    for other in repeats[1:]:
        units = {rule.unit, other.unit}
        every = max(rule.every, other.every)
        marker = rule.marker or other.marker
        if rule.marker and other.marker and rule.marker != other.marker:
            return None
        weekdays = rule.weekdays or other.weekdays
        if rule.weekdays and other.weekdays and rule.weekdays != other.weekdays:
            return None
        if units == {"week"} or units == {"week", "day"} and weekdays and every == 1:
            rule = RepeatWords(rule.start, other.end, "week", every, weekdays, marker=marker)
        elif units == {"weekdays", "day"} and every == 1:
            rule = RepeatWords(rule.start, other.end, "weekdays", marker=marker)
        elif units == {"day"} and min(rule.every, other.every) == 1:
            rule = RepeatWords(rule.start, other.end, "day", every, marker=marker)
        elif units == {"month"} and not (rule.day and other.day and rule.day != other.day):
            rule = RepeatWords(rule.start, other.end, "month", every, day=rule.day or other.day)
        else:
            return None
    return rule


def _in_zone(option, now: datetime, zone: str | None):
    """Return the option in the user's zone: the moment moved there, a repeat's wall clock with it."""
    moment, repeat = option
    if not zone:
        return option
    mine = moment.astimezone(now.tzinfo)
    if repeat is None:
        return mine, None
    shift = (mine.date() - moment.date()).days
    clock = None if repeat.clock is None else (mine.hour, mine.minute)
    if repeat.unit == "month" and shift:
        return None
    if repeat.unit == "weekdays" and shift:
        repeat = replace(repeat, unit="week", weekdays=tuple(range(5)))
    weekdays = tuple(sorted((day + shift) % 7 for day in repeat.weekdays))
    return mine, replace(repeat, weekdays=weekdays, clock=clock)
