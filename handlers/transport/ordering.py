"""An update processor that serves users concurrently but each user's updates strictly in order."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Awaitable, Callable

from telegram import Update
from telegram.ext import BaseUpdateProcessor, ExtBot

from handlers.transport.inbox import Inbox
from handlers.transport.sending import DELIVERY, Delivery, Outage
from services.locks import KeyedLocks

HELD_RETRY_S = 60.0  # a postponed update is handled again this often, or as soon as Telegram takes a request


def ordering_key(update: object) -> int | None:
    """Return the id whose updates must be handled one at a time: the chat a message was sent on behalf of
    (anonymous admins, channels: their memory's key), else the user, else the chat."""
    if not isinstance(update, Update):
        return None
    if update.effective_message is not None and update.effective_message.sender_chat is not None:
        return update.effective_message.sender_chat.id
    if update.effective_user is not None:
        return update.effective_user.id
    if update.effective_chat is not None:
        return update.effective_chat.id
    return None


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Runs updates of different users concurrently and those of one user one after another.

    An update already handled (Telegram delivered it again, or it was replayed
    after a crash and also redelivered) is skipped, and each update is marked handled once its handlers ran.
    An update whose reply Telegram would not take for SEND_RETRY_MINUTES is held, unhandled, with the user's
    later updates queued behind it, and handled again later (handlers/transport/sending.py).
    Once the bot is stopping, an update not yet begun is left unhandled in the inbox for the next start (or,
    on PostgreSQL, for another machine), so that a stop waits only for the turns in flight.
    """

    def __init__(self, max_concurrent_updates: int, outage: Outage, inbox: Inbox, bot: ExtBot,
                 process: Callable[[Update], Awaitable[Any]]) -> None:
        """`bot` reads the updates the inbox holds; `process` is the Application's, which runs an earlier or a held
        update again."""
        super().__init__(max_concurrent_updates)
        # Our own slots: this processor's process_update replaces the library's, and with it the library's semaphore.
        self._slots = asyncio.BoundedSemaphore(max_concurrent_updates)
        self._locks = KeyedLocks()
        self.inbox, self.bot, self.process = inbox, bot, process
        self.outage = outage
        self._held: dict[int, list[Update]] = {}  # user -> their updates waiting for Telegram, oldest first
        self._retrying: asyncio.Task | None = None
        self.stopping = False  # SIGTERM / SIGINT came (bot.py): see `stop`
        self.left = 0  # updates left in the inbox because the bot was stopping

    async def process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Wait for the user's earlier updates, then for a free slot, then process this one."""
        key = ordering_key(update)
        if key is None or not isinstance(update, Update):
            async with self._slots:
                await self.do_process_update(update, coroutine)
            return
        # Taking the lock is this task's first suspension point, and tasks start in the
        # order the updates arrived, so asyncio.Lock's FIFO queue keeps the user's order.
        async with self._locks.hold(key), self._slots:
            if key in self._held:  # an earlier update of theirs waits for Telegram: this one queues behind it
                coroutine.close()  # type: ignore[attr-defined]
                self._held[key].append(update)
                return
            await self._in_order(key, [update], coroutine)

    async def _in_order(self, key: int, updates: list[Update], last: Awaitable[Any] | None) -> None:
        """Process `updates` one by one (`last` is the last one's coroutine, when there is one); from the first
        one postponed on, they are held. On several machines, any earlier update of the user that another
        machine recorded but has not handled goes first, all under the user's lock in the database."""
        inbox = self.inbox
        if not inbox.shared:
            await self._each(key, updates, last)
            return
        async with inbox.store.user_turn(key):
            earlier, handled = await inbox.earlier(key, updates[0].update_id, self.bot)
            await self._each(key, earlier + updates, last, (updates[0].update_id, handled))

    async def _each(self, key: int, updates: list[Update], last: Awaitable[Any] | None,
                    known: tuple[int, bool] | None = None) -> None:
        """Process the updates in order; `known`: (an update id, whether it was handled), as the inbox said under the
        user's lock, so it is not asked again."""
        for index, update in enumerate(updates):
            final = index == len(updates) - 1
            coroutine = last if final and last is not None else self.process(update)
            handled = known[1] if known is not None and known[0] == update.update_id else None
            if not await self.do_process_update(update, coroutine, handled):
                if last is not None and not final:
                    last.close()  # type: ignore[attr-defined]
                self._hold(key, updates[index:])
                return

    async def do_process_update(  # type: ignore[override]
        self, update: object, coroutine: Awaitable[Any], handled: bool | None = None
    ) -> bool:
        """Await the update's coroutine unless the inbox says it was handled (`handled`: it said so just now);
        then mark it handled. Return False when a request of it was postponed: it stays unhandled."""
        delivery = Delivery()
        token = DELIVERY.set(delivery)
        try:
            if not isinstance(update, Update):
                await coroutine
                return True
            if self.stopping:  # not begun: it waits in the inbox, which replays it at the next start
                coroutine.close()  # type: ignore[attr-defined]
                self.left += 1
                return True
            if not await self.inbox.should_handle(update.update_id, handled):
                coroutine.close()  # type: ignore[attr-defined]
                return True
            await coroutine
            if delivery.postponed:
                return False
            await self.inbox.handled(update.update_id)
            return True
        finally:
            DELIVERY.reset(token)

    def _hold(self, key: int, updates: list[Update]) -> None:
        self._held.setdefault(key, []).extend(updates)
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.create_task(self._retry_held())

    async def _retry_held(self) -> None:
        """Now and then, and as soon as Telegram takes a request again, handle the held updates again."""
        while self._held:
            await self.outage.time.sleep(1.0)
            await self.outage.time.sleep(HELD_RETRY_S, self.outage.over)
            await asyncio.gather(*(self._retry(key) for key in list(self._held)))

    async def _retry(self, key: int) -> None:
        async with self._locks.hold(key), self._slots:
            held = self._held.pop(key, [])
            if held:
                await self._in_order(key, held, None)

    def stop(self) -> None:
        """Begin no more updates: from now on each is left unhandled in the inbox for the next start."""
        self.stopping = True

    @property
    def held(self) -> int:
        """How many updates wait for Telegram."""
        return sum(len(updates) for updates in self._held.values())

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Stop retrying; what is held stays unhandled in the inbox and is replayed at the next start."""
        if self._retrying is not None:
            self._retrying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retrying
