"""Every request to Telegram passes here: one rate for the bot, a 429 obeyed per chat, and outages waited out.

A request to a chat (or for a file) that Telegram cannot take (a 5xx, a timeout, a refused connection) is tried
again with backoff for up to SEND_RETRY_MINUTES; then, or at once when the bot is stopping, it raises
SendPostponed, and the update being handled stays unhandled and is handled again later
(transport/ordering.py). A moment's signal (the "typing…" action, a draft of a reply, the answer to
a pressed button) is never retried, and during an outage is dropped unsent. Start-up calls go once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from aiolimiter import AsyncLimiter
from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.ext import BaseRateLimiter

from memory.store.backends import database_errors
from services.media import seconds
from transport.send_budget import Budget

log = logging.getLogger(__name__)
MOMENTARY = frozenset({"sendChatAction", "sendMessageDraft", "answerCallbackQuery"})
UNLIMITED = frozenset({"sendMessageDraft"})  # a preview goes at once: it must never queue a reply behind it
BACKOFF_CAP_S = 30.0
GROUP_RATE = (20, 60.0)  # Telegram's limit for one group: 20 messages a minute


def backoff(attempt: int) -> float:
    """Seconds to wait before try `attempt + 1` of a request Telegram could not take: 1, 2, 4, … up to 30."""
    return min(BACKOFF_CAP_S, 2.0 ** min(attempt, 16))


class SendPostponed(NetworkError):
    """Telegram took no request for SEND_RETRY_MINUTES; the update is handled again later."""


@dataclass
class Delivery:
    """One update's handling: whether a request of it was postponed (then the update is not marked handled)."""

    postponed: bool = False


DELIVERY: ContextVar[Delivery | None] = ContextVar("delivery", default=None)


class RealTime:
    """The gate's clock and sleep (tests speed them up)."""

    @staticmethod
    def now() -> float:
        return time.monotonic()

    @staticmethod
    async def sleep(delay: float, wake: asyncio.Event | None = None) -> None:
        """Sleep `delay` seconds, or less when `wake` is set meanwhile."""
        if wake is None:
            await asyncio.sleep(delay)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), delay)


class Outage:
    """Whether Telegram takes requests: one WARNING when it stops, one when it takes them again."""

    STARTED = "Telegram is not taking requests ({error}); replies wait and are retried for up to {minutes:g} minutes"
    ENDED = "Telegram takes requests again after {seconds:.0f} s ({failures} failed meanwhile)"

    def __init__(self, retry_for: float, clock: RealTime | None = None) -> None:
        self.retry_for = retry_for
        self.time = clock or RealTime()
        self.since: float | None = None
        self.failures = 0
        self.over = asyncio.Event()  # set while Telegram takes requests
        self.over.set()
        self.stopping = False

    def stop(self) -> None:
        """The bot is stopping: requests waiting out an outage give up now (their updates are replayed at the
        next start)."""
        self.stopping = True
        self.over.set()

    def failed(self, error: Exception) -> None:
        """Note a request Telegram did not take; the first of an outage is logged."""
        self.failures += 1
        if self.since is None:
            self.since = self.time.now()
            self.over.clear()
            log.warning(self.STARTED.format(error=describe(error), minutes=self.retry_for / 60))

    def ended(self) -> None:
        """Note a request Telegram took; the first after an outage is logged."""
        if self.since is not None:
            log.warning(self.ENDED.format(seconds=self.time.now() - self.since, failures=self.failures))
            self.since, self.failures = None, 0
            self.over.set()


def describe(error: Exception) -> str:
    """The error's type and the first sentence of its message ("NetworkError: Bad Gateway (502)"), without the
    page the server sent."""
    first = re.split(r"\. |\n", str(error), maxsplit=1)[0]
    return f"{type(error).__name__}: {first[:120]}"


def unreachable(error: Exception) -> bool:
    """True for what an outage looks like: a 5xx, a timeout, a refused connection; not a refusal of the request."""
    return isinstance(error, NetworkError) and not isinstance(error, (BadRequest, SendPostponed))


