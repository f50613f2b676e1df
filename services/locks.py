"""One asyncio lock per key (a user id), created on first use and dropped when nobody holds or awaits it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator, Hashable


class KeyedLocks:
    """Lets one coroutine at a time work for a given key; waiters are served first come, first served."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._users: dict[Hashable, int] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        """Hold the lock for `key` while the block runs."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key], self._locks[key]

    def __len__(self) -> int:
        return len(self._locks)
