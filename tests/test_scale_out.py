"""Two real bot processes in webhook mode on one PostgreSQL database, behind a "load balancer" that is this test:
every update goes to one of them at random. Every message is answered exactly once and each user's replies
come in order; a process killed with SIGKILL mid-burst loses nothing (what it never acknowledged is sent to
the survivor, as Telegram would; what it acknowledged but never handled, the survivor finds in the inbox)."""

from __future__ import annotations

import asyncio
import random
import signal
from collections import defaultdict

import pytest

from tests.test_process import environment, start_bot
from tests.timeouts import scaled
from tests.webhook_bots import SECRET, WEBHOOK_URL, Bots, text_update

USERS = [4000 + number for number in range(50)]
PER_USER = 4


@pytest.fixture
async def bots(telegram, model, pg_url):
    for user_id in USERS:  # so the double knows these chats (nothing polls it in webhook mode)
        telegram.push_text(user_id, "hello")
    model.delay = 0.05  # a turn takes a moment, so updates of one user overlap across the two processes
    started = Bots(environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_URL=pg_url, WEBHOOK_URL=WEBHOOK_URL,
        WEBHOOK_SECRET=SECRET, PROACTIVE="off", MEMORY_EXTRACT_DELAY_SECONDS="3600", STREAM_REPLIES="off",
    ))
    await started.start(2)
    yield started
    await started.stop()


def replies_by_user(telegram) -> dict[int, list[str]]:
    replies = defaultdict(list)
    for message in telegram.sent:
        replies[message["chat_id"]].append(message["visible_text"])
    return replies


async def wait_for_replies(telegram, count: int, timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while len(telegram.sent) < count:
        assert asyncio.get_running_loop().time() < deadline, f"{len(telegram.sent)} of {count} replies came"
        await asyncio.sleep(0.1)


def messages() -> dict[int, list[tuple[int, str]]]:
    """Each user's updates: (update_id, text), in the order Telegram numbers them."""
    update_id = 1000
    planned = defaultdict(list)
    for turn in range(PER_USER):
        for user_id in USERS:
            update_id += 1
            planned[user_id].append((update_id, f"message {turn} of {user_id}"))
    return planned


@pytest.mark.timeout(240)
async def test_fifty_users_spread_over_two_processes_are_answered_once_each_in_order(bots, telegram):
    planned, rng = messages(), random.Random(15)

    async def one_user(user_id: int) -> None:
        for update_id, text in planned[user_id]:
            assert await bots.post(rng.randrange(2), text_update(update_id, user_id, text))

    await asyncio.gather(*(one_user(user_id) for user_id in USERS))
    await wait_for_replies(telegram, len(USERS) * PER_USER, 120)
    await asyncio.sleep(1)  # a late duplicate would show up by now
    replies = replies_by_user(telegram)
    for user_id in USERS:
        assert replies[user_id] == [f"echo: {text}" for _, text in planned[user_id]], user_id


@pytest.mark.timeout(240)
async def test_two_processes_share_one_telegram_rate(bots, telegram):
    first = len(telegram.calls)
    await asyncio.gather(*(bots.post(n % 2, text_update(9000 + n, user_id, f"burst from {user_id}"))
                           for n, user_id in enumerate(USERS + USERS)))
    await wait_for_replies(telegram, 2 * len(USERS), 120)
    times = telegram.call_times[first:]
    requests, span = len(times), times[-1] - times[0]
    # One bucket, 30 a second with one saved up: n requests take at least (n - 1) / 30 s (3 of slack for the
    # jitter of loopback). Two buckets (one per process, as before) would let them through twice as fast.
    assert requests >= 2 * len(USERS)  # the replies (typing actions only when a token is free)
    assert requests - 1 <= 30 * span + 3, f"{requests} requests in {span:.2f} s"


@pytest.mark.timeout(240)
async def test_a_process_killed_mid_burst_loses_nothing(bots, telegram):
    planned, rng = messages(), random.Random(16)
    killed = asyncio.Event()

    async def one_user(user_id: int) -> None:
        for update_id, text in planned[user_id]:
            update = text_update(update_id, user_id, text)
            target = 1 if killed.is_set() else rng.randrange(2)
            if not await bots.post(target, update):  # never acknowledged: Telegram sends it again
                assert target == 0 and killed.is_set()
                assert await bots.post(1, update)

    async def kill_soon() -> None:
        while len(telegram.sent) < len(USERS):  # mid-burst: a quarter of the replies are out
            await asyncio.sleep(0.01)
        bots.bots[0].process.send_signal(signal.SIGKILL)
        killed.set()

    await asyncio.gather(kill_soon(), *(one_user(user_id) for user_id in USERS))
    await wait_for_replies(telegram, len(USERS) * PER_USER, 150)
    await asyncio.sleep(1)
    replies = replies_by_user(telegram)
    for user_id in USERS:
        expected = [f"echo: {text}" for _, text in planned[user_id]]
        # Nothing lost, in order. A kill between Telegram taking a reply and the bot noting it leaves one
        # reply the survivor cannot know was sent: it sends it again (the one window no bot can close).
        assert list(dict.fromkeys(replies[user_id])) == expected, user_id
    assert sum(len(replies[user_id]) for user_id in USERS) - len(USERS) * PER_USER <= 4


@pytest.mark.timeout(120)
async def test_a_second_poller_on_the_same_database_says_why_and_exits(telegram, model, pg_url):
    env = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_URL=pg_url, PROACTIVE="off",
    )
    first = await start_bot(env)
    try:
        await telegram.wait_for_call("getUpdates", 1, timeout=60)  # the first one polls
        second = await start_bot(env)
        _, stderr = await asyncio.wait_for(second.communicate(), scaled(60))
        assert second.returncode == 2
        lines = stderr.decode().strip().splitlines()
        assert lines[-1].startswith("error: another process is already polling Telegram")
        assert "WEBHOOK_URL" in lines[-1] and "Traceback" not in stderr.decode()
        assert first.returncode is None  # the first one goes on
    finally:
        first.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.wait(), scaled(20))
    assert first.returncode == 0
