"""An update processor that serves users concurrently but each user's updates strictly in order."""

from __future__ import annotations

from typing import Any, Awaitable

from telegram import Update
from telegram.ext import Application, BaseUpdateProcessor

from chat.locks import KeyedLocks
from handlers.transport.inbox import Inbox


def ordering_key(update: object) -> int | None:
    """Return the id whose updates must be handled one at a time: the user, else the chat."""
    if not isinstance(update, Update):
        return None
    if update.effective_user is not None:
        return update.effective_user.id
    if update.effective_chat is not None:
        return update.effective_chat.id
    return None


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Runs updates of different users concurrently and those of one user one after another.

    With an inbox attached, an update already handled (Telegram delivered it again, or it was replayed
    after a crash and also redelivered) is skipped, and each update is marked handled once its handlers ran.
    """

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self._locks = KeyedLocks()
        self.inbox: Inbox | None = None
        self.app: Application | None = None  # runs an earlier update another machine recorded (PostgreSQL)

    async def process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Wait for the user's earlier updates, then for a free slot, then process this one."""
        key = ordering_key(update)
        if key is None:
            async with self._semaphore:
                await self.do_process_update(update, coroutine)
            return
        # Taking the lock is this task's first suspension point, and tasks start in the
        # order the updates arrived, so asyncio.Lock's FIFO queue keeps the user's order.
        async with self._locks.hold(key), self._semaphore:
            inbox = self.inbox
            if inbox is None or not inbox.shared or not isinstance(update, Update) or self.app is None:
                await self.do_process_update(update, coroutine)
                return
            # Several machines: the user's lock in the database, then any earlier update of theirs that
            # another machine recorded but has not handled, then this one.
            async with inbox.store.user_turn(key):
                for earlier in await inbox.earlier(key, update.update_id, self.app.bot):
                    await self.do_process_update(earlier, self.app.process_update(earlier))
                await self.do_process_update(update, coroutine)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Await the update's coroutine unless the inbox says it was handled; then mark it handled."""
        inbox = self.inbox if isinstance(update, Update) else None
        if inbox is None:
            await coroutine
            return
        assert isinstance(update, Update)
        if not await inbox.should_handle(update.update_id):
            coroutine.close()  # type: ignore[attr-defined]
            return
        await coroutine
        await inbox.handled(update.update_id)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""
