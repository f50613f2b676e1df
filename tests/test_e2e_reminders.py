"""End to end: reminders the user asks for, through the real Application, its JobQueue and the Bot API double.

A fake clock drives the bot; the reminder sweep runs every 0.05 s on PTB's JobQueue, and a test moves the clock
past a reminder's time and waits for the delivery.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from bot import build_application, serve_webhook
from memory.store.memory_store import Store
from tests.harness import make_config, running_bot
from tests.real_server import free_port
from tests.test_e2e_proactive import MOSCOW, FakeClock
from tests.timeouts import scaled

ANN, BOB = 1001, 1002
GROUP = -1001234567890

REMINDERS = "## Reminders they asked for"


@pytest.fixture
def clock():
    return FakeClock(datetime(2026, 12, 4, 10, 7, tzinfo=MOSCOW))  # a Friday


@pytest.fixture
def config(telegram, model, tmp_path):
    model.reply = lambda body: (json.dumps({"facts": [], "relations": []}) if "response_format" in body
                                else "Конечно!")
    return make_config(telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", reminder_sweep_s=0.05,
                       memory_extract_delay_s=3600, stream_replies=False, proactive=False)


def buttons(message: dict) -> list[tuple[str, str]]:
    markup = message.get("reply_markup") or {}
    return [(b["text"], b["callback_data"]) for row in markup.get("inline_keyboard", []) for b in row]


def chat_requests(model) -> list[dict]:
    return [r for r in model.requests if "response_format" not in r and "messages" in r]


async def say(telegram, user: int, words: str, count: int, **kwargs) -> list[dict]:
    telegram.push_text(user, words, **kwargs)
    return await telegram.wait_for_sent(kwargs.get("chat_id") or user, count, timeout=10)


async def delivered(telegram, chat: int, count: int, clock: FakeClock, at: str) -> list[dict]:
    clock.set(at)
    return await telegram.wait_for_sent(chat, count, timeout=10)


async def test_a_one_off_is_confirmed_known_to_the_model_and_delivered_once(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        line, reply = await say(telegram, ANN, "напомни мне завтра в 9 позвонить маме", 2, language_code="ru")
        assert "позвонить маме" in line["text"] and "09:00" in line["text"] and "⏰" in line["text"]
        assert [data.split(":")[1] for _, data in buttons(line)] == ["c", "t"]
        assert reply["text"] == "Конечно!"  # the model's reply still comes, after the bot's own line
        system = chat_requests(model)[-1]["messages"][0]["content"]
        assert REMINDERS in system and "позвонить маме" in system.split(REMINDERS)[1]
        assert "now set" in system  # what this message did
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert reminder.due_at == datetime(2026, 12, 5, 9, 0, tzinfo=MOSCOW)

        await asyncio.sleep(0.3)
        clock.set("2026-12-05T08:59:30")
        await asyncio.sleep(0.3)
        assert len(telegram.sent_to(ANN)) == 2  # not yet
        [*_, sent] = await delivered(telegram, ANN, 3, clock, "2026-12-05T09:00:00")
        assert "позвонить маме" in sent["text"] and "опоздани" not in sent["text"]
        assert [data.split(":")[1] for _, data in buttons(sent)] == ["d", "z", "z"]
        await asyncio.sleep(0.5)
        clock.set("2026-12-05T09:30:00")
        await asyncio.sleep(0.5)
        assert len(telegram.sent_to(ANN)) == 3  # exactly once
        assert await app.bot_data.store.reminders.reminders(ANN) == []


async def test_in_one_minute_comes_a_minute_after_the_message_not_at_the_next_whole_minute(
        telegram, model, config, clock):
    clock.set("2026-12-04T10:07:32")  # the seconds used to be cut off: 10:08:00 came 28 s after the message
    async with running_bot(config, clock) as app:
        [line, _] = await say(telegram, ANN, "напомни через 1 минуту проверить чайник", 2, language_code="ru")
        assert "проверить чайник" in line["text"]
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert timedelta(seconds=55) <= reminder.due_at - datetime(2026, 12, 4, 10, 7, 32, tzinfo=MOSCOW) \
            <= timedelta(seconds=60)
        clock.set("2026-12-04T10:08:27")  # 55 s on: not yet
        await asyncio.sleep(0.3)
        assert len(telegram.sent_to(ANN)) == 2
        [*_, sent] = await delivered(telegram, ANN, 3, clock, "2026-12-04T10:08:32")
        assert "проверить чайник" in sent["text"]


async def test_a_recurring_one_is_planned_from_its_rule_not_from_its_delivery(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        [line, _] = await say(telegram, ANN, "remind me every day at 9pm to take my pills", 2)
        assert "take my pills" in line["text"] and "21:00" in line["text"]
        await delivered(telegram, ANN, 3, clock, "2026-12-04T21:00:40")  # delivered 40 s after its time
        await asyncio.sleep(0.3)
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert reminder.rule == "day 21:00"
        assert reminder.due_at == datetime(2026, 12, 5, 21, 0, tzinfo=MOSCOW)  # not 21:00:40


async def test_quiet_hours_do_not_hold_a_reminder_back(telegram, model, config, clock):
    async with running_bot(config, clock):  # quiet hours are 22:00-09:00 by default
        await say(telegram, ANN, "напомни завтра в 06:30 выпить таблетку", 2, language_code="ru")
        [*_, sent] = await delivered(telegram, ANN, 3, clock, "2026-12-05T06:30:00")
        assert "выпить таблетку" in sent["text"]


async def test_reminders_lists_them_and_cancel_removes_one(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me tomorrow at 10 to buy bread", 2)
        await say(telegram, ANN, "remind me on Monday at 18:00 to call Bob", 4)
        [listing] = (await say(telegram, ANN, "/reminders", 5))[-1:]
        assert listing["text"].index("buy bread") < listing["text"].index("call Bob")  # soonest first
        cancels = [data for _, data in buttons(listing)]
        assert len(cancels) == 2 and all(data.startswith("rm:c:") for data in cancels)
        telegram.push_callback(ANN, cancels[0], listing["message_id"])
        await telegram.wait_for_call("answerCallbackQuery")
        await asyncio.sleep(0.2)
        assert [r.task for r in await app.bot_data.store.reminders.reminders(ANN)] == ["call Bob"]
        telegram.push_callback(BOB, cancels[1], listing["message_id"], chat_id=ANN)  # not Bob's to press
        await telegram.wait_for_call("answerCallbackQuery", 2)
        assert [r.task for r in await app.bot_data.store.reminders.reminders(ANN)] == ["call Bob"]


async def test_cancel_and_move_in_conversation(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "напомни завтра в 9 позвонить маме", 2, language_code="ru")
        await say(telegram, ANN, "напомни в понедельник в 19:00 сходить в спортзал", 4, language_code="ru")
        moved, _ = (await say(telegram, ANN, "перенеси на 10", 6, language_code="ru"))[-2:]
        assert "10:00" in moved["text"]
        gym = next(r for r in await app.bot_data.store.reminders.reminders(ANN) if "спортзал" in r.task)
        assert gym.due_at == datetime(2026, 12, 7, 10, 0, tzinfo=MOSCOW)  # the last one set, its own day kept
        cancelled, _ = (await say(telegram, ANN, "отмени напоминание про маму", 8, language_code="ru"))[-2:]
        assert "позвонить маме" in cancelled["text"]
        assert [r.task for r in await app.bot_data.store.reminders.reminders(ANN)] == [gym.task]


async def test_a_bare_hour_is_asked_about_and_set_once_chosen(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        question, _ = await say(telegram, ANN, "напомни завтра в 7 выключить духовку", 2, language_code="ru")
        picks = buttons(question)
        assert [label for label, _ in picks] == ["07:00", "19:00"]
        assert await app.bot_data.store.reminders.reminders(ANN) == []  # nothing set until they choose
        telegram.push_callback(ANN, picks[1][1], question["message_id"])
        await telegram.wait_for_call("editMessageText")
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert reminder.due_at == datetime(2026, 12, 5, 19, 0, tzinfo=MOSCOW)
        telegram.push_callback(ANN, picks[0][1], question["message_id"])  # chosen already
        await telegram.wait_for_call("answerCallbackQuery", 2)
        assert len(await app.bot_data.store.reminders.reminders(ANN)) == 1


async def test_a_time_no_one_could_read_is_offered_on_buttons_never_guessed(telegram, model, config, clock):
    # the model's answer to the reminder call names no time (the fixture answers every JSON call with facts)
    async with running_bot(config, clock) as app:
        line, _ = await say(telegram, ANN, "напомни минут за 15 до созвона взять ноутбук", 2, language_code="ru")
        assert "⏰" in line["text"] and "когда напомнить" in line["text"]
        picks = buttons(line)
        assert [label for label, _ in picks] == ["сегодня в 11:07", "сегодня в 19:00", "завтра в 09:00"]
        assert await app.bot_data.store.reminders.reminders(ANN) == []  # nothing set until they choose
        telegram.push_callback(ANN, picks[2][1], line["message_id"])
        await telegram.wait_for_call("editMessageText")
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert reminder.due_at == datetime(2026, 12, 5, 9, 0, tzinfo=MOSCOW)


@pytest.mark.parametrize("answer, set_at", [
    ({"task": "взять ноутбук", "at": "2026-12-04T10:52", "repeat": None, "ask": None}, datetime(2026, 12, 4, 10, 52)),
    ({"task": "взять ноутбук", "at": "2026-12-03T10:52", "repeat": None, "ask": None}, None),  # yesterday
    ({"task": "взять ноутбук", "at": "через пятнадцать", "repeat": None, "ask": None}, None),  # nonsense
], ids=["read", "past", "nonsense"])
async def test_a_time_the_rules_cannot_place_is_read_by_the_model_and_checked(telegram, model, config, clock,
                                                                              answer, set_at):
    # The model double answers the structured reminder request; a time that is not ahead of now, or not a time,
    # is never set: the user is asked instead.
    def reply(body: dict) -> str:
        if "reminder" in json.dumps(body.get("response_format", "")):
            return json.dumps(answer)
        return json.dumps({"facts": [], "relations": []}) if "response_format" in body else "Конечно!"

    model.reply = reply
    async with running_bot(config, clock) as app:
        line, _ = await say(telegram, ANN, "напомни минут за 15 до созвона в 11:07 взять ноутбук", 2,
                            language_code="ru")
        set_now = await app.bot_data.store.reminders.reminders(ANN)
    assert any("reminder" in json.dumps(r.get("response_format", "")) for r in model.requests)
    if set_at is None:
        assert set_now == [] and "когда напомнить" in line["text"] and buttons(line)
    else:
        [reminder] = set_now
        assert reminder.due_at == set_at.replace(tzinfo=MOSCOW) and "10:52" in line["text"]


async def test_traps_and_forwards_set_nothing(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        count = 0
        for words in ("она напомнила мне позвонить маме", "напомни, о чём мы вчера говорили",
                      "я забыл выпить таблетку", "that reminds me of my trip to Rome"):
            count += 1
            [reply] = (await say(telegram, ANN, words, count, language_code="ru"))[-1:]
            assert "⏰" not in reply["text"]
        telegram.push_message(ANN, {"text": "напомни мне завтра в 9 позвонить маме",
                                    "forward_origin": {"type": "hidden_user", "sender_user_name": "Boris",
                                                       "date": 1}})
        await telegram.wait_for_sent(ANN, count + 1)
        await asyncio.sleep(0.2)
        assert await app.bot_data.store.reminders.reminders(ANN) == []
        assert all("⏰" not in m["text"] for m in telegram.sent_to(ANN))


async def test_a_reminder_late_from_an_outage_says_so_and_one_too_late_is_told_next_time(
        telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me tomorrow at 9 to water the plants", 2)
        await say(telegram, ANN, "remind me tomorrow at 10 to pay rent", 4)
        app.job_queue.scheduler.pause()  # the bot is down
        clock.set("2026-12-05T09:40:00")
        await asyncio.sleep(0.2)
        app.job_queue.scheduler.resume()
        [*_, late] = await telegram.wait_for_sent(ANN, 5)
        assert "water the plants" in late["text"] and "40 minutes" in late["text"]
        app.job_queue.scheduler.pause()
        clock.set("2026-12-06T09:40:00")  # rent was due 23 h 40 min ago
        app.job_queue.scheduler.resume()
        await asyncio.sleep(0.5)
        assert len(telegram.sent_to(ANN)) == 5  # skipped, not sent a day late
        missed, _ = (await say(telegram, ANN, "hi", 7))[-2:]
        assert "pay rent" in missed["text"]
        [_, reply] = (await say(telegram, ANN, "hi again", 8))[-2:]
        assert "pay rent" not in telegram.sent_to(ANN)[-1]["text"]  # told once


async def test_snooze_sets_it_again_and_done_takes_the_buttons_away(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me in 20 minutes to stretch", 2)
        [*_, sent] = await delivered(telegram, ANN, 3, clock, "2026-12-04T10:27:00")
        snooze = next(data for label, data in buttons(sent) if label == "In 10 minutes")
        telegram.push_callback(ANN, snooze, sent["message_id"])
        await telegram.wait_for_call("editMessageText")
        [again] = await app.bot_data.store.reminders.reminders(ANN)
        assert again.task == "stretch" and again.due_at == datetime(2026, 12, 4, 10, 37, tzinfo=MOSCOW)
        [*_, second] = await delivered(telegram, ANN, 4, clock, "2026-12-04T10:37:00")
        done = next(data for label, data in buttons(second) if label.startswith("Done"))
        telegram.push_callback(ANN, done, second["message_id"])
        await telegram.wait_for_call("editMessageReplyMarkup")
        assert not buttons(telegram.message(ANN, second["message_id"]))


async def test_forget_erases_reminders_and_forget_that_does_not(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "напомни завтра в 9 позвонить маме", 2, language_code="ru")
        await say(telegram, ANN, "забудь, что я говорила про маму", 3, language_code="ru")  # one line: nothing known
        assert len(await app.bot_data.store.reminders.reminders(ANN)) == 1
        [ask] = (await say(telegram, ANN, "/forget", 4, language_code="ru"))[-1:]
        telegram.push_callback(ANN, buttons(ask)[0][1], ask["message_id"])
        await telegram.wait_for_call("editMessageText")
        await asyncio.sleep(0.2)
        assert await app.bot_data.store.reminders.reminders(ANN) == []
        clock.set("2026-12-05T09:00:00")
        await asyncio.sleep(0.5)
        assert not any("Напоминаю" in m["text"] for m in telegram.sent_to(ANN))


async def test_in_a_group_it_is_delivered_where_asked_mentioning_the_asker(telegram, model, config, clock):
    telegram.bot_user["username"] = telegram.bot_user.get("username") or "companion_bot"
    async with running_bot(config, clock) as app:
        mention = f"@{app.bot.username}"
        telegram.push_text(ANN, f"{mention} remind me in 5 minutes to start the meeting", chat_id=GROUP,
                           chat_type="supergroup", entities=[{"type": "mention", "offset": 0,
                                                              "length": len(mention)}])
        await telegram.wait_for_sent(GROUP, 2)
        [*_, sent] = await delivered(telegram, GROUP, 3, clock, "2026-12-04T10:12:00")
        assert "start the meeting" in sent["text"], sent
        assert f'<a href="tg://user?id={ANN}">Ann</a>' in sent["text"]  # the double parsed it as HTML
        assert sent["visible_text"].startswith("Ann, ⏰")
        assert telegram.sent_to(ANN) == []  # not in Ann's private chat


async def test_a_group_never_hears_of_private_reminders(telegram, model, config, clock):
    telegram.bot_user["username"] = telegram.bot_user.get("username") or "companion_bot"
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me tomorrow at 10 to buy the ring", 2)
        mention = f"@{app.bot.username}"
        telegram.push_text(ANN, f"{mention} cancel the ring reminder", chat_id=GROUP, chat_type="supergroup",
                           entities=[{"type": "mention", "offset": 0, "length": len(mention)}])
        await telegram.wait_for_sent(GROUP, 2)
        assert all("ring" not in m["text"] for m in telegram.sent_to(GROUP))
        assert len(await app.bot_data.store.reminders.reminders(ANN)) == 1  # a group cannot cancel a private one
        group_prompt = chat_requests(model)[-1]["messages"][0]["content"]
        assert "buy the ring" not in group_prompt


async def test_a_secret_in_the_task_is_masked(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me tomorrow at 10 to pay with card 4111 1111 1111 1111", 2)
        [reminder] = await app.bot_data.store.reminders.reminders(ANN)
        assert "4111" not in reminder.task and "pay with card" in reminder.task


async def test_two_machines_on_one_postgresql_deliver_each_reminder_once(telegram, model, config, clock, pg_url):
    """Two real Applications in webhook mode (as several machines run) on one database, each sweeping."""
    store = await Store.open(pg_url)
    try:
        for user in range(1, 31):
            telegram.know_private_chat(user, "U")
            await store.users.meet_user(user, clock())
            await store.reminders.add_reminder(user, user, f"task {user}", clock() + timedelta(minutes=1), None,
                                     "Europe/Moscow", clock())
    finally:
        await store.close()
    machines = []
    for _ in range(2):
        machine = replace(config, database_url=pg_url, webhook_url="https://bot.example.com/tg/hook",
                          webhook_secret="s3cret-token", port=free_port())
        app = await build_application(machine, clock=clock)
        machines.append((app, asyncio.create_task(serve_webhook(app, machine))))
    try:
        await telegram.wait_for_call("setWebhook", 2)
        clock.set("2026-12-04T10:08:00")
        deadline = asyncio.get_running_loop().time() + 20
        while sum(len(telegram.sent_to(user)) for user in range(1, 31)) < 30:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # more sweeps of both
    finally:
        for app, task in machines:
            app.bot_data.stop_requested.set()
            await asyncio.wait_for(task, scaled(15))
    assert [len(telegram.sent_to(user)) for user in range(1, 31)] == [1] * 30


async def test_memory_off_does_not_stop_reminders_and_export_has_them(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "/memory off", 1)
        [line, _] = (await say(telegram, ANN, "remind me tomorrow at 10 to buy bread", 3))[-2:]
        assert "buy bread" in line["text"]
        [*_, sent] = await delivered(telegram, ANN, 4, clock, "2026-12-05T10:00:00")
        assert "buy bread" in sent["text"]
        exported = await app.bot_data.store.accounts.export_user(ANN)
        assert [r["task"] for r in exported["reminders"]] == ["buy bread"]


async def test_a_user_who_blocked_the_bot_is_not_sent_a_reminder_again_and_again(telegram, model, config, clock):
    async with running_bot(config, clock) as app:
        await say(telegram, ANN, "remind me tomorrow at 10 to buy bread", 2)
        telegram.block(ANN)
        clock.set("2026-12-05T10:00:00")
        await telegram.wait_for_call("sendMessage", 3)
        await asyncio.sleep(0.5)  # ten more sweeps
        assert sum(1 for name, _ in telegram.calls if name == "sendMessage") == 3
        assert await app.bot_data.store.reminders.reminders(ANN) == []
