"""The user's answer in words to the bot's question "when?" about a reminder it could not place: `read_answer`.

When the bot asks which time (a bare hour's two halves, or times offered because no one could tell), the user
may press a button or write. A written answer sets the reminder only when it is nothing but a time the rules read
with certainty ("в 7 вечера", "давай завтра в 9", "tomorrow 10am"), or only the half of the day that picks one of
the two times asked about ("вечера", "утром", "pm"). Anything else is no answer: the caller drops the question,
and the message is read as any other (a new request, or talk); a time is never guessed from it.
"""

from __future__ import annotations

import re
from datetime import datetime

from memory.reminders.spans import cut
from memory.reminders.times import read_timing

MAX_ANSWER = 60  # characters: a longer message is no answer to "when?"
# The words that may stand around the time in an answer: "давай", "лучше", "ну", "тогда", "let's", "make it".
ANSWER_WORDS = re.compile(
    r"^(?:[\s,.!:;)(—–-]|(?:давай(?:те)?|лучше|ну|тогда|да|ок|окей|пожалуйста|плиз|пж|наверное|можно|поставь|"
    r"на|в|во|let'?s|do|make|it|say|ok|okay|yes|please|pls|then|maybe|set|for|at|on|um|hmm|ммм?|эм|хм)"
    r"(?=[\s,.!:;)(—–-]|$))*$", re.IGNORECASE)
MORNING = re.compile(r"^\W*(?:утра|утром|с\s+утра|утречком|a\.?m\.?|in\s+the\s+morning|morning)\W*$", re.IGNORECASE)
EVENING = re.compile(r"^\W*(?:вечера|вечером|дня|дн[её]м|p\.?m\.?|in\s+the\s+(?:evening|afternoon)|evening|"
                     r"afternoon|tonight)\W*$", re.IGNORECASE)


def read_answer(words: str, choices: tuple[datetime, ...], now: datetime) -> datetime | None:
    """Return the time `words` answer with (aware, ahead of `now`), or None when they are no certain answer.

    `choices` are the times the question offered; `now` is aware, in the reminder's zone.
    """
    words = words.strip()
    if not words or len(words) > MAX_ANSWER:
        return None
    stripped = ANSWER_WORDS.sub("", words) if ANSWER_WORDS.match(words) else words
    halves = [at for at in choices if at > now]
    if MORNING.match(words) or EVENING.match(words):
        evening = bool(EVENING.match(words))
        picked = [at for at in halves if (at.hour >= 12) == evening]
        return picked[0] if len(picked) == 1 else None
    if not stripped:
        return None
    timing = read_timing(words, now)
    if timing.kind != "at" or len(timing.options) != 1:
        return None
    if not ANSWER_WORDS.match(cut(words, timing.spans, 0, len(words))):
        return None  # words besides the time: something else is said, not only when
    at, repeat = timing.options[0]
    return at if repeat is None and at > now else None
