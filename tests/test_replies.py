"""send_text and typing_indicator: what reaches Telegram (a recording fake of the Bot, no network)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from telegram.constants import ChatAction

from tests.timeouts import scaled
from transport.replies import send_text, typing_indicator


class RecordingBot:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, chat_id: int, text: str, **kwargs) -> SimpleNamespace:
        assert text.strip(), "Telegram refuses an empty message"
        self.sent.append(text)
        return SimpleNamespace(message_id=len(self.sent))  # what send_text reads of the Message


async def test_an_answer_ending_in_a_run_of_nul_bytes_sends_no_empty_piece():
    bot = RecordingBot()
    await send_text(bot, 1, "echo: " + "\x00" * 4097)  # the second piece held only NULs
    assert bot.sent == ["echo:"]


async def test_nul_bytes_inside_an_answer_are_dropped_and_the_rest_kept():
    bot = RecordingBot()
    await send_text(bot, 1, "a\x00b " + "word " * 1000)
    assert "".join(bot.sent).replace(" ", "") == "ab" + "word" * 1000


class TypingBot:
    """Records when each chat action came; `actions` is set once `wanted` of them have."""

    def __init__(self, wanted: int = 1) -> None:
        self.at: list[float] = []
        self.wanted = wanted
        self.actions = asyncio.Event()

    async def send_chat_action(self, chat_id: int, action: str) -> bool:
        assert (chat_id, action) == (1, ChatAction.TYPING)
        self.at.append(time.monotonic())
        if len(self.at) >= self.wanted:
            self.actions.set()
        return True


async def test_a_block_done_before_the_delay_sends_no_typing_and_starts_no_task():
    bot, before = TypingBot(), asyncio.all_tasks()
    async with typing_indicator(bot, 1, interval=0.05, after=0.1):
        await asyncio.sleep(0.01)
        assert asyncio.all_tasks() == before
    await asyncio.sleep(0.2)  # past the delay: the timer was cancelled with the block
    assert bot.at == [] and asyncio.all_tasks() == before


async def test_a_slow_block_shows_typing_after_the_delay_renewed_every_interval_until_it_ends():
    bot = TypingBot(wanted=3)
    started = time.monotonic()
    async with typing_indicator(bot, 1, interval=0.1, after=0.2):
        await asyncio.wait_for(bot.actions.wait(), scaled(2))
    ended = len(bot.at)
    await asyncio.sleep(0.2)  # two intervals more: the renewals stopped with the block
    assert len(bot.at) == ended == 3
    assert bot.at[0] - started >= 0.2
    assert all(later - earlier >= 0.09 for earlier, later in zip(bot.at, bot.at[1:], strict=False))


async def test_typing_stops_once_the_reply_itself_shows():
    bot = TypingBot(wanted=2)
    async with typing_indicator(bot, 1, interval=0.05, after=0.05) as stop:
        await asyncio.wait_for(bot.actions.wait(), scaled(2))  # typing, then renewed, while nothing shows
        stop()  # a draft of the reply is on the screen now
        sent = len(bot.at)
        await asyncio.sleep(0.2)  # four intervals: no renewal
        assert len(bot.at) == sent


async def test_a_reply_showing_before_the_delay_sends_no_typing_and_leaves_no_timer():
    bot, before = TypingBot(), asyncio.all_tasks()
    async with typing_indicator(bot, 1, interval=0.05, after=0.05) as stop:
        stop()
        await asyncio.sleep(0.2)
        assert asyncio.all_tasks() == before  # the timer never went off: no task was started
    assert bot.at == []
