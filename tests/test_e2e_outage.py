"""Telegram's Bot API down for minutes: every message that arrived meanwhile is answered once, after, in order.

The Bot API double refuses every method but getUpdates with nginx's 502 page (the outage this was made for:
updates kept arriving, sends failed). Minutes pass faster here: the gate's clock and the double's outage share
a clock running `SPEED` times the wall clock, so the outage is measured in the gate's seconds.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time

import pytest

from tests.harness import make_config, running_bot
from tests.test_process import environment, start_bot
from tests.timeouts import scaled
from transport.sending import QuietOutageLogs, RealTime

ANN, BOB = 1001, 1002


class ScaledTime(RealTime):
    """A clock `factor` times faster than the wall clock, with sleeps to match."""

    def __init__(self, factor: float) -> None:
        self.factor = factor
        self.start = time.monotonic()

    def now(self) -> float:
        return self.start + (time.monotonic() - self.start) * self.factor

    async def sleep(self, delay: float, wake: asyncio.Event | None = None) -> None:
        await RealTime.sleep(delay / self.factor, wake)


def texts(telegram, chat: int) -> list[str]:
    return [message["visible_text"] for message in telegram.sent_to(chat)]


def chat_calls(model) -> list[dict]:
    """The model's chat requests for replies (not fact extraction)."""
    return [body for body in model.requests if "response_format" not in body]


def outage_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "transport.sending" and r.levelno >= logging.WARNING]


async def go_down(app, telegram, seconds: float, speed: float) -> ScaledTime:
    clock = ScaledTime(speed)
    app.bot.rate_limiter.outage.time = clock
    telegram.go_down(until=clock.now() + seconds, clock=clock.now)
    return clock


