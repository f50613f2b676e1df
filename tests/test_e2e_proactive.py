"""End to end: the companion writes first, on the user's own clock, through the real Application and its JobQueue.

A fake clock drives the companion, the memory keeper and the outreach sweep; the sweep itself runs every
0.1 s on PTB's JobQueue (APScheduler), and the test moves the clock and waits for sweeps to pass.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from memory.facts import Extraction, Fact
from tests.harness import ProcessedUpdates, make_config, running_bot, session
from tests.timeouts import scaled

ANN, BOB = 1001, 1002
MOSCOW = ZoneInfo("Europe/Moscow")
WRITE_FIRST = "Write to them first"


class FakeClock:
    """The time every service of the bot reads; the test moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def set(self, text: str) -> None:
        self.now = datetime.fromisoformat(text).replace(tzinfo=MOSCOW)


@pytest.fixture
def clock():
    return FakeClock(datetime(2026, 11, 30, 12, 0, tzinfo=MOSCOW))


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(
        telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", proactive_sweep_s=0.1,
        checkin_after_hours=1, followup_after_hours=3, memory_extract_delay_s=0.2, stream_replies=False,
    )


def outreach_requests(model) -> list[dict]:
    return [r for r in model.requests if WRITE_FIRST in r["messages"][0]["content"]]


def companion_reply(outreach_text: str = "Как там Мурка? Ты давно о ней не рассказывала."):
    """Chat turns get an echo, messages written first get `outreach_text`, extraction calls get no facts."""

    def reply(body: dict) -> str:
        if "response_format" in body:
            return json.dumps({"facts": [], "relations": []})
        if WRITE_FIRST in body["messages"][0]["content"]:
            return outreach_text
        return "echo: " + body["messages"][-1]["content"]

    return reply


class Sweeps:
    """Counts finished outreach sweeps, so a test can wait for the bot to have looked."""

    def __init__(self, app) -> None:
        self.count = 0
        outreach = app.bot_data.outreach
        original = outreach.sweep

        async def counted() -> int:
            try:
                return await original()
            finally:
                self.count += 1

        outreach.sweep = counted  # type: ignore[method-assign]

    async def wait(self, more: int = 3, timeout: float = 10.0) -> None:
        target = self.count + more
        deadline = time.monotonic() + scaled(timeout)
        while self.count < target:
            assert time.monotonic() < deadline, "the outreach sweep did not run"
            await asyncio.sleep(0.02)


def attach(app, clock) -> Sweeps:
    assert app.bot_data.clock is clock  # every service reads the test's clock
    return Sweeps(app)


async def say(telegram, processed, user_id: int, text: str, **kwargs) -> None:
    update_id = telegram.push_text(user_id, text, **kwargs)
    await processed.wait(update_id)


async def test_a_check_in_names_a_known_fact_says_how_to_stop_and_never_comes_twice_unanswered(
    telegram, model, config, clock
):
    model.reply = companion_reply()
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть кошка Мурка", language_code="ru")
        clock.set("2026-11-30T12:59")
        await sweeps.wait()
        assert len(telegram.sent_to(ANN)) == 1  # not due yet
        clock.set("2026-11-30T13:01")
        [_, checkin] = await telegram.wait_for_sent(ANN, 2)
        assert checkin["visible_text"].startswith("Как там Мурка?")
        assert "/checkins off" in checkin["visible_text"]  # the first one says how to stop them
        [request] = outreach_requests(model)
        assert "Мурка" in request["messages"][0]["content"]
        assert "Europe/Moscow" in request["messages"][0]["content"]
        clock.set("2026-12-09T13:00")  # days of silence: still only the one check-in
        await sweeps.wait()
        assert len(telegram.sent_to(ANN)) == 2 and len(outreach_requests(model)) == 1
        # They answer; the check-in is in the session, so the reply has its context.
        await say(telegram, processed, ANN, "Мурка спит", language_code="ru")
        last_turn = [r for r in model.requests if r["messages"][-1]["content"] == "Мурка спит"][-1]
        # (after the echo of their last message: two of the companion's in a row, sent as one turn)
        assert any(m["role"] == "assistant" and "\n\nКак там Мурка?" in m["content"] for m in last_turn["messages"])
        clock.set("2026-12-09T14:30")
        [*_, second] = await telegram.wait_for_sent(ANN, 4)
        assert "/checkins off" not in second["visible_text"]  # said once only


