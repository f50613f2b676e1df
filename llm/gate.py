"""How many requests one model server takes at once (MODEL_CONCURRENCY), and who goes first: a conversation
before memory upkeep.

A local server with one slot (llama.cpp, Ollama, llama-cpp-python) answers one request at a time, and some of
them cut a running stream short when another request arrives. So the bot keeps its own count. A chat request
(a turn, a message written first, a voice note's transcript, the recall of a turn) takes a free slot, or waits
for one ahead of every upkeep request; when every slot is held and one holder is upkeep (fact extraction,
embedding facts), that holder is cancelled at once: its connection closes, so a streaming server stops working
on it too, and its caller gets `Preempted` and does the work again later. Upkeep takes a slot only while no
chat request waits.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")


class Preempted(Exception):
    """An upkeep request gave its slot to a conversation; nothing of it was kept, and it is done again later."""


class Gate:
    """The slots of one model server; `limit` None takes any number at once (a hosted API)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self._taken = 0
        self._chat_waiting = 0
        self._upkeep: dict[asyncio.Future, bool] = {}  # an upkeep request in flight -> whether it was preempted
        self._changed = asyncio.Event()

    async def run(self, call: Callable[[], Awaitable[T]], *, upkeep: bool = False) -> T:
        """Return what `call()` returns once a slot is free, chat first; raise Preempted when an upkeep call had
        to give its slot to a chat request."""
        if self.limit is None:
            return await call()
        await self._take(upkeep)
        try:
            if not upkeep:
                return await call()
            return await self._preemptible(call)
        finally:
            self._taken -= 1
            self._wake()

    async def _preemptible(self, call: Callable[[], Awaitable[T]]) -> T:
        task = asyncio.ensure_future(call())
        self._upkeep[task] = False
        try:
            return await task  # cancelling the caller cancels the request too
        except asyncio.CancelledError:
            if self._upkeep.get(task) and not _cancelling():
                raise Preempted("a conversation needed the model server's slot") from None
            raise
        finally:
            self._upkeep.pop(task, None)

    async def _take(self, upkeep: bool) -> None:
        if not upkeep:
            self._chat_waiting += 1
        try:
            while not self._free(upkeep):
                if not upkeep:
                    self._preempt()
                changed = self._changed
                await changed.wait()
        finally:
            if not upkeep:
                self._chat_waiting -= 1
                self._wake()  # upkeep waiting only for this chat request may go on
        self._taken += 1

    def _free(self, upkeep: bool) -> bool:
        assert self.limit is not None
        return self._taken < self.limit and not (upkeep and self._chat_waiting)

    def _preempt(self) -> None:
        """Cancel one upkeep request in flight, unless one already gives way."""
        if any(self._upkeep.values()):
            return
        for task in self._upkeep:
            if not task.done():
                self._upkeep[task] = True
                task.cancel()
                return

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def cancel_upkeep(self) -> int:
        """Cancel every upkeep request in flight (at shutdown: the server stops on them too); return how many."""
        cancelled = 0
        for task in list(self._upkeep):
            if not task.done():
                self._upkeep[task] = True
                task.cancel()
                cancelled += 1
        return cancelled

    @property
    def busy(self) -> int:
        """How many slots are taken now."""
        return self._taken


def _cancelling() -> bool:
    """True when the task running this was itself asked to stop (not only the request it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
