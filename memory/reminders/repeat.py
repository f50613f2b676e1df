"""A recurring reminder's rule: one line of text in the store ("week mon 08:00"), its next times, its words.

Every time is planned from the rule on the user's own wall clock, never from when the last one was delivered,
so nothing drifts. `local` makes the wall-clock time real in a zone: a time that a DST change skips moves on to
the first minute that exists, and a time it repeats is taken the first time round. "hour/N" is the exception:
it counts real hours, so that a change of the clocks neither doubles nor skips one.

The rules, as docs/reminders.md writes them:

    day 21:00            every day               weekdays 07:30      Monday to Friday
    day/2 21:00          every second day        week mon 08:00      every Monday
    week/2 fri 09:00     every second Friday     week mon,thu 08:00  Mondays and Thursdays
    month 5 12:00        the 5th of every month (a month without it: its last day)
    hour/2               every 2 hours from the first time

"day/2", "week/2" and "month/2" count from the occurrence before: `next_after(previous)` is `previous` plus the
period, so the first occurrence is the anchor and the store needs nothing but the rule and the last time.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

UNITS = ("day", "weekdays", "week", "month", "hour")
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_EVERY = 99  # "every 100 days" is a date, not a habit
RULE = re.compile(
    r"^(?P<unit>day|weekdays|week|month|hour)(?:/(?P<every>[1-9]\d?))?"
    r"(?: (?P<days>(?:mon|tue|wed|thu|fri|sat|sun)(?:,(?:mon|tue|wed|thu|fri|sat|sun))*))?"
    r"(?: (?P<day>[1-9]|[12]\d|3[01]))?"
    r"(?: (?P<hour>[01]\d|2[0-3]):(?P<minute>[0-5]\d))?$"
)

RU_WEEKDAYS = ("понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье")
RU_EVERY_WEEKDAY = ("каждый", "каждый", "каждую", "каждый", "каждую", "каждую", "каждое")
RU_SECOND_WEEKDAY = ("второй", "второй", "вторую", "второй", "вторую", "вторую", "второе")
RU_ON_WEEKDAYS = ("понедельникам", "вторникам", "средам", "четвергам", "пятницам", "субботам", "воскресеньям")
EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class Repeat:
    """How a reminder recurs: every `every` days, weeks (on `weekdays`), months (on `day`) or hours."""

    unit: str
    every: int = 1
    weekdays: tuple[int, ...] = field(default=())  # 0 = Monday; "week" only
    day: int | None = None  # day of the month; "month" only
    clock: tuple[int, int] | None = None  # (hour, minute); None only for "hour"

    @property
    def day_of_month(self) -> int:
        """Return the day of the month a "month" rule falls on: its `day`, which every month rule has."""
        if self.day is None:
            raise ValueError(f"a {self.unit!r} rule has no day of the month")
        return self.day

    def rule(self) -> str:
        """Return the rule as the store keeps it: "week/2 fri 09:00"."""
        words = [self.unit if self.every == 1 else f"{self.unit}/{self.every}"]
        if self.unit == "week":
            words.append(",".join(DAY_NAMES[weekday] for weekday in self.weekdays))
        if self.unit == "month":
            words.append(str(self.day))
        if self.clock is not None:
            words.append(f"{self.clock[0]:02d}:{self.clock[1]:02d}")
        return " ".join(words)

    @staticmethod
    def parse(text: str) -> Repeat | None:
        """Return the Repeat that a rule line states, or None for anything malformed."""
        match = RULE.match(text.strip()) if isinstance(text, str) else None
        if not match:
            return None
        unit, days, day = match["unit"], match["days"], match["day"]
        every = int(match["every"] or 1)
        clock = (int(match["hour"]), int(match["minute"])) if match["hour"] else None
        weekdays = tuple(DAY_NAMES.index(name) for name in days.split(",")) if days else ()
        if (unit == "week") != bool(weekdays) or (unit == "month") != bool(day):
            return None
        if (unit == "hour") == (clock is not None) or (unit == "weekdays" and every != 1):
            return None
        if list(weekdays) != sorted(set(weekdays)):
            return None  # one spelling per rule: days in order, each once
        repeat = Repeat(unit, every, weekdays, int(day) if day else None, clock)
        return repeat if repeat.rule() == text.strip() else None

    def too_often(self) -> bool:
        """True when the rule fires more than once an hour (no rule of these units does)."""
        return self.unit == "hour" and self.every < 1

    # ---- times ---------------------------------------------------------------------------------------

    def first_after(self, now: datetime) -> datetime:
        """Return the first time the rule allows strictly after `now`, in `now`'s zone (hour rules: now + N hours)."""
        zone = now.tzinfo
        if self.unit == "hour":
            return _add_real(now.replace(second=0, microsecond=0), timedelta(hours=self.every))
        day = now.date()
        for _ in range(32 * 12):  # a month rule finds its day within a month; the bound is only a guard
            if self._allows(day):
                moment = local(day, self.clock, zone)
                if moment > now:
                    return moment
            day += timedelta(days=1)
        raise ValueError(f"no time after {now} for {self.rule()}")  # unreachable for a parsed rule

    def next_after(self, previous: datetime) -> datetime:
        """Return the occurrence after `previous` (itself one), counting the period from it."""
        zone = previous.tzinfo
        if self.unit == "hour":
            return _add_real(previous, timedelta(hours=self.every))
        start = previous.date()
        if self.unit == "day":
            return local(start + timedelta(days=self.every), self.clock, zone)
        if self.unit == "month":
            month = start.month - 1 + self.every
            return local(month_day(start.year + month // 12, month % 12 + 1, self.day_of_month), self.clock, zone)
        if self.unit == "week" and self.every > 1:
            monday = start - timedelta(days=start.weekday())
            later = [weekday for weekday in self.weekdays if weekday > start.weekday()]
            if later:
                return local(monday + timedelta(days=later[0]), self.clock, zone)
            return local(monday + timedelta(weeks=self.every, days=self.weekdays[0]), self.clock, zone)
        return self.first_after(previous)  # weekdays, weekly: the next day the rule allows

    def _allows(self, day: date) -> bool:
        """True when the rule has an occurrence on `day` (a month rule: on its day, or the month's last)."""
        if self.unit == "weekdays":
            return day.weekday() < 5
        if self.unit == "week":
            return day.weekday() in self.weekdays
        if self.unit == "month":
            return day == month_day(day.year, day.month, self.day_of_month)
        return True

    # ---- words ---------------------------------------------------------------------------------------

    def describe(self, language: str) -> str:
        """Return how the rule repeats in words: "каждый понедельник в 08:00", "every 2 weeks on Friday at 09:00"."""
        russian = language.lower().startswith("ru")
        phrase = _describe_ru(self) if russian else _describe_en(self)
        if self.clock is None:
            return phrase
        clock = f"{self.clock[0]:02d}:{self.clock[1]:02d}"
        return f"{phrase} в {clock}" if russian else f"{phrase} at {clock}"


def _describe_ru(repeat: Repeat) -> str:
    every, unit = repeat.every, repeat.unit
    if unit == "hour":
        return "каждый час" if every == 1 else f"каждые {every} {plural_ru(every, 'час', 'часа', 'часов')}"
    if unit == "day":
        return "каждый день" if every == 1 else f"каждые {every} {plural_ru(every, 'день', 'дня', 'дней')}"
    if unit == "weekdays":
        return "по будням"
    if unit == "month":
        months = "" if every == 1 else f"раз в {every} {plural_ru(every, 'месяц', 'месяца', 'месяцев')}, "
        return f"{months}{repeat.day}-го числа" if every > 1 else f"каждое {repeat.day}-е число"
    days = repeat.weekdays
    if len(days) == 1 and every == 1:
        return f"{RU_EVERY_WEEKDAY[days[0]]} {RU_WEEKDAYS[days[0]]}"
    if len(days) == 1 and every == 2:
        return f"{RU_EVERY_WEEKDAY[days[0]]} {RU_SECOND_WEEKDAY[days[0]]} {RU_WEEKDAYS[days[0]]}"
    listed = "по " + _join([RU_ON_WEEKDAYS[day] for day in days], "и")
    if len(days) == 1:
        listed = ("во " if days[0] == 1 else "в ") + RU_WEEKDAYS[days[0]]
    if every == 1:
        return listed
    return f"раз в {every} {plural_ru(every, 'неделю', 'недели', 'недель')} {listed}"


def _describe_en(repeat: Repeat) -> str:
    every, unit = repeat.every, repeat.unit
    if unit == "hour":
        return "every hour" if every == 1 else f"every {every} hours"
    if unit == "day":
        return "every day" if every == 1 else f"every {every} days"
    if unit == "weekdays":
        return "every weekday"
    if unit == "month":
        months = "every month" if every == 1 else f"every {every} months"
        return f"{months} on the {ordinal_en(repeat.day_of_month)}"
    names = _join([EN_WEEKDAYS[day] for day in repeat.weekdays], "and")
    return f"every {names}" if every == 1 else f"every {every} weeks on {names}"


def _join(words: list[str], conjunction: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def plural_ru(count: int, one: str, few: str, many: str) -> str:
    """Return the Russian noun form for `count`: 1 день, 2 дня, 5 дней, 21 день, 11 дней."""
    if count % 10 == 1 and count % 100 != 11:
        return one
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return few
    return many


def ordinal_en(number: int) -> str:
    """Return "1st", "2nd", "3rd", "11th", "22nd"."""
    suffix = "th" if 11 <= number % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


# ---- the wall clock ----------------------------------------------------------------------------------


def month_day(year: int, month: int, day: int) -> date:
    """Return `day` of that month, or the month's last day when it is shorter ("31" in April is the 30th)."""
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def local(day: date, clock: tuple[int, int] | None, zone) -> datetime:
    """Return the aware time that `clock` on `day` is in `zone`.

    A wall-clock time that a change to summer time skips moves on to the first minute that exists (02:30 on
    the morning Berlin springs forward is 03:00); one that the change back repeats is the first of the two.
    """
    hour, minute = clock or (0, 0)
    moment = datetime.combine(day, time(hour, minute), tzinfo=zone)
    if not isinstance(zone, ZoneInfo):
        return moment
    for _ in range(24 * 60):
        if _exists(moment):
            return moment
        moment += timedelta(minutes=1)  # wall-clock arithmetic: the next minute on the clock face
    return moment


def _exists(moment: datetime) -> bool:
    """True when the wall-clock time of `moment` is one the zone's clocks show (not skipped by a change)."""
    there_and_back = moment.astimezone(timezone.utc).astimezone(moment.tzinfo)
    return there_and_back.replace(tzinfo=None) == moment.replace(tzinfo=None)


def _add_real(moment: datetime, span: timedelta) -> datetime:
    """Return `moment` plus `span` of real time (not of the clock face), in `moment`'s zone."""
    return (moment.astimezone(timezone.utc) + span).astimezone(moment.tzinfo)