async def test_a_follow_up_arrives_after_a_dated_event_in_the_users_language(telegram, model, config, clock):
    def reply(body: dict) -> str:
        if "response_format" in body:
            prompt = body["messages"][-1]["content"]
            found = re.search(r"\[user #(\d+)\] Завтра в 10 у меня собеседование", prompt)
            assert "--- Monday, 30 November 2026 ---" in prompt
            facts = [{"category": "plans", "key": "plan:interview", "value": "собеседование", "importance": 6,
                      "confidence": 0.9, "source_message_id": int(found.group(1)), "when": "2026-12-01T10:00"}]
            return json.dumps({"facts": facts if found else [], "relations": []})
        if WRITE_FIRST in body["messages"][0]["content"]:
            return "Ну как прошло собеседование?"
        return "echo"

    model.reply = reply
    config = config.__class__(**{**config.__dict__, "checkin_after_hours": 1000.0})
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "Завтра в 10 у меня собеседование", language_code="ru")
        await asyncio.sleep(0.5)  # the extractor reads it once the user is idle
        clock.set("2026-12-01T12:59")
        await sweeps.wait()
        assert len(telegram.sent_to(ANN)) == 1
        clock.set("2026-12-01T13:01")  # three hours after the interview
        [_, followup] = await telegram.wait_for_sent(ANN, 2)
        assert followup["visible_text"].startswith("Ну как прошло собеседование?")
        [request] = outreach_requests(model)
        task = request["messages"][0]["content"].rpartition("\n\n")[2]
        assert '"собеседование"' in task and "Tuesday, 1 December 2026, 10:00" in task
        assert "language_code" not in task and '"ru"' in task
        clock.set("2026-12-05T13:00")
        await sweeps.wait()
        assert len(outreach_requests(model)) == 1  # one follow-up per event


async def test_an_event_already_talked_about_gets_no_follow_up(telegram, model, config, clock):
    model.reply = companion_reply("Ну как экзамен?")
    config = config.__class__(**{**config.__dict__, "checkin_after_hours": 1000.0})
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        store = app.bot_data.store
        await say(telegram, processed, ANN, "привет", language_code="ru")
        exam = Fact("plans", "plan:exam", "экзамен по химии", when="2026-11-30T14:00")
        await store.facts.save_facts(ANN, Extraction([exam]), clock(), 100,
                                     plan=lambda _f: clock.now + timedelta(hours=5))
        clock.set("2026-11-30T16:00")
        await say(telegram, processed, ANN, "Сдала экзамен на пятёрку!", language_code="ru")
        clock.set("2026-11-30T17:30")
        await sweeps.wait()
        assert outreach_requests(model) == []
        assert await store.outreach.due_items(clock.now + timedelta(days=30), 10) == []


async def test_checkins_off_stops_them_and_on_brings_them_back(telegram, model, config, clock):
    model.reply = companion_reply()
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "/checkins off")
        assert "won't write first" in telegram.sent_to(ANN)[-1]["visible_text"]
        await say(telegram, processed, ANN, "I have a cat named Murka")
        clock.set("2026-11-30T15:00")
        await sweeps.wait()
        assert outreach_requests(model) == []
        await say(telegram, processed, ANN, "/checkins")
        assert "Writing first: off" in telegram.sent_to(ANN)[-1]["visible_text"]
        await say(telegram, processed, ANN, "/checkins on")
        await say(telegram, processed, ANN, "back again")
        clock.set("2026-11-30T16:30")
        await telegram.wait_for_sent(ANN, 6)
        assert len(outreach_requests(model)) == 1


async def test_quiet_hours_hold_a_check_in_until_the_morning(telegram, model, config, clock):
    model.reply = companion_reply()
    clock.set("2026-11-30T21:30")
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть кошка Мурка", language_code="ru")
        clock.set("2026-11-30T23:00")
        await sweeps.wait()
        clock.set("2026-12-01T08:59")
        await sweeps.wait()
        assert outreach_requests(model) == [] and len(telegram.sent_to(ANN)) == 1
        clock.set("2026-12-01T09:01")
        await telegram.wait_for_sent(ANN, 2)


async def test_the_users_own_zone_decides_the_quiet_hours(telegram, model, config, clock):
    model.reply = companion_reply()
    clock.set("2026-11-30T13:00")  # 20:00 in Vladivostok
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "/timezone Владивосток", language_code="ru")
        assert "Asia/Vladivostok" in telegram.sent_to(ANN)[-1]["visible_text"]
        await say(telegram, processed, ANN, "У меня есть кошка Мурка", language_code="ru")
        assert "in Asia/Vladivostok" in model.requests[-1]["messages"][0]["content"]
        assert "20:00 (evening)" in model.requests[-1]["messages"][0]["content"]
        clock.set("2026-11-30T15:30")  # 22:30 there: quiet, though it is afternoon in Moscow
        await sweeps.wait()
        assert outreach_requests(model) == []
        clock.set("2026-12-01T02:01")  # 09:01 there
        await telegram.wait_for_sent(ANN, 3)
        assert len(outreach_requests(model)) == 1


