"""A reminder survives the real bot process killed with SIGKILL: before its time it is delivered once after the
restart; killed while Telegram has it but has not answered, it comes again after the restart (the documented
window, where a reminder errs on the side of twice rather than lost)."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from tests.test_crash_proactive import kill, stop, until
from tests.test_process import environment, start_bot

ANN = 4101
TASK = "позвонить маме"


@pytest.fixture
def env(telegram, model, tmp_path):
    return environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(tmp_path / "bot.db"), LOG_LEVEL="WARNING",
        EMBEDDINGS="hashing", MEMORY_EXTRACT_DELAY_SECONDS="3600",
    )


def reminders(telegram) -> list[dict]:
    return [m for m in telegram.sent_to(ANN) if TASK in m["visible_text"]]


def attempts(telegram) -> list[dict]:
    """Every sendMessage of the reminder Telegram received, answered or not."""
    return [params for name, params in telegram.calls if name == "sendMessage" and TASK in str(params.get("text"))]


def set_reminder(database, seconds: float) -> datetime:
    """Put a reminder due `seconds` from now straight into the database (the user has a row); return its time."""
    due = datetime.now(timezone.utc) + timedelta(seconds=seconds)
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO reminders (user_id, chat_id, task, due_at, zone, created_at) VALUES (?, ?, ?, ?, 'UTC', ?)",
            (ANN, ANN, TASK, due.isoformat(), datetime.now(timezone.utc).isoformat()),
        )
    return due


async def met(telegram, env) -> asyncio.subprocess.Process:
    process = await start_bot(env)
    telegram.push_text(ANN, "привет", language_code="ru")
    await telegram.wait_for_sent(ANN, 1, timeout=30)
    return process


@pytest.mark.timeout(120)
async def test_killed_just_before_its_time_it_is_delivered_once_after_the_restart(telegram, model, env, tmp_path):
    process = await met(telegram, env)
    try:
        due = set_reminder(tmp_path / "bot.db", 2.0)
        await asyncio.sleep(1.0)
    finally:
        await kill(process)
    await asyncio.sleep(max(0.0, (due - datetime.now(timezone.utc)).total_seconds()) + 0.5)
    assert reminders(telegram) == []
    process = await start_bot(env)
    try:
        await until(lambda: len(reminders(telegram)) == 1, 30)
        await asyncio.sleep(2.0)  # more sweeps: nothing more is sent
    finally:
        await stop(process)
    assert len(reminders(telegram)) == 1


@pytest.mark.timeout(120)
async def test_killed_while_telegram_has_it_it_comes_again_rather_than_never(telegram, model, env, tmp_path):
    await stop(await met(telegram, env))
    # Due as the bot starts again (a running bot learns of reminders from its own turns, not from under it).
    set_reminder(tmp_path / "bot.db", 0.5)
    telegram.delay("sendMessage", 30)  # Telegram has the reminder but has not answered yet
    process = await start_bot(env)
    try:
        await until(lambda: len(attempts(telegram)) == 1, 30)
    finally:
        await kill(process)
    telegram.delay("sendMessage", 0)
    process = await start_bot(env)
    try:
        await until(lambda: len(attempts(telegram)) == 2, 30)
        await asyncio.sleep(2.0)
    finally:
        await stop(process)
    assert len(attempts(telegram)) == 2  # once more after the restart, and no more
    with sqlite3.connect(tmp_path / "bot.db") as db:
        assert db.execute("SELECT state FROM reminders").fetchall() == [("done",)]
