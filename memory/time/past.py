"""The day something already happened, from the words that tell it ("вчера", "this morning", "в субботу" said of
the past). Pure: `today` is the user's local date; a day the words do not pin down is None, never a guess.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory.text.prefilter import matches
from memory.time.date_patterns import WEEKDAYS

COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a": 1, "один": 1, "два": 2, "две": 2,
          "три": 3, "четыре": 4, "пять": 5, "шесть": 6}
PAST_DAY = re.compile(
    r"\b(?:(?P<today>сегодня|today|this\s+(?:morning|afternoon)|tonight)"
    r"|(?P<yesterday>вчера|yesterday|last\s+night)"
    r"|(?P<before>позавчера|(?:the\s+)?day\s+before\s+yesterday)"
    r"|(?P<count>\d{1,2}|" + "|".join(COUNTS) + r")\s+(?:days?\s+ago|(?:дня|дней|день)\s+назад)"
    r"|(?:on\s+|в\s+|во\s+)(?:прошл(?:ую|ый|ое)\s+|last\s+)?(?P<weekday>" + "|".join(WEEKDAYS) + r"))\b", re.IGNORECASE)


def past_day(text: str, today: date) -> str | None:
    """Return the local ISO date that `text` says something happened on ("вчера" -> the day before `today`),
    or None when it names no single past day ("на прошлой неделе", "last month", or no day at all)."""
    days = set()
    for match in matches(PAST_DAY, text):
        if match.group("today"):
            days.add(today)
        elif match.group("yesterday"):
            days.add(today - timedelta(days=1))
        elif match.group("before"):
            days.add(today - timedelta(days=2))
        elif match.group("count"):
            count = match.group("count").lower()
            days.add(today - timedelta(days=int(count) if count.isdigit() else COUNTS[count]))
        else:  # the last such weekday before today: "бабушка умерла в субботу", said on a Tuesday
            back = (today.weekday() - WEEKDAYS[match.group("weekday").lower()]) % 7 or 7
            days.add(today - timedelta(days=back))
    return days.pop().isoformat() if len(days) == 1 else None
