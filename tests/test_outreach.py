"""The pure parts of writing first: what may be sent, and the messages the model is given."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from memory.due import DueItem
from memory.facts import Fact
from prompts.outreach_prompt import build_outreach_messages, write_first_tasks
from services.outreach import event_start, is_bare_greeting, usable_text

MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 12, 1, 13, 5, tzinfo=MOSCOW)


@pytest.mark.parametrize(
    "text",
    ["Hi!", "Hey there, how are you?", "Привет! Как дела?", "Здравствуй, дорогая!", "   ", "🙂", "Доброе утро!"],
)
def test_bare_greetings_are_not_sent(text):
    assert is_bare_greeting(text)
    assert usable_text(text) is None


@pytest.mark.parametrize(
    "text",
    ["Как там Мурка?", "Hi! How did the chemistry exam go?", "Привет! Как прошло собеседование в Яндексе?"],
)
def test_a_message_with_something_specific_is_sent(text):
    assert not is_bare_greeting(text)
    assert usable_text(f"  {text}\n") == text


@pytest.mark.parametrize("answer", ["SKIP", "skip", " SKIP. ", '"SKIP"', ""])
def test_skip_means_nothing_is_sent(answer):
    assert usable_text(answer) is None


def test_event_start_is_the_moment_or_the_days_midnight():
    assert event_start("2026-12-01T10:00", MOSCOW) == datetime(2026, 12, 1, 10, 0, tzinfo=MOSCOW)
    assert event_start("2026-12-01", MOSCOW) == datetime(2026, 12, 1, 0, 0, tzinfo=MOSCOW)
    assert event_start("soon", MOSCOW) is None


def test_every_kind_has_a_task_and_the_follow_up_may_answer_skip():
    tasks = write_first_tasks()
    assert set(tasks) == {"checkin", "followup", "birthday"}
    assert "SKIP" in tasks["followup"] and "SKIP" not in tasks["checkin"]
    assert "Never just a greeting" in tasks["checkin"]


def build(item: DueItem, history=(), facts=(), previous=None, budget=1500) -> list[dict]:
    return build_outreach_messages("You are a warm companion.", item, list(facts), list(history), NOW, MOSCOW,
                                   previous, budget)


def test_a_follow_up_names_the_event_as_quoted_data_with_its_time():
    item = DueItem("followup", 1, NOW, fact_id=5, fact_value='собеседование "в Яндексе"', when="2026-12-01T10:00",
                   language_code="ru")
    facts = [
        Fact("personal", "name", "Лена"),
        Fact("plans", "plan:interview", "собеседование", when="2026-12-01T10:00"),
    ]
    messages = build(item, [{"role": "user", "content": "Завтра в 10 собеседование"}], facts)
    system, session = messages
    assert system["role"] == "system" and 'Their name: "Лена"' in system["content"]
    assert "Tuesday, 1 December 2026, 10:00" in system["content"]  # the fact carries its date
    assert session == {"role": "user", "content": "Завтра в 10 собеседование"}
    task = system["content"].rpartition("\n\n")[2]  # the task ends the one system message
    assert task.startswith("They told you about this plan")
    assert '"собеседование \\"в Яндексе\\""' in task
    assert "Tuesday, 1 December 2026, 10:00" in task and '"ru"' in task


def test_a_check_in_says_how_long_they_have_been_silent_in_their_own_time():
    item = DueItem("checkin", 1, NOW)
    [system] = build(item, previous=NOW - timedelta(days=3, hours=1))
    task = system["content"].rpartition("\n\n")[2]
    assert "for 3 days" in task
    assert "13:05 (afternoon) in Europe/Moscow" in system["content"]
    assert "(their Telegram app" not in task  # no language known


def test_the_budget_drops_old_session_messages_not_the_task():
    history = [{"role": "user", "content": "x" * 4000} for _ in range(5)]
    messages = build(DueItem("birthday", 1, NOW, when="1990-12-01"), history, budget=2000)
    assert messages[0]["content"].rpartition("\n\n")[2].startswith("Today is their birthday")
    assert 1 <= len(messages) - 1 < 5
