"""Crash safety: the real bot process, killed with SIGKILL at random moments, restarted on the same database.

Messages from a few users keep arriving at the Bot API double (which, like Telegram, keeps what the bot
has not acknowledged). The bot is killed 30 times, each time at a random moment up to half a second
after it starts polling, while it works through the backlog; a last run then answers what is left and
stops with SIGTERM. After every kill the database must pass `PRAGMA integrity_check` and hold no
duplicated or half-written turn; at the end every message must have been answered.

The 30 kills come in 6 runs of 5, each on its own database and doubles with its own random moments, so that
parallel workers (pytest-xdist) share them out; each run asserts all of the above.

Exactly once has one window no bot can close: between Telegram accepting a reply and the bot writing
down that it did. A kill there leaves the bot unsure, and it sends the stored reply again rather than
leave the message unanswered. So after each kill the test looks in the inbox for updates not marked
handled whose reply Telegram already has: each such doubt allows one more copy of that answer. Any other
repeated answer fails the test, and so does any message never answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import time
from collections import Counter

import pytest

from tests.test_process import environment, start_bot
from tests.timeouts import scaled

KILLS = 30
KILLS_PER_RUN = 5  # 6 runs, each on its own database and doubles
USERS = (3001, 3002, 3003, 3004)
# At most this many messages wait for their answer: every kill still finds a backlog to be killed in the middle
# of, and a machine slowed by parallel tests gets fewer messages, not a longer last run.
BACKLOG = 250


def unsure_after_kill(path, sent: set[str]) -> set[str]:
    """Texts of updates the bot had not marked handled although Telegram already had their answer."""
    with sqlite3.connect(path) as db:
        payloads = [row[0] for row in db.execute("SELECT payload FROM inbox WHERE handled_at IS NULL")]
    texts = {json.loads(payload)["message"]["text"] for payload in payloads}
    return {text for text in texts if "echo: " + text in sent}


def check_database(path) -> None:
    """The file is sound, and each user's session is whole: no message twice, every reply answers one message."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = db.execute("SELECT id, user_id, role, content, reply_to FROM messages ORDER BY id").fetchall()
    user_texts = Counter((user, content) for _id, user, role, content, _ in rows if role == "user")
    assert max(user_texts.values(), default=1) == 1, "a user message stored twice"
    replies = [reply_to for *_, role, _content, reply_to in rows if role == "assistant"]
    assert None not in replies and len(replies) == len(set(replies)), "a reply without its message, or two"
    by_id = {row[0]: row for row in rows}
    for _id, user, role, content, reply_to in rows:
        if role == "assistant" and reply_to in by_id:  # its message may have been pruned since
            asked = by_id[reply_to]
            assert asked[1] == user and asked[2] == "user" and content == "echo: " + asked[3]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("first", range(0, KILLS, KILLS_PER_RUN), ids=lambda k: f"kills {k + 1}-{k + KILLS_PER_RUN}")
async def test_thirty_sigkills_lose_no_message_and_answer_none_twice(first, telegram, model, tmp_path, record_property):
    database = tmp_path / "bot.db"
    env = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(database), LOG_LEVEL="WARNING",
    )
    env.update(EMBEDDINGS="hashing", MEMORY_EXTRACT_DELAY_SECONDS="1", MEMORY_EXTRACT_EVERY="3")
    model.delay = 0.03
    chance = random.Random(20261129 + first)
    pushed: list[tuple[int, str]] = []

    async def keep_talking() -> None:
        for n in range(10**6):
            while len(pushed) - len(telegram.sent) >= BACKLOG:
                await asyncio.sleep(0.05)
            user = chance.choice(USERS)
            text = f"message {n} from {user}: I live in Berlin and I have a dog"
            telegram.push_text(user, text)
            pushed.append((user, text))
            await asyncio.sleep(chance.uniform(0.02, 0.06))  # about as fast as the bot answers

    talker = asyncio.create_task(keep_talking())
    in_doubt: set[tuple[str, int]] = set()  # (text, copies sent so far) when a kill left its answer in doubt
    try:
        for _ in range(KILLS_PER_RUN):
            polls = sum(1 for name, _ in telegram.calls if name == "getUpdates")
            process = await start_bot(env)
            try:
                await telegram.wait_for_call("getUpdates", count=polls + 1, timeout=60)
                await asyncio.sleep(chance.uniform(0.0, 0.5))
            finally:
                alive = process.returncode is None
                if alive:
                    process.kill()
                _, stderr = await process.communicate()
                assert alive, stderr.decode()[-2000:]  # a bot that died by itself says why, even before polling
            await asyncio.sleep(0.1)  # let the double finish what the bot sent just before dying
            check_database(database)
            copies = Counter(m["visible_text"] for m in telegram.sent)
            in_doubt |= {(text, copies["echo: " + text]) for text in unsure_after_kill(database, set(copies))}
        talker.cancel()
        process = await start_bot(env)
        try:
            answered, last_progress = 0, time.monotonic()  # a slow machine gets longer; a stuck bot does not
            while answered < len(pushed) and time.monotonic() - last_progress < scaled(60):
                await asyncio.sleep(0.2)
                now_answered = len({m["visible_text"] for m in telegram.sent})
                if now_answered > answered:
                    answered, last_progress = now_answered, time.monotonic()
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                _, stderr = await asyncio.wait_for(process.communicate(), scaled(60))
            except TimeoutError:
                process.kill()  # not left running into the next tests
                raise
    finally:
        talker.cancel()
    assert process.returncode == 0, stderr.decode()[-2000:]
    check_database(database)

    answers = Counter(message["visible_text"] for message in telegram.sent)
    lost = [text for _user, text in pushed if answers["echo: " + text] == 0]
    assert not lost, f"{len(lost)} of {len(pushed)} messages never answered, e.g. {lost[:3]}"
    doubts = Counter(text for text, _copies in in_doubt)  # each doubt allows one more copy
    extra = {text: answers["echo: " + text] - 1 for _user, text in pushed if answers["echo: " + text] > 1}
    unexplained = {text: n for text, n in extra.items() if n > doubts[text]}
    assert not unexplained, f"answered more often than kills left in doubt: {list(unexplained.items())[:3]}"
    others = {text: n for text, n in answers.items() if not text.startswith("echo: ")}
    assert not others, f"replies that are not answers: {others}"
    assert os.path.getsize(database) > 0
    # The closing line: this run's own, and the sum over all runs at the end of the session (tests/conftest.py).
    tally = {"messages": len(pushed), "kills": KILLS_PER_RUN, "in doubt": sum(doubts.values()),
             "sent again": sum(extra.values())}
    for name, count in tally.items():
        record_property(f"sigkills: {name}", count)
    print(f"\n{tally['messages']} messages, {tally['kills']} kills, all answered; {tally['in doubt']} answers left in"
          f" doubt by a kill right after sending, {tally['sent again']} sent again")
