"""Replies shown as they are written: Telegram drafts (sendMessageDraft) in private chats.

The model's text so far goes out as a draft at most every STREAM_INTERVAL_MS and only when it has grown; it
is read (`show` gets a reader of it, services/companion.py's DraftReader) only when a draft is about to go out;
the finished reply is then sent as an ordinary message. Drafts are previews: they never delay the reply,
and a Bot API server that refuses them turns streaming off for the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from typing import Callable

from telegram import Bot
from telegram.error import BadRequest, Forbidden, InvalidToken, RetryAfter, TelegramError

from handlers.transport.formatting import split_message
from handlers.transport.replies import send_formatted
from services.media import seconds

log = logging.getLogger(__name__)
CLOSE_WAIT_S = 5.0  # at the end of a turn, how long a draft already on its way may take to finish
# The first draft waits this long after the first words: a reply complete by then goes straight out as a
# message, sparing a draft nobody would see (and a Bot API call).
FIRST_DRAFT_DELAY_S = 0.15


class DraftPacer:
    """Decides when the text so far is shown: `first_delay` after the first words, then at most once per
    `interval` seconds, and only when it grew."""

    def __init__(self, interval: float, first_delay: float = FIRST_DRAFT_DELAY_S) -> None:
        self.interval, self.first_delay = interval, first_delay
        self.started: float | None = None
        self.shown = ""
        self.shown_at: float | None = None
        self.paused_until = 0.0

    def begin(self, now: float) -> None:
        """Note when the first words arrived."""
        if self.started is None:
            self.started = now

    def wait(self, now: float) -> float:
        """Return how many seconds to wait before the next draft may go out."""
        if self.shown_at is None:
            earliest = (now if self.started is None else self.started) + self.first_delay
        else:
            earliest = self.shown_at + self.interval
        return max(0.0, max(earliest, self.paused_until) - now)

    def worth_showing(self, text: str) -> bool:
        """True when `text` is longer than what is shown (a restarted answer waits until it overtakes it)."""
        return bool(text.strip()) and len(text) > len(self.shown)

    def showed(self, text: str, now: float) -> None:
        """Note that `text` is now on screen."""
        self.shown, self.shown_at = text, now

    def pause(self, seconds: float, now: float) -> None:
        """Send nothing for `seconds` (Telegram asked to slow down)."""
        self.paused_until = now + seconds


def draft_text(text: str) -> str:
    """Return the part of the answer a draft can show: the piece being written, when it is past 4096 characters."""
    pieces = split_message(text)
    return pieces[-1] if pieces else ""


class Drafts:
    """The process's switch for streamed replies; opens one DraftStream per turn."""

    def __init__(self, enabled: bool, interval: float) -> None:
        self.enabled = enabled
        self.interval = interval

    def open(self, bot: Bot, chat_id: int, draft_id: int) -> "DraftStream | None":
        """Return a stream of drafts for one reply, or None when streaming is off."""
        return DraftStream(self, bot, chat_id, draft_id) if self.enabled else None

    def refused(self, error: TelegramError) -> None:
        """Turn streaming off for the process: the Bot API server does not take drafts."""
        if self.enabled:
            self.enabled = False
            log.warning("the Bot API server refused sendMessageDraft (%s); replies are no longer streamed", error)


class DraftStream:
    """Shows one reply as drafts while the model writes it; `show` is called with the text so far."""

    def __init__(self, drafts: Drafts, bot: Bot, chat_id: int, draft_id: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.drafts, self.bot, self.chat_id, self.draft_id = drafts, bot, chat_id, draft_id
        self.clock = clock
        self.pacer = DraftPacer(drafts.interval)
        self.latest: Callable[[], str] = str  # reads the text so far; "" before the first piece
        self.sent = 0
        self._changed = asyncio.Event()
        self._closing = False
        self._sending = False
        self._task: asyncio.Task | None = None

    def show(self, read: Callable[[], str]) -> None:
        """Take a reader of the text written so far (called for every streamed piece; the text is read only when
        a draft may go out; a task started at the first sends)."""
        self.latest = read
        self._changed.set()
        if self._task is None and not self._closing:
            self.pacer.begin(self.clock())
            self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        """Stop sending drafts; a draft already on its way is let finish, so none arrives after the reply."""
        self._closing = True
        if self._task is None:
            return
        if self._sending:
            self._changed.set()
        else:
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
            await asyncio.wait_for(self._task, CLOSE_WAIT_S)

    async def _run(self) -> None:
        while True:
            await self._changed.wait()
            if self._closing or not self.drafts.enabled:
                return
            await asyncio.sleep(self.pacer.wait(self.clock()))
            self._changed.clear()
            text = self.latest()
            if self.pacer.worth_showing(text):
                self._sending = True
                try:
                    await self._send(text)
                finally:
                    self._sending = False

    async def _send(self, text: str) -> None:
        piece = draft_text(text)
        try:
            await send_formatted(functools.partial(self.bot.send_message_draft, self.chat_id, self.draft_id), piece)
        except RetryAfter as error:
            self.pacer.pause(seconds(error.retry_after) or 0.0, self.clock())
            self._changed.set()  # try again with whatever text there is by then
            return
        except (BadRequest, InvalidToken) as error:  # 400, or 404 from an older server without the method
            self.drafts.refused(error)
            return
        except Forbidden:
            self._closing = True  # the user blocked the bot; the reply will fail on its own
            return
        except TelegramError as error:
            log.debug("a draft could not be shown: %s", error)
            return
        except Exception:  # noqa: BLE001 - a preview must never cost the reply
            log.exception("showing a draft failed; this reply is not streamed further")
            self._closing = True
            return
        self.sent += 1
        self.pacer.showed(text, self.clock())

