"""End to end: no update deafens the bot or is lost.

An update the library cannot read is skipped with one warning; a turn the database cannot finish (a full disk, a
dropped PostgreSQL connection) waits, unhandled, and is answered once the store works again; a user who blocked
the bot is marked blocked, without an apology or an ERROR.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

import transport.ordering as ordering
from tests.conftest import fetch
from tests.harness import make_config, running_bot
from transport.logs import WithholdUpdateData

ANN, BOB = 1001, 1002


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", embeddings="hashing")


@pytest.fixture
def quick_retry(monkeypatch):
    monkeypatch.setattr(ordering, "HELD_RETRY_S", 0.2)


def bot_log_lines(caplog, level: int) -> list[logging.LogRecord]:
    """Return the bot's log records at `level` or above, as its log handler lets them through."""
    shown = WithholdUpdateData()
    return [r for r in caplog.records
            if r.levelno >= level and not r.name.startswith(("aiohttp", "tests")) and shown.filter(r)]


@pytest.mark.parametrize("poison", [
    {"message": "hello"},
    {"message": ["a", 1]},
    {"message": {"message_id": 1, "date": 1, "chat": "nope", "text": "x"}},
    {"edited_message": 42},
    {"callback_query": {"id": "1"}},
])
async def test_a_poison_update_in_polling_is_skipped_and_the_next_is_answered(telegram, model, config, caplog,
                                                                              poison):
    async with running_bot(config) as app:
        bad = telegram.push_update(poison)
        telegram.push_text(ANN, "still there?")
        started = time.monotonic()
        [reply] = await telegram.wait_for_sent(ANN, 1, timeout=5)
        assert time.monotonic() - started < 2.0
        assert await app.bot_data.transport.was_handled(bad)
    assert reply["visible_text"] == "echo: still there?"
    warnings = bot_log_lines(caplog, logging.WARNING)
    assert len(warnings) == 1 and f"update {bad} could not be read" in warnings[0].getMessage()
    assert warnings[0].exc_info is None


async def test_a_user_who_blocked_the_bot_is_marked_blocked_without_an_apology(telegram, model, config, caplog):
    caplog.set_level(logging.INFO)
    async with running_bot(config) as app:
        telegram.push_text(ANN, "hello")
        await telegram.wait_for_sent(ANN, 1)
        caplog.clear()
        telegram.block(ANN)
        telegram.push_update({"message": {"message_id": 99, "date": int(time.time()), "text": "one more",
                                          "from": telegram._users[ANN], "chat": telegram._chats[ANN]}})
        await model.wait_for_request(2)
        await telegram.wait_for_call("sendMessage", 2)  # the refused reply
        await asyncio.sleep(0.3)
        [blocked_at] = await fetch(app.bot_data.store, "SELECT blocked_at FROM users WHERE id = ?", (ANN,))
        assert blocked_at[0] is not None
        refused = [p for m, p in telegram.calls if m == "sendMessage"][1:]
        assert len(refused) == 1  # no apology was attempted after the 403
        assert bot_log_lines(caplog, logging.ERROR) == []
        assert any("blocked the bot" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records)
        telegram.push_text(ANN, "I'm back")  # writing again unblocks them
        await telegram.wait_for_sent(ANN, 2)
        [blocked_at] = await fetch(app.bot_data.store, "SELECT blocked_at FROM users WHERE id = ?", (ANN,))
    assert blocked_at[0] is None


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs the test fills up (mounting needs root, as CI and the developers' machines have)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; return the filler, whose removal makes room again."""
    filler = disk / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as out:
        while True:
            out.write(b"\0" * 4096)
            out.flush()
    return filler


async def test_a_turn_on_a_full_disk_waits_and_is_answered_once_there_is_room(telegram, model, config, small_disk,
                                                                             caplog, quick_retry):
    config = replace(config, database_path=small_disk / "bot.db")
    filled: list[Path] = []

    def reply(body: dict) -> str:
        if "disk" in body["messages"][-1]["content"] and not filled:
            filled.append(fill(small_disk))  # the reply cannot be stored: the turn fails after the model answered
        return "echo: " + body["messages"][-1]["content"]

    model.reply = reply
    async with running_bot(config):
        telegram.push_text(ANN, "hello")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "the disk is about to fill up")
        telegram.push_text(ANN, "and this comes after it")
        await model.wait_for_request(2)
        await asyncio.sleep(1.0)
        assert len(telegram.sent_to(ANN)) == 1  # neither answered nor apologised for while the disk is full
        filled[0].unlink()
        replies = await telegram.wait_for_sent(ANN, 3, timeout=10)
    assert [r["visible_text"] for r in replies[1:]] == ["echo: the disk is about to fill up",
                                                         "echo: and this comes after it"]
    assert bot_log_lines(caplog, logging.ERROR) == []
    assert any("waits for the database" in r.getMessage() for r in caplog.records)


async def test_a_dropped_postgresql_connection_mid_turn_is_tried_again(telegram, model, config, pg_url, quick_retry,
                                                                       caplog):
    import asyncpg

    config = replace(config, database_url=pg_url)
    dropped: list[bool] = []

    async def drop_connections() -> None:
        admin = await asyncpg.connect(pg_url)
        try:
            await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                                " AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')")
        finally:
            await admin.close()

    async def slow_reply_then_drop() -> None:
        await model.wait_for_request(2)
        await drop_connections()
        dropped.append(True)

    model.delay = 0.5
    async with running_bot(config):
        telegram.push_text(ANN, "hello")
        await telegram.wait_for_sent(ANN, 1)
        dropping = asyncio.create_task(slow_reply_then_drop())
        telegram.push_text(ANN, "are you still there?")
        await dropping
        replies = await telegram.wait_for_sent(ANN, 2, timeout=15)
    assert dropped and replies[1]["visible_text"] == "echo: are you still there?"
    assert len(telegram.sent_to(ANN)) == 2
    assert not any(r.levelno >= logging.ERROR and r.name.startswith(("handlers", "transport", "services"))
                   for r in caplog.records)
