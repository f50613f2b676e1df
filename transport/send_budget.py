"""Telegram's per-bot rate (about 30 requests a second), kept by one process or shared by several.

A token bucket: `rate` tokens a second, at most `burst` saved up, one token per request. A taker who finds no
token takes one anyway, as a debt, and waits until the bucket would have refilled to it: the takers queue in
the order they came, and however many processes take, no more than `burst + rate × t` requests go in any t
seconds. A moment's signal ("typing…") takes a token only if one is there: it never queues, so it never holds
up a reply, nor leaves a gap in the queue when it is cancelled (a typing action is, as soon as the reply is
ready). One that finds none looks again every half refill (1/2 of 1/rate: a reply coming between two looks
takes the token first less often) for up to MOMENT_PATIENCE_S. On a bot under its rate a token comes back
within 1/rate of the last request, so the signal goes a tick late; on a bot over it the replies' queue keeps
the bucket empty, and the signal is dropped, having taken nothing. The signals of one process look one at a
time, in the order they came, so the looks cost the same however many signals wait (on PostgreSQL each look
is a statement, on a pool of ten connections). With PostgreSQL the bucket is one row, taken from in one
statement against the database's clock (TransportStore.take_send_token), so every machine of the bot draws on
the same budget.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Awaitable, Callable

from memory.store.backends import database_errors
from transport.transport_store import TransportStore

log = logging.getLogger(__name__)
# Requests saved up while idle. One: the requests are paced evenly, never more than `rate` + 1 in any second
# (a burst of 30 on top, as python-telegram-bot's limiter allows, let 59 through in one second).
BURST = 1.0
# How long a moment's signal may look for a token: "typing…" a second late still helps; later, on a bot over
# its rate, the signal is better dropped than looked for on and on.
MOMENT_PATIENCE_S = 1.0


class TokenBucket:
    """The bucket's arithmetic, for one process."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = burst, now

    def take(self, now: float, queue: bool = True) -> float | None:
        """Take one token at `now`; return the seconds to wait before using it (0 when one was saved up). With
        `queue` False, take one only if it is there now, and return None when it is not."""
        tokens = min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)
        if not queue and tokens < 1:
            return None
        self.tokens, self.at = tokens - 1, max(self.at, now)
        return max(0.0, -self.tokens / self.rate)


class Budget:
    """The bot's rate: a bucket in this process, or, when it is given one to share, the one in PostgreSQL.

    If the database cannot be reached, this process falls back to its own bucket (and says so once), so a
    database hiccup never stops a reply; the budget is then per process until the database answers again.
    """

    def __init__(self, rate: float, burst: float = BURST, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 shared: TransportStore | None = None) -> None:
        """`shared`: take from this database's bucket (several machines on one PostgreSQL), else this process's."""
        self.rate, self.burst = rate, burst
        self.clock, self.sleep = clock, sleep
        self._looking = asyncio.Lock()  # held by the moment's signal of this process that looks for a token
        self.local = TokenBucket(self.rate, self.burst, clock())
        self.store = shared
        self._apart = False  # the shared bucket could not be reached on the last try

    async def take(self, queue: bool = True) -> float | None:
        """Take one request's token; return the seconds to wait before sending it. With `queue` False (a
        moment's signal, which must not hold up a reply), only a token that is there, now or at a look every
        half refill within MOMENT_PATIENCE_S: None when none came. Cancelled meanwhile, it has taken nothing."""
        if queue:
            return await self._take(True)
        give_up, pause = self.clock() + MOMENT_PATIENCE_S, 0.5 / self.rate
        async with self._looking:
            while (wait := await self._take(False)) is None and self.clock() + pause <= give_up:
                await self.sleep(pause)
        return wait

    async def _take(self, queue: bool) -> float | None:
        """One take from the shared bucket, or this process's own when there is none or it cannot be read."""
        if self.store is None:
            return self.local.take(self.clock(), queue)
        try:
            wait = await self.store.take_send_token(self.rate, self.burst, queue)
        except database_errors() as error:
            if not self._apart:
                log.warning("the shared Telegram rate cannot be read (%s); this process keeps its own for now",
                            type(error).__name__)
                self._apart = True
            return self.local.take(self.clock(), queue)
        if self._apart:
            log.warning("the shared Telegram rate can be read again")
            self._apart = False
        return wait