async def test_a_user_who_blocked_the_bot_is_not_written_to_until_they_write(telegram, model, config, clock):
    model.reply = companion_reply()
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть кошка Мурка", language_code="ru")
        telegram.block(ANN)
        clock.set("2026-11-30T13:30")
        await telegram.wait_for_call("sendMessage", count=2)
        await sweeps.wait()
        clock.set("2026-12-05T13:30")
        await sweeps.wait()
        assert len(outreach_requests(model)) == 1 and len(telegram.sent_to(ANN)) == 1
        assert app.job_queue.get_jobs_by_name("outreach-sweep")  # the job lives on
        history = await session(app.bot_data.store, ANN, 20)
        assert not any(m["content"].startswith("Как там Мурка") for m in history)  # never delivered
        await say(telegram, processed, ANN, "я вернулась", language_code="ru")  # writing unblocks
        clock.set("2026-12-05T15:00")
        await telegram.wait_for_sent(ANN, 3)


async def test_group_chats_never_get_a_message_written_first(telegram, model, config, clock):
    model.reply = companion_reply()
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, BOB, "@companion_test_bot у меня есть кошка Мурка", chat_id=-500,
                  chat_type="group")
        clock.set("2026-12-01T13:00")
        await sweeps.wait()
        assert outreach_requests(model) == []


async def test_proactive_off_turns_the_whole_feature_off(telegram, model, config, clock):
    model.reply = companion_reply()
    config = config.__class__(**{**config.__dict__, "proactive": False})
    async with running_bot(config, clock=clock) as app:
        processed = ProcessedUpdates(app)
        assert not app.job_queue.get_jobs_by_name("outreach-sweep")
        await say(telegram, processed, ANN, "/checkins on")
        assert "turned off" in telegram.sent_to(ANN)[-1]["visible_text"]


async def test_the_zone_from_the_city_shows_in_the_prompt_profile_and_export_and_forget_removes_it(
    telegram, model, config, clock
):
    model.reply = companion_reply()
    async with running_bot(config, clock=clock) as app:
        attach(app, clock)
        processed = ProcessedUpdates(app)
        await say(telegram, processed, ANN, "Я живу в Новосибирске", language_code="ru")
        assert "in Asia/Novosibirsk" in model.requests[-1]["messages"][0]["content"]
        await say(telegram, processed, ANN, "/profile", language_code="ru")
        assert "Asia/Novosibirsk (по твоему городу: Новосибирск" in telegram.sent_to(ANN)[-1]["visible_text"]
        await say(telegram, processed, ANN, "/timezone Europe/Moscow", language_code="ru")
        await say(telegram, processed, ANN, "/export", language_code="ru")
        await telegram.wait_for_call("sendDocument")
        exported = json.loads(telegram.documents[-1]["document"]["content"])
        assert exported["timezone"] == {"zone": "Europe/Moscow", "source": "command"}
        await say(telegram, processed, ANN, "/timezone Марс", language_code="ru")
        assert "Я не знаю «Марс»" in telegram.sent_to(ANN)[-1]["visible_text"]
        await app.bot_data.store.accounts.forget_user(ANN)
        assert await app.bot_data.store.users.settings(ANN) == {}


async def test_a_message_whose_writing_runs_into_quiet_hours_waits_for_the_morning(telegram, model, config, clock):
    writes = []

    def reply(body: dict) -> str:
        if WRITE_FIRST in body["messages"][0]["content"]:
            writes.append(body)
            if len(writes) == 1:
                clock.set("2026-11-30T22:05")  # the model was slow: quiet hours began while it wrote
        return companion_reply("Как там Мурка?")(body)

    model.reply = reply
    clock.set("2026-11-30T20:00")
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = attach(app, clock), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть кошка Мурка", language_code="ru")
        clock.set("2026-11-30T21:58")
        await sweeps.wait()
        assert len(outreach_requests(model)) >= 1 and len(telegram.sent_to(ANN)) == 1
        [due] = await app.bot_data.store.outreach.due_items(clock.now + timedelta(days=1), 10)
        assert due.due_at == datetime(2026, 12, 1, 9, 0, tzinfo=MOSCOW)
        clock.set("2026-12-01T09:01")
        await telegram.wait_for_sent(ANN, 2)
