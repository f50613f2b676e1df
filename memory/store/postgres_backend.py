"""PostgreSQL under every owner of tables: a pool of connections, several machines, and the locks between them."""

from __future__ import annotations

import asyncio
import logging
import re
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, AsyncIterator, Iterable, Sequence

from memory.store.backends import POSTGRES, asyncpg_module, database_errors
from memory.store.scripts import Script, T, await_each_statement

log = logging.getLogger(__name__)


@lru_cache(maxsize=1024)
def postgres_sql(sql: str) -> str:
    """Return `sql` with its `?` and `?N` placeholders numbered as PostgreSQL's `$N` (no SQL here holds a literal ?)."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(1):
            return f"${match.group(1)}"
        count += 1
        return f"${count}"

    return re.sub(r"\?(\d+)?", number, sql)


@dataclass(frozen=True)
class Done:
    """What an UPDATE, INSERT or DELETE did, as aiosqlite's cursor says it."""

    rowcount: int


class PostgresSession:
    """One pooled asyncpg connection with aiosqlite's three methods, so the owners' SQL runs on it unchanged."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return [tuple(row) for row in await self.connection.fetch(postgres_sql(sql), *params)]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Done:
        status = await self.connection.execute(postgres_sql(sql), *params)
        last = status.rsplit(" ", 1)[-1]
        return Done(int(last) if last.isdigit() else 0)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            await self.connection.executemany(postgres_sql(sql), rows)


# Advisory lock ids. Users take their own Telegram id (positive); the others are negative so they never collide:
# -1 here, -2 the poller's (transport/transport_store.py).
MIGRATION_LOCK = -1  # two machines starting together migrate one after the other


async def keep_session(connection: Any) -> None:
    """Reset nothing when a connection goes back to the pool.

    asyncpg's default sends `SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;` on every
    release: a round trip more for each of a turn's five or so statements that take a connection of the pool. None
    of them leaves anything behind (no SET, cursor, LISTEN or lock: the migration lock and the locks held for the
    process's life are released by name), and a transaction left open is still rolled back by asyncpg before this
    is called.
    """


class PostgresBackend:
    """An asyncpg pool; each session or transaction takes a connection of its own."""

    dialect = POSTGRES

    def __init__(self, pool: Any, url: str) -> None:
        self.pool = pool
        self.locker = Locker(url)
        self.held: dict[int, Any] = {}  # lock id -> the connection holding it for the life of the process

    @classmethod
    async def open(cls, url: str, size: int = 10) -> "PostgresBackend":
        pool = await asyncpg_module().create_pool(url, min_size=1, max_size=size, command_timeout=60,
                                                  reset=keep_session)
        return cls(pool, url)

    def user_lock(self, key: int) -> AbstractAsyncContextManager[None]:
        """Hold the user's advisory lock: their turns run one at a time across every machine."""
        return self.locker.hold(key)

    async def take_process_lock(self, key: int) -> bool:
        """Take the advisory lock `key` for the life of the process, on a connection of its own (released at
        close, or when the process dies); False when another process holds it."""
        if key in self.held:
            return True
        connection = await self.pool.acquire()
        if await connection.fetchval("SELECT pg_try_advisory_lock($1)", key):
            self.held[key] = connection
            return True
        await self.pool.release(connection)
        return False

    @asynccontextmanager
    async def session(self) -> AsyncIterator[PostgresSession]:
        async with self.pool.acquire() as connection:
            yield PostgresSession(connection)

    async def run(self, script: Script[T]) -> T:
        """Run a script's statements one by one on one pooled connection, each committing on its own."""
        async with self.session() as db:
            return await await_each_statement(db.execute_fetchall, script)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresSession]:
        async with self.pool.acquire() as connection, connection.transaction():
            yield PostgresSession(connection)

    async def schema_version(self) -> int:
        async with self.pool.acquire() as connection:
            if not await connection.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
                return 0
            return int(await connection.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))

    async def migrate(self, target: int) -> None:
        """Apply the PostgreSQL migrations above the current version, each in its own transaction.

        Under MIGRATION_LOCK: machines starting together wait for the first one's migrations, then find none left.
        """
        from memory.store.migrations_pg import PG_MIGRATIONS

        async with self.pool.acquire() as connection:
            await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            try:
                await connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                done = await connection.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
                for version, _name, statements in PG_MIGRATIONS:
                    if done < version <= target:
                        async with connection.transaction():
                            for statement in statements:
                                await connection.execute(statement)
                            await connection.execute("INSERT INTO schema_version (version) VALUES ($1)", version)
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)

    async def close(self) -> None:
        for key, connection in self.held.items():
            await connection.execute("SELECT pg_advisory_unlock($1)", key)
            await self.pool.release(connection)
        self.held.clear()
        await self.locker.close()
        await self.pool.close()


class Locker:
    """One connection that holds every user lock of this process: a session-level advisory lock per user id.

    A lock is tried, not waited for (a wait would stall the connection for every other user): when another
    machine holds it, the turn tries again shortly. Holding no connection per turn, a process can have as
    many turns in flight as it likes. If the machine dies, its connection drops and every lock goes with it.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.connection: Any = None
        self.guard = asyncio.Lock()  # one statement at a time on the connection
        # PostgreSQL's session locks are reentrant, so turns of one user in this process queue here first.
        self.local: dict[int, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: int) -> AsyncIterator[None]:
        lock, users = self.local.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                delay = 0.005
                while not await self._ask("SELECT pg_try_advisory_lock($1)", key):
                    await asyncio.sleep(delay)
                    delay = min(0.1, delay * 2)
                try:
                    yield
                finally:
                    try:
                        await self._ask("SELECT pg_advisory_unlock($1)", key)
                    except database_errors() as error:  # the connection went, and the lock with it
                        log.warning("could not release a user's lock: %s", type(error).__name__)
        finally:
            users[0] -= 1
            if not users[0]:
                del self.local[key]

    async def _ask(self, sql: str, key: int) -> bool:
        async with self.guard:
            if self.connection is None or self.connection.is_closed():
                self.connection = await asyncpg_module().connect(self.url)
            return bool(await self.connection.fetchval(sql, key))

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()