@pytest.mark.parametrize(("outage_s", "speed"), [(40, 10), (9 * 60, 60)], ids=["40 s", "9 minutes"])
async def test_messages_sent_during_an_outage_are_answered_once_after_it_in_order(
    outage_s, speed, telegram, model, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    caplog.handler.addFilter(QuietOutageLogs())  # as bot.py's log handler has it
    config = make_config(telegram, model, tmp_path / "bot.db")
    async with running_bot(config) as app:
        clock = await go_down(app, telegram, outage_s, speed)
        telegram.push_text(ANN, "one")
        telegram.push_text(BOB, "hello")
        await telegram.wait_for_call("sendMessage", 2)
        telegram.push_text(ANN, "two")  # arrives while ANN's first reply waits: queues behind it
        await asyncio.sleep(outage_s / speed / 2)
        telegram.push_text(ANN, "three")
        assert telegram.sent_to(ANN) == [] and telegram.is_down()
        await telegram.wait_for_sent(ANN, 3, timeout=outage_s / speed + 30)
        await telegram.wait_for_sent(BOB, 1)
        await asyncio.sleep(0.5)  # any second copy would come now
        store = app.bot_data.transport
        unhandled = await store.unhandled_updates()
    assert texts(telegram, ANN) == ["echo: one", "echo: two", "echo: three"]
    assert texts(telegram, BOB) == ["echo: hello"]
    assert len(chat_calls(model)) == 4  # the stored reply is what went out: no second model call
    assert telegram.refused > 0 and unhandled == []
    started, ended = outage_lines(caplog)
    assert "not taking requests (NetworkError: Bad Gateway (502)); replies wait" in started
    assert ended.startswith("Telegram takes requests again after")
    # The bot can only measure from its first refused call, which comes later on a busy machine (at 60 times the
    # wall clock, 0.1 s there is 6 s here): the outage it saw is the rest from that call on.
    first_refused = next(at for (method, _), at in zip(telegram.calls, telegram.call_times, strict=True)
                         if method != "getUpdates" and at >= clock.start)
    seen = outage_s - (first_refused - clock.start) * speed
    assert seen - 5 <= float(ended.split("after ")[1].split(" s")[0]) <= seen + 35
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_past_send_retry_minutes_the_update_waits_unhandled_and_is_answered_later_in_the_same_process(
    telegram, model, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    caplog.handler.addFilter(QuietOutageLogs())  # as bot.py's log handler has it
    config = make_config(telegram, model, tmp_path / "bot.db", send_retry_s=60.0)  # SEND_RETRY_MINUTES=1
    async with running_bot(config) as app:
        clock = await go_down(app, telegram, 4 * 60, speed=60)
        first = telegram.push_text(ANN, "one")
        telegram.push_text(BOB, "hello")
        await telegram.wait_for_call("sendMessage", 2)
        second = telegram.push_text(ANN, "two")
        while clock.now() - clock.start < 90:  # 90 s into the outage: past the 60 s window
            await asyncio.sleep(0.05)
        processor, store = app.update_processor, app.bot_data.transport
        held = processor.held
        waiting = {update_id for update_id in (first, second) if not await store.was_handled(update_id)}
        assert telegram.sent_to(ANN) == [] and len(chat_calls(model)) == 2
        await telegram.wait_for_sent(ANN, 2, timeout=30)
        await telegram.wait_for_sent(BOB, 1)
        await asyncio.sleep(0.5)
        unhandled = await store.unhandled_updates()
        held_after = processor.held
    assert held >= 2 and waiting == {first, second}  # past the window: kept, with the later one queued behind
    assert texts(telegram, ANN) == ["echo: one", "echo: two"] and texts(telegram, BOB) == ["echo: hello"]
    assert len(chat_calls(model)) == 3 and unhandled == [] and held_after == 0
    assert len(outage_lines(caplog)) == 2
    assert any("waits for Telegram" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_when_polling_fails_too_python_telegram_bot_backs_off_and_the_outage_is_said_once(
    telegram, model, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    caplog.handler.addFilter(QuietOutageLogs())
    config = make_config(telegram, model, tmp_path / "bot.db")
    async with running_bot(config):
        await telegram.wait_for_call("getUpdates")
        down_at = time.monotonic()
        telegram.go_down(until=down_at + 4, polling=True)  # the real clock: PTB's backoff is its own
        telegram.push_text(ANN, "still there?")
        [reply] = await telegram.wait_for_sent(ANN, 1, timeout=40)
    polls = [at for (name, _), at in zip(telegram.calls, telegram.call_times, strict=True) if name == "getUpdates"]
    during = [at for at in polls if down_at <= at < down_at + 4]
    lines = [r.getMessage() for r in caplog.records if "getUpdates" in r.getMessage() and r.levelno >= 30]
    assert reply["visible_text"] == "echo: still there?"
    assert len(lines) == 2 and "does not answer getUpdates (NetworkError: Bad Gateway (502))" in lines[0]
    assert lines[1].startswith("Telegram answers getUpdates again after")
    assert 2 <= len(during) <= 6  # backing off (1 s, 1.5 s, 2.25 s …), not hammering
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.timeout(120)
async def test_a_sigkill_during_an_outage_loses_no_reply_and_sends_it_once_after_the_restart(
    telegram, model, tmp_path
):
    env = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(tmp_path / "bot.db"),
    )
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("getUpdates", timeout=30)  # started: polling
        telegram.go_down()
        telegram.push_text(ANN, "are you there?")
        await model.wait_for_request(1, timeout=30)
        await telegram.wait_for_call("sendMessage", 2, timeout=30)  # the stored reply, refused and retried
        process.kill()
        await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    assert telegram.sent_to(ANN) == []
    telegram.come_back()
    process = await start_bot(env)
    try:
        [reply] = await telegram.wait_for_sent(ANN, 1, timeout=30)
        await asyncio.sleep(1.0)  # a second copy would come now
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    finally:
        if process.returncode is None:
            process.kill()
    assert reply["visible_text"] == "echo: are you there?" and len(telegram.sent_to(ANN)) == 1
    assert len(chat_calls(model)) == 1  # the reply was stored before the kill: no second model call
    assert process.returncode == 0 and "Traceback" not in stderr.decode()
