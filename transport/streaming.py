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

from services.media import seconds
from transport.formatting import split_message
from transport.replies import send_formatted

log = logging.getLogger(__name__)
CLOSE_WAIT_S = 5.0  # at the end of a turn, how long a draft already on its way may take to finish
# The first draft waits this long after the first words: a reply complete by then goes straight out as a
# message, sparing a draft nobody would see (and a Bot API call).
FIRST_DRAFT_DELAY_S = 0.15
EARLY_S = 0.02  # a draft this close to due goes with the text read now
# Each draft after the second waits half an interval longer than the one before it, up to twice the interval
# (1, 1.5, 2, 2, … seconds at the default): a model writes far faster than a person reads (40 tokens a second
# is some 160 characters against some 20 read), so every draft leaves more unread on the screen than the next
# gap takes to read, and a reply of 2.5 s needs two drafts, not three (each costs a request, issue 42).
GAP_GROWTH = 0.5
MAX_GAP = 2.0
LATE_S = 0.25  # a draft due with no text read for it goes this much later, with what there is


class DraftPacer:
    """Decides when the text so far is shown: `first_delay` after the first words, then `interval` seconds
    after the first draft, and further apart after each later one (GAP_GROWTH, up to MAX_GAP intervals); only
    when it grew."""

    def __init__(self, interval: float, first_delay: float = FIRST_DRAFT_DELAY_S) -> None:
        self.interval, self.first_delay = interval, first_delay
        self.started: float | None = None
        self.shown = ""
        self.shown_at: float | None = None
        self.drafts = 0  # sent (or on their way)
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
            earliest = self.shown_at + self.gap()
        return max(0.0, max(earliest, self.paused_until) - now)

    def gap(self) -> float:
        """Return how long after the last draft the next may go."""
        return self.interval * min(MAX_GAP, 1.0 + GAP_GROWTH * max(0, self.drafts - 1))

    def worth_showing(self, text: str) -> bool:
        """True when `text` is longer than what is shown (a restarted answer waits until it overtakes it)."""
        return bool(text.strip()) and len(text) > len(self.shown)

    def showed(self, text: str, now: float) -> None:
        """Note that `text` is now on screen."""
        self.shown, self.shown_at = text, now
        self.drafts += 1

    def failed(self, shown_before: str) -> None:
        """Note that the last draft did not show: the screen still holds `shown_before`."""
        self.shown = shown_before
        self.drafts -= 1

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
    """Shows one reply as drafts while the model writes it; `show` is called with the text so far.

    A draft goes out from `show` itself when one is due, riding on the wake-up that read the text (each wake-up
    of the process costs more than the work it does, issue 42): `show` tells the reader when the next is due,
    and the reader reads again then (llm/client.py's `on_text`). Only when no text comes by then (the model
    pauses) does a timer send what there is, LATE_S later.
    """

    def __init__(self, drafts: Drafts, bot: Bot, chat_id: int, draft_id: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.drafts, self.bot, self.chat_id, self.draft_id = drafts, bot, chat_id, draft_id
        self.clock = clock
        self.pacer = DraftPacer(drafts.interval)
        self.latest: Callable[[], str] = str  # reads the text so far; "" before the first piece
        # Called once a draft is on the screen: "typing…" stops, the first words' latency is observed.
        self._on_shown: list[Callable[[], None]] = []
        self.sent = 0
        self._closing = False
        self._grew = False  # text came while a draft was on its way
        self._task: asyncio.Task | None = None  # the draft on its way
        self._timer: asyncio.TimerHandle | None = None

    def show(self, read: Callable[[], str]) -> float | None:
        """Take a reader of the text written so far (the text is read only when a draft goes out), and send a
        draft now if one is due. Return in how many seconds the next may go (None: no more will)."""
        self.latest = read
        now = self.clock()
        self.pacer.begin(now)
        if self._closing or not self.drafts.enabled:
            return None
        if self._task is None and self.pacer.wait(now) <= EARLY_S:
            self._send_latest(now)
        if self._task is not None:
            self._grew = True
        else:
            self._arm(now)
        return self.pacer.wait(now)

    def when_shown(self, callback: Callable[[], None]) -> None:
        """Call `callback` once a draft is on the screen (at once if one is already): "typing…" stops then, say."""
        self._on_shown.append(callback)
        if self.sent:
            callback()

    async def close(self) -> None:
        """Stop sending drafts; a draft already on its way is let finish, so none arrives after the reply."""
        self._closing = True
        self._disarm()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(self._task, CLOSE_WAIT_S)

    def _arm(self, now: float) -> None:
        """Send what there is LATE_S after the next draft is due, unless text read by then sends it first."""
        if self._timer is None:
            delay = self.pacer.wait(now) + LATE_S
            self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        self._timer = None
        if not self._closing and self.drafts.enabled and self._task is None:
            self._send_latest(self.clock())

    def _send_latest(self, now: float) -> None:
        text = self.latest()
        if not self.pacer.worth_showing(text):
            return
        self._disarm()
        shown = self.pacer.shown
        self.pacer.showed(text, now)  # the interval counts from when a draft leaves
        self._grew = False
        self._task = asyncio.create_task(self._send(text, shown))

    async def _send(self, text: str, shown_before: str) -> None:
        try:
            shown = await self._send_draft(draft_text(text))
        finally:
            self._task = None
        if shown:
            self.sent += 1
            for callback in self._on_shown:
                callback()
        else:
            self.pacer.failed(shown_before)  # the same text is worth another try
        if (self._grew or not shown) and not self._closing and self.drafts.enabled:
            self._arm(self.clock())

    async def _send_draft(self, piece: str) -> bool:
        """Send one draft; return whether it is on the screen."""
        try:
            await send_formatted(functools.partial(self.bot.send_message_draft, self.chat_id, self.draft_id), piece)
            return True
        except RetryAfter as error:
            self.pacer.pause(seconds(error.retry_after) or 0.0, self.clock())  # then what there is by then
        except (BadRequest, InvalidToken) as error:  # 400, or 404 from an older server without the method
            self.drafts.refused(error)
        except Forbidden:
            self._closing = True  # the user blocked the bot; the reply will fail on its own
        except TelegramError as error:
            log.debug("a draft could not be shown: %s", error)
        except Exception:  # noqa: BLE001 - a preview must never cost the reply
            log.exception("showing a draft failed; this reply is not streamed further")
            self._closing = True
        return False
