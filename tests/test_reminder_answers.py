"""read_answer: the user's answer in words to the bot's "when?" about a reminder, and what is no answer."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from memory.reminders.typed_answers import read_answer

MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 12, 4, 10, 7, tzinfo=MOSCOW)
HALVES = (datetime(2026, 12, 4, 17, 0, tzinfo=MOSCOW), datetime(2026, 12, 5, 5, 0, tzinfo=MOSCOW))  # "в 5"


@pytest.mark.parametrize(
    ("words", "at"),
    [
        ("в 7 вечера", "2026-12-04T19:00"),
        ("давай завтра в 9:30", "2026-12-05T09:30"),
        ("ну давай в 18:30", "2026-12-04T18:30"),
        ("tomorrow 10am", "2026-12-05T10:00"),
        ("let's say 6pm", "2026-12-04T18:00"),
        ("через час", "2026-12-04T11:07"),
        ("вечера", "2026-12-04T17:00"),  # the half of the day picks one of the two asked about
        ("утром", "2026-12-05T05:00"),
        ("pm", "2026-12-04T17:00"),
    ],
)
def test_a_time_in_words_answers(words, at):
    assert read_answer(words, HALVES, NOW) == datetime.fromisoformat(at).replace(tzinfo=MOSCOW)


@pytest.mark.parametrize(
    "words",
    [
        "у меня в 15:00 встреча",  # a time, but something else is said
        "спасибо",
        "в 7",  # still a bare hour
        "каждый день в 9",  # a repeat is no answer to "when?"
        "вчера в 9",
        "не надо, забей",
        "ok",
        "а какая завтра погода будет? хочу в 9 выйти погулять с собакой, если не будет дождя",
    ],
)
def test_anything_else_is_no_answer(words):
    assert read_answer(words, HALVES, NOW) is None
