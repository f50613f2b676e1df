"""A message written first is sent at most once: the real bot process, killed with SIGKILL around the send.

Choosing a due item, writing it with the model and claiming it (its due time cleared and its text put in
the session, one transaction) all come before Telegram is called. A kill before the claim leaves the item
due, and the restarted bot sends it. A kill after the claim, while Telegram has not answered, is the one
window no bot can close: it cannot know whether Telegram delivered the message. The bot treats the item
as sent, so it may be lost but is never sent twice.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time

import pytest

from tests.test_process import environment, start_bot
from tests.timeouts import scaled

ANN = 4001
CHECK_IN = "Как там Мурка? Давно не слышала о ней."


def reply(body: dict) -> str:
    if "Write to them first" in body["messages"][0]["content"]:
        return CHECK_IN
    return "echo: " + body["messages"][-1]["content"]


@pytest.fixture
def env(telegram, model, tmp_path):
    model.reply = reply
    settings = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(tmp_path / "bot.db"), LOG_LEVEL="WARNING",
    )
    # A check-in 1.8 s after the last message, looked for every 0.2 s, at any hour of the test's day.
    settings.update(EMBEDDINGS="hashing", MEMORY_EXTRACT_DELAY_SECONDS="3600", CHECKIN_AFTER_HOURS="0.0005",
                    PROACTIVE_SWEEP_SECONDS="0.2", QUIET_HOURS="")
    return settings


def check_ins(telegram) -> list[dict]:
    return [m for m in telegram.sent_to(ANN) if m["visible_text"].startswith(CHECK_IN)]


async def stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(process.communicate(), scaled(60))
    assert process.returncode == 0, stderr.decode()[-2000:]


async def kill(process: asyncio.subprocess.Process) -> None:
    assert process.returncode is None
    process.kill()
    await process.communicate()


async def until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


@pytest.mark.timeout(120)
async def test_a_kill_while_the_message_is_written_leaves_it_due_and_it_is_sent_once_after_restart(
    telegram, model, env
):
    process = await start_bot(env)
    try:
        telegram.push_text(ANN, "У меня есть кошка Мурка", language_code="ru")
        await telegram.wait_for_sent(ANN, 1, timeout=30)
        model.delay = 30  # the model is still writing the check-in when the kill comes
        await until(lambda: any("Write to them first" in r["messages"][0]["content"] for r in model.requests))
    finally:
        await kill(process)
    assert check_ins(telegram) == []
    model.delay = 0
    process = await start_bot(env)
    try:
        await until(lambda: len(check_ins(telegram)) == 1)
        await asyncio.sleep(1.5)  # several more sweeps: nothing more is sent
    finally:
        await stop(process)
    assert len(check_ins(telegram)) == 1


@pytest.mark.timeout(120)
async def test_a_kill_after_the_claim_before_telegram_answers_never_sends_it_twice(telegram, model, env, tmp_path):
    process = await start_bot(env)
    try:
        telegram.push_text(ANN, "У меня есть кошка Мурка", language_code="ru")
        await telegram.wait_for_sent(ANN, 1, timeout=30)
        telegram.delay("sendMessage", 30)  # Telegram has the check-in but has not answered yet
        sends = sum(1 for name, _ in telegram.calls if name == "sendMessage")
        await until(lambda: sum(1 for name, _ in telegram.calls if name == "sendMessage") > sends)
    finally:
        await kill(process)
    telegram.delay("sendMessage", 0)
    with sqlite3.connect(tmp_path / "bot.db") as db:
        claimed = db.execute("SELECT content FROM messages WHERE kind = 'checkin'").fetchall()
        due = db.execute("SELECT checkin_at FROM users WHERE id = ?", (ANN,)).fetchone()[0]
    assert claimed == [(CHECK_IN,)] and due is None  # claimed before the call to Telegram
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("getUpdates", count=3, timeout=30)
        await asyncio.sleep(2.0)  # ten sweeps of the restarted bot
    finally:
        await stop(process)
    assert check_ins(telegram) == []  # lost in the window, as documented; never sent twice
