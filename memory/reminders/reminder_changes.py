"""Cancelling and moving a reminder: "отмени напоминание про маму", "stop reminding me", "перенеси на 10".

Pure: the sentence comes with its quotes blanked and `now` in the user's zone. A cancel names what it cancels
("" for the last one); a move gives the parts the user said (kinds.MoveReminder works out the new time).
Decisions: a negation with nothing named ("не надо мне напоминать") is no cancel unless it says "больше",
"хватит", "stop", "anymore"; "don't remind me of him" is a feeling, not a cancel; "перенеси на час" is an hour
later, not 1 o'clock; a bare hour ("перенеси на 8") keeps both halves of the day for `moved` to choose from.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memory.reminders import reminder_patterns as p
from memory.reminders.kinds import CancelReminder, MoveReminder
from memory.reminders.spans import blank, clause_before, cut
from memory.reminders.time_words import find_clocks, number, parts_of_day
from memory.reminders.times import clock_meaning, read_timing
from memory.text.prefilter import first_match
from memory.time.dates import find_mentions


def cancel(sentence: str, now: datetime) -> CancelReminder | None:
    """Return the cancel that `sentence` asks for ("отмени напоминание про маму", "stop reminding me"), or None."""
    for pattern in (p.RU_CANCEL, p.EN_CANCEL):
        match = first_match(pattern, sentence)
        if match is None or not _ordered(sentence, match, pattern is p.EN_CANCEL):
            continue
        stop = match.group("stop")
        about = match.group("about2") if stop else match.group("about")
        before = "" if stop else match.group("before") if pattern is p.EN_CANCEL else ""
        about = _about(before) or _about(cut(about or "", read_timing(about or "", now).spans, 0, len(about or "")))
        if stop and not about and not re.search(r"больше|хватит|перестан|stop|no\s+more|anymore|again", sentence, re.I):
            return None  # "не надо мне напоминать": said of something, not a cancel
        if stop and pattern is p.EN_CANCEL and re.match(r"\s*of\b", match.group("about2") or "", re.I):
            return None  # "don't remind me of him": a feeling, not a reminder
        return CancelReminder(about)
    return None


def _about(words: str) -> str:
    """Return what a cancel names, trimmed: "про маму" → "маму"; "" for "it", "этом" and the like."""
    words = p.without_tail(p.CANCEL_ABOUT_LEAD.sub("", words.strip()), p.CANCEL_ABOUT_TAIL).strip()
    words = re.sub(r"\s+any\s+more$", "", words, flags=re.IGNORECASE)
    if re.fullmatch(r"(?:it|that|this|this\s+one|это|этом|этого|него|неё|нее|ней|нём|нем|последнее|them|all)?",
                    words, re.IGNORECASE):
        return ""
    return words


def move(sentence: str, now: datetime) -> MoveReminder | None:
    """Return the move that `sentence` asks for ("перенеси на 10", "move it to tomorrow"), or None."""
    for pattern in (p.RU_MOVE, p.EN_MOVE):
        match = first_match(pattern, sentence)
        if match is None or not _ordered(sentence, match, pattern is p.EN_MOVE):
            continue
        rest = match.group("rest")
        shift = p.SHIFT.match(rest)
        if shift:
            return _shift(shift)
        return _move_to(rest, now)
    return None


def _ordered(sentence: str, match: re.Match[str], english: bool) -> bool:
    """True when a cancel or a move is an order to the bot, not a question or a report."""
    left = clause_before(sentence, match.start())
    if english:
        return p.only_politeness(left)
    return not first_match(p.RU_NOT_ASKED_BEFORE, left) and not re.search(r"\b(?:как|можно\s+ли)\b", left, re.I)


def _shift(match: re.Match[str]) -> MoveReminder:
    """Return the move by a span: "на 10 минут позже", "by an hour"."""
    count_text = match.group("count")
    unit = match.group("unit").lower()
    count = _count(count_text) if count_text else 1
    minutes: float
    if unit.startswith(("пол", "half")):
        minutes = 30
    elif unit.startswith(("д", "day")):
        minutes = count * 24 * 60
    elif unit.startswith(("ч", "h")):
        minutes = count * 60
    else:
        minutes = count
    earlier = (match.group("way") or "").lower().startswith(("раньше", "пораньше", "earlier", "назад"))
    return MoveReminder(shift=timedelta(minutes=-minutes if earlier else minutes))


def _count(text: str) -> float:
    """Return the count "2", "1,5", "two", "an" names (1 when unknown)."""
    value = number(text)
    return value if value else 1


def _move_to(rest: str, now: datetime) -> MoveReminder | None:
    """Return the move to a day and/or clock said in `rest` ("на 10", "to 6pm", "на завтра"), or None."""
    rest = re.sub(r"^\s*(?:на|к)\s+(?=\d)", " в ", rest, flags=re.I)
    rest = re.sub(r"^\s*(?:to|till|until|for)\s+(?=\d)", " at ", rest, flags=re.I)
    clocks = find_clocks(rest)
    if len(clocks) > 1:
        return None
    blanked = blank(rest, tuple((clock.start, clock.end) for clock in clocks), 0)
    mentions = find_mentions(blanked, now)
    if any(not mention.usable or mention.clock for mention in mentions):
        return None
    days = {mention.day for mention in mentions if mention.day}
    if len(days) > 1:
        return None
    day = days.pop() if days else None
    if not clocks:
        return MoveReminder(day=day) if day else None
    meant = clock_meaning(clocks[0], _marker_near(rest))
    if meant is None:
        return None
    if isinstance(meant, str):  # "midnight"
        return MoveReminder(day=day, midnight=True)
    return MoveReminder(day=day, clocks=tuple(meant))


def _marker_near(text: str) -> str:
    """Return the one part of the day said in `text` ("вечером"), or ""."""
    markers = {part[2] for part in parts_of_day(text)}
    return markers.pop() if len(markers) == 1 else ""