class SendGate(BaseRateLimiter):
    """python-telegram-bot's rate limiter slot, doing the three things every request to Telegram needs."""

    def __init__(self, budget: Budget | None, outage: Outage) -> None:
        self.budget = budget  # None: no rate limit
        self.outage = outage
        self._paused: dict[int | str, float] = {}  # chat id -> when Telegram's 429 for it runs out
        self._groups: dict[int | str, AsyncLimiter] = {}

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""

    async def process_request(
        self, callback: Callable[..., Awaitable[Any]], args: Any, kwargs: dict[str, Any], endpoint: str,
        data: dict[str, Any], rate_limit_args: None,
    ) -> Any:
        """Send one request: at the bot's rate, after any 429 pause of its chat, waiting out an outage."""
        chat = data.get("chat_id")
        if endpoint in MOMENTARY:
            return await self._moment(callback, args, kwargs, endpoint, chat)
        if chat is None and endpoint != "getFile":  # start-up calls and the like: once
            return await self._once(callback, args, kwargs, endpoint, chat)
        deadline: float | None = None
        attempt = 0
        while True:
            try:
                return await self._once(callback, args, kwargs, endpoint, chat)
            except RetryAfter as error:
                wait = (seconds(error.retry_after) or 1.0) + 0.1
                self._pause(chat, wait)
            except NetworkError as error:
                if not unreachable(error):
                    raise
                wait = backoff(attempt)
                attempt += 1
            now = self.outage.time.now()
            deadline = deadline if deadline is not None else now + self.outage.retry_for
            if now + wait > deadline or self.outage.stopping:
                delivery = DELIVERY.get()
                if delivery is not None:
                    delivery.postponed = True
                raise SendPostponed(f"{endpoint} not taken for {self.outage.retry_for / 60:g} minutes")
            await self.outage.time.sleep(wait, None if self.outage.since is None else self.outage.over)

    async def _moment(self, callback: Callable[..., Awaitable[Any]], args: Any, kwargs: dict[str, Any],
                      endpoint: str, chat: int | str | None) -> Any:
        """A moment's signal: sent once; during an outage, or when Telegram cannot take it, dropped (True, as
        Telegram answers these). A refusal (a 400, a 429) is the caller's to handle."""
        if self.outage.since is not None:
            return True
        try:
            return await self._once(callback, args, kwargs, endpoint, chat)
        except NetworkError as error:
            if not unreachable(error):
                raise
            return True

    async def _once(self, callback: Callable[..., Awaitable[Any]], args: Any, kwargs: dict[str, Any],
                    endpoint: str, chat: int | str | None) -> Any:
        """One try: wait for the chat's pause, the group's and the bot's rate (a draft waits for none), then send.
        A moment's signal that finds no token of the rate (Budget.take looks for a second) is dropped (True)."""
        if chat is not None and endpoint not in UNLIMITED:
            pause = self._paused.get(chat, 0.0) - self.outage.time.now()
            if pause > 0:
                await self.outage.time.sleep(pause)
            if not await self._take(chat, queue=endpoint not in MOMENTARY):
                return True
        try:
            result = await callback(*args, **kwargs)
        except NetworkError as error:
            if unreachable(error):
                self.outage.failed(error)
            raise
        self.outage.ended()
        return result

    async def _take(self, chat: object, queue: bool) -> bool:
        """Wait for the bot's rate (every chat) and the group's (20 a minute); False when `queue` is False and
        the bot's rate had no token for it."""
        if self.budget is not None:
            wait = await self.budget.take(queue)
            if wait is None:
                return False
            if wait > 0:
                await asyncio.sleep(wait)
        group = _group(chat)
        if group is not None:
            async with self._group_limiter(group):
                pass
        return True

    def _pause(self, chat: object, wait: float) -> None:
        """Send nothing to `chat` for `wait` seconds (Telegram's 429 for it)."""
        now = self.outage.time.now()
        if len(self._paused) > 1000:
            self._paused = {key: until for key, until in self._paused.items() if until > now}
        if isinstance(chat, (int, str)):
            self._paused[chat] = now + wait
        log.info("Telegram asked to wait %.1f s before writing to this chat again", wait)

    def _group_limiter(self, group: int | str) -> AsyncLimiter:
        if len(self._groups) > 512:
            self._groups = {key: limiter for key, limiter in self._groups.items()
                            if not limiter.has_capacity(limiter.max_rate)}
        if group not in self._groups:
            self._groups[group] = AsyncLimiter(*GROUP_RATE)
        return self._groups[group]


def _group(chat: object) -> int | str | None:
    """The chat when it is a group (a negative id, or an @username), else None."""
    if isinstance(chat, str):
        with contextlib.suppress(ValueError):
            chat = int(chat)
    if isinstance(chat, str) or (isinstance(chat, int) and chat < 0):
        return chat
    return None


class QuietOutageLogs(logging.Filter):
    """Drops what python-telegram-bot logs, with a traceback, for each request an outage fails: the HTML error
    page it could not read as JSON, and each failed poll. Outage and PollingOutage say it once instead. A poll
    refused for another reason (the database) is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Can not load invalid JSON data"):
            return "<html" not in record.getMessage()[:300].lower()
        if record.msg != "Exception happened while polling for updates." or not record.exc_info:
            return True
        error = record.exc_info[1]
        return not (isinstance(error, Exception) and unreachable(error)
                    and not isinstance(error.__cause__, database_errors()))
