"""Delivering reminders (services/reminders.py's sweep) on the real store, SQLite and PostgreSQL: on time, late with a
note, skipped when too late, retried after a refusal, planned again from the rule, and once with two machines."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from config import Config
from memory.reminder import Reminder
from memory.reminders.kinds import SetReminder
from memory.store.memory_store import Store
from services.reminders import (
    Reminders,
    ReminderSettings,
    fallback_choices,
    matching,
    next_time,
    read_model_answer,
)

MOSCOW = ZoneInfo("Europe/Moscow")
T0 = datetime(2026, 12, 4, 10, 7, tzinfo=MOSCOW)
CONFIG = Config(telegram_token="1:x", openai_api_key="k", timezone="Europe/Moscow")


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Recorder:
    """Takes reminders as Telegram would, answering `outcome`, after `delay` seconds."""

    def __init__(self, outcome: str = "sent", delay: float = 0.0) -> None:
        self.sent: list[tuple[int, timedelta | None]] = []
        self.outcome = outcome
        self.delay = delay

    async def __call__(self, reminder: Reminder, late: timedelta | None) -> str:
        await asyncio.sleep(self.delay)
        if self.outcome == "sent":
            self.sent.append((reminder.id, late))
        return self.outcome


async def setting(store: Store, at: datetime, rule: str | None = None, user_id: int = 1, task="позвонить маме"):
    await store.users.meet_user(user_id, T0)
    made = await store.reminders.add_reminder(user_id, user_id, task, at, rule, "Europe/Moscow", T0)
    assert made is not None
    return made


def service(store: Store, clock: Clock, send) -> Reminders:
    repos = store
    return Reminders(repos.facts, repos.reminders, repos.users, model=None,  # type: ignore[arg-type]
                     config=CONFIG.subset(ReminderSettings), clock=clock, instructions="", send=send)


async def test_a_due_reminder_goes_once_and_a_later_one_waits(store):
    clock, send = Clock(T0), Recorder()
    reminders = service(store, clock, send)
    now_one = await setting(store, T0.replace(hour=11))
    await setting(store, T0.replace(hour=12), task="later")
    clock.now = T0.replace(hour=11)
    assert await reminders.sweep() == 1 and await reminders.sweep() == 0
    assert send.sent == [(now_one.id, None)]
    assert (await store.reminders.reminder(1, now_one.id)).state == "done"


async def test_late_by_minutes_says_so_and_too_late_is_skipped_and_told_once(store):
    clock, send = Clock(T0), Recorder()
    reminders = service(store, clock, send)
    late = await setting(store, T0.replace(hour=11))
    gone = await setting(store, T0 - timedelta(hours=13), task="полить цветы")
    clock.now = T0.replace(hour=11) + timedelta(minutes=25)
    await reminders.sweep()
    assert send.sent == [(late.id, timedelta(minutes=25))]
    assert (await reminders.for_turn(1, True))[1] == ["полить цветы"]
    assert (await reminders.for_turn(1, True))[1] == []
    assert (await store.reminders.reminder(1, gone.id)).state == "done"


async def test_a_refused_send_is_tried_again_and_a_blocked_chat_ends_it(store):
    clock, send = Clock(T0.replace(hour=11)), Recorder("failed")
    reminders = service(store, clock, send)
    made = await setting(store, T0.replace(hour=11))
    await reminders.sweep()
    send.outcome = "sent"
    await reminders.sweep()
    assert send.sent == []  # not before RETRY
    clock.now += timedelta(minutes=2)
    await reminders.sweep()
    assert [rid for rid, _ in send.sent] == [made.id]
    blocked = await setting(store, clock.now, user_id=2)
    send.outcome = "blocked"
    await reminders.sweep()
    assert (await store.reminders.reminder(2, blocked.id)).state == "done"


async def test_the_timer_is_told_of_every_time_a_sweep_must_come_by(store):
    clock, send = Clock(T0.replace(hour=11)), Recorder("failed")
    reminders = service(store, clock, send)
    woken: list[datetime] = []
    reminders.wake_with(woken.append)
    await setting(store, clock.now)
    await reminders.sweep()
    assert woken == [clock.now + timedelta(minutes=1)]  # Telegram refused it: tried again after RETRY
    pending = await store.reminders.add_reminder(1, 1, "купить хлеб", T0, None, "Europe/Moscow", T0, state="pending")
    chosen = await reminders.choose(1, pending.id, clock.now + timedelta(hours=2))
    moved = await reminders.shift(1, chosen.id, timedelta(minutes=10))
    snoozed = await reminders.snooze(1, chosen.id, timedelta(hours=1))
    assert woken[1:] == [chosen.due_at, moved.due_at, snoozed.due_at]
    assert await reminders.next_due() == clock.now + timedelta(hours=1)  # the snooze; the refused one is held


async def test_a_recurring_one_steps_by_its_rule_over_an_outage(store):
    clock, send = Clock(T0), Recorder()
    reminders = service(store, clock, send)
    made = await setting(store, datetime(2026, 12, 4, 21, 0, tzinfo=MOSCOW), rule="day 21:00")
    clock.now = datetime(2026, 12, 7, 8, 0, tzinfo=MOSCOW)  # down for two and a half days
    await reminders.sweep()
    again = await store.reminders.reminder(1, made.id)
    assert send.sent == [] and again.state == "active"
    assert again.due_at == datetime(2026, 12, 7, 21, 0, tzinfo=MOSCOW)
    assert (await reminders.for_turn(1, True))[1] == ["позвонить маме"]


async def test_in_a_minute_counts_from_when_the_message_came_to_the_second(store):
    clock = Clock(T0.replace(second=40))  # the turn reached the reminders 8 s after the message came
    reminders = service(store, clock, Recorder())
    outcome = await reminders.hear(1, 1, "напомни через 1 минуту проверить чайник",
                                   heard_at=T0.replace(second=32))
    assert outcome is not None and outcome.reminder is not None
    assert outcome.reminder.due_at == T0.replace(minute=8, second=32)
    later = await reminders.hear(2, 2, "ping me in 20 minutes to check the oven")  # a cue of its own now
    assert later is not None and later.reminder is not None
    assert later.reminder.due_at == T0.replace(minute=27, second=40)


def test_next_time_keeps_the_rules_wall_clock_across_a_dst_change():
    berlin = "Europe/Berlin"
    reminder = Reminder(1, 1, 1, None, "x", datetime(2026, 3, 28, 8, 30, tzinfo=ZoneInfo(berlin)), "day 08:30",
                        berlin, T0)
    after = next_time(reminder, datetime(2026, 3, 28, 9, 0, tzinfo=timezone.utc))
    assert after == datetime(2026, 3, 29, 8, 30, tzinfo=ZoneInfo(berlin))  # 06:30 UTC, not 07:30
    assert next_time(Reminder(1, 1, 1, None, "x", T0, None, "Europe/Moscow", T0), T0) is None
    assert next_time(Reminder(1, 1, 1, None, "x", T0, "nonsense", "Europe/Moscow", T0), T0) is None


def test_matching_finds_a_reminder_by_a_word_of_its_task_in_another_form():
    made = [Reminder(i, 1, 1, None, task, T0, None, "UTC", T0)
            for i, task in enumerate(["позвонить маме", "сходить в спортзал", "go to the gym"])]
    assert [r.id for r in matching(made, "про маму")] == [0]
    assert [r.id for r in matching(made, "the gym one")] == [2]
    assert matching(made, "про кота") == []


def test_the_models_answer_is_taken_only_with_a_time_ahead_and_a_rule_that_reads():
    now = T0
    assert read_model_answer('{"task": "call", "at": "2026-12-05T09:00", "repeat": null, "ask": null}', "x", now) \
        == SetReminder("call", datetime(2026, 12, 5, 9, 0, tzinfo=MOSCOW), None)
    weekly = read_model_answer('{"task": "gym", "at": "2026-12-07T08:00", "repeat": "week mon 08:00"}', "x", now)
    assert isinstance(weekly, SetReminder) and weekly.repeat is not None and weekly.repeat.rule() == "week mon 08:00"
    for bad in ('{"task": "x", "at": "2026-12-03T09:00"}', '{"task": "x", "at": "2036-12-05T09:00"}',
                '{"task": "x", "at": "tomorrow"}', '{"task": "x", "at": "2026-12-05T09:00", "repeat": "often"}',
                "no json at all", "[1, 2]"):
        outcome = read_model_answer(bad, "x", now)
        assert not isinstance(outcome, SetReminder) and outcome.kind == "unclear", bad
    asked = read_model_answer('{"task": "x", "at": null, "ask": "В 9 утра или вечера?"}', "x", now)
    assert asked.question == "В 9 утра или вечера?"


def test_the_models_task_must_be_the_users_words_and_an_every_one_rule_reads():
    words = "напомни через пару дней, как будет время, купить корм коту"
    invented = '{"task": "transfer 500 euros", "at": "2026-12-06T09:00", "repeat": null, "ask": null}'
    assert read_model_answer(invented, "купить корм коту", T0, words).task == "купить корм коту"
    own = '{"task": "купить корм коту", "at": "2026-12-06T09:00", "repeat": null, "ask": null}'
    assert read_model_answer(own, "корм", T0, words) == SetReminder(
        "купить корм коту", datetime(2026, 12, 6, 9, 0, tzinfo=MOSCOW))
    hourly = read_model_answer('{"task": "пить воду", "at": "2026-12-04T11:07", "repeat": "hour/1"}', "x", T0)
    assert isinstance(hourly, SetReminder) and hourly.repeat is not None and hourly.repeat.rule() == "hour"


def test_the_times_offered_when_no_one_could_tell_when():
    assert fallback_choices(T0.replace(second=30)) == (
        T0.replace(hour=11, minute=8), T0.replace(hour=19, minute=0), datetime(2026, 12, 5, 9, 0, tzinfo=MOSCOW))
    late = datetime(2026, 12, 4, 18, 30, tzinfo=MOSCOW)  # this evening is less than an hour off: not offered
    assert fallback_choices(late) == (late.replace(hour=19, minute=30), datetime(2026, 12, 5, 9, 0, tzinfo=MOSCOW))


async def test_two_machines_deliver_each_reminder_once(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        clock, send = Clock(T0), Recorder(delay=0.01)
        for user in range(1, 41):
            await setting(first, T0 + timedelta(minutes=1), user_id=user)
        clock.now = T0 + timedelta(minutes=1)
        machines = [service(store, clock, send) for store in (first, second)]
        await asyncio.gather(*(machine.sweep() for machine in machines for _ in range(3)))
        assert sorted(rid for rid, _ in send.sent) == sorted({rid for rid, _ in send.sent})
        assert len(send.sent) == 40
    finally:
        await first.close()
        await second.close()


async def test_the_question_when_answered_in_words_sets_the_reminder(store):
    clock = Clock(T0)
    reminders = service(store, clock, Recorder())
    asked = await reminders.hear(1, 1, "напомни в 5 покормить кота")
    assert asked is not None and asked.kind == "ask" and asked.reminder is not None
    answered = await reminders.hear(1, 1, "вечера")  # written, not a button
    assert answered is not None and answered.kind == "set" and answered.reminder is not None
    assert answered.reminder.id == asked.reminder.id and answered.reminder.state == "active"
    assert answered.reminder.due_at == T0.replace(hour=17, minute=0)
    assert await reminders.hear(1, 1, "вечера") is None  # the question was answered once


async def test_the_question_when_answered_otherwise_is_dropped(store):
    clock = Clock(T0)
    reminders = service(store, clock, Recorder())
    asked = await reminders.hear(1, 1, "напомни в 5 покормить кота")
    assert asked is not None and asked.reminder is not None
    assert await reminders.hear(1, 1, "кстати, у меня в 15:00 встреча с Олегом") is None  # a time, but talk
    dropped = await store.reminders.reminder(1, asked.reminder.id)
    assert dropped is not None and dropped.state == "cancelled"
    assert await reminders.choose(1, asked.reminder.id, T0.replace(hour=17)) is None  # its button has expired


async def test_a_new_request_after_the_question_drops_it_and_is_set(store):
    clock = Clock(T0)
    reminders = service(store, clock, Recorder())
    asked = await reminders.hear(1, 1, "напомни в 5 покормить кота")
    assert asked is not None and asked.reminder is not None
    other = await reminders.hear(1, 1, "напомни через час позвонить маме")
    assert other is not None and other.kind == "set" and other.reminder is not None
    assert other.reminder.task == "позвонить маме"
    assert (await store.reminders.reminder(1, asked.reminder.id)).state == "cancelled"


async def test_a_button_then_words_leaves_the_chosen_time(store):
    clock = Clock(T0)
    reminders = service(store, clock, Recorder())
    asked = await reminders.hear(1, 1, "напомни в 5 покормить кота")
    assert asked is not None and asked.reminder is not None
    chosen = await reminders.choose(1, asked.reminder.id, asked.choices[0])
    assert chosen is not None and chosen.state == "active"
    assert await reminders.hear(1, 1, "спасибо!") is None
    assert (await store.reminders.reminder(1, asked.reminder.id)).state == "active"  # not dropped
