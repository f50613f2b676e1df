"""The two databases under Store: SQLite (one file, one connection) and PostgreSQL (a pool, several machines).

Store writes its SQL once, with `?` placeholders; what differs between the engines lives here, in one
`Dialect` per backend, and in each backend's way of opening sessions and transactions.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import sqlite3
import sys
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, AsyncIterator, Iterable, Protocol, Sequence

import aiosqlite

from memory.store.migrations import MIGRATIONS
from memory.store.scripts import Script, T, await_each_statement, drive, drive_each

log = logging.getLogger(__name__)

def database_errors() -> tuple[type[BaseException], ...]:
    """The errors of either engine, for callers that report a database they cannot use (`except
    database_errors()`). asyncpg's are among them once it is imported, which only PostgreSQL does: on SQLite the
    driver costs no memory (about 3 MiB resident)."""
    asyncpg = sys.modules.get("asyncpg")
    return (sqlite3.Error, OSError) + ((asyncpg.PostgresError, asyncpg.InterfaceError) if asyncpg else ())


def _asyncpg() -> Any:
    """Import the PostgreSQL driver, on first use."""
    try:
        return importlib.import_module("asyncpg")
    except ImportError:  # pragma: no cover - asyncpg is in requirements.txt
        raise OSError("DATABASE_URL names PostgreSQL, but asyncpg is not installed (pip install asyncpg)") from None


class Session(Protocol):
    """What Store's queries use of a connection: aiosqlite's Connection has it, and so has PostgresSession."""

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ...) -> Iterable[Any]: ...

    async def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    """The SQL that differs between the engines."""

    greatest: str  # the larger of two values: MAX(a, b) in SQLite, GREATEST(a, b) in PostgreSQL
    least: str  # the smaller: MIN(a, b), LEAST(a, b)
    epoch_now: str  # seconds since the epoch now, on the database's clock, as a float
    topics_json: str  # the user's newest topic lines as one JSON array (parameters: limit; correlated on users.id)
    set_setting: str  # upsert one key of users.settings (parameters: id, first_seen, last_seen, key, json value)
    database_size: str  # bytes the database takes
    no_limit: int | None  # a LIMIT that takes every row
    skip_locked: str  # after a SELECT that claims rows: skip those another machine is claiming right now
    lock_user: str  # first in a transaction that merges into a user's memory: one merge at a time per user
    writes_in_with: bool  # a statement may write in its WITH clause, and its query reads the rows as they were


_TOPIC_ROWS = (
    " (SELECT id, text, started_at, ended_at FROM topics WHERE user_id = users.id"
    " ORDER BY ended_at DESC, id DESC LIMIT ?)"
)

SQLITE = Dialect(
    greatest="MAX",
    least="MIN",
    epoch_now="((julianday('now') - 2440587.5) * 86400.0)",
    topics_json="SELECT json_group_array(json_array(id, text, started_at, ended_at)) FROM" + _TOPIC_ROWS,
    set_setting=(
        "INSERT INTO users (id, first_seen, last_seen, settings) VALUES (?, ?, ?, json_object(?4, json(?5)))"
        " ON CONFLICT(id) DO UPDATE SET settings = json_set(users.settings, '$.' || ?4, json(?5))"
    ),
    database_size="SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size())",
    no_limit=-1,
    skip_locked="",  # one writer at a time already
    lock_user="",  # none needed: BEGIN IMMEDIATE already serialises every writer
    writes_in_with=False,  # and a statement in SQLite's own thread costs microseconds, not a round trip
)

POSTGRES = Dialect(
    greatest="GREATEST",
    least="LEAST",
    epoch_now="EXTRACT(EPOCH FROM clock_timestamp())::float8",
    topics_json="SELECT json_agg(json_build_array(id, text, started_at, ended_at)) FROM" + _TOPIC_ROWS + " AS t",
    set_setting=(
        "INSERT INTO users (id, first_seen, last_seen, settings) VALUES (?, ?, ?, jsonb_build_object(?4::text,"
        " ?5::jsonb)::text) ON CONFLICT(id) DO UPDATE SET settings = (users.settings::jsonb"
        " || jsonb_build_object(?4::text, ?5::jsonb))::text"
    ),
    database_size="SELECT pg_database_size(current_database())",
    no_limit=None,
    skip_locked=" FOR UPDATE SKIP LOCKED",
    lock_user="SELECT 1 FROM users WHERE id = ? FOR UPDATE",
    writes_in_with=True,
)


class SQLiteBackend:
    """One aiosqlite connection; an asyncio lock keeps its transactions from interleaving."""

    dialect = SQLITE

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.connection = connection
        self.lock = asyncio.Lock()
        self._waiting: list[tuple[Script[Any], asyncio.Future[Any]]] = []  # scripts for the next trip
        self._trips: set[asyncio.Task[None]] = set()

    @classmethod
    async def open(cls, path: Path | str) -> "SQLiteBackend":
        """Open (creating if needed) the file at `path`; a damaged file is reported and never written to."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await connection.execute("PRAGMA busy_timeout = 5000")
            verdict = (await connection.execute_fetchall("PRAGMA quick_check"))[0][0]
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"the database file is damaged (quick_check: {verdict})")
            await connection.execute("PRAGMA journal_mode = WAL")
            await connection.execute("PRAGMA synchronous = NORMAL")
            await connection.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            await connection.close()  # its thread would otherwise keep the process alive
            raise
        return cls(connection)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, to itself: each statement commits on its own."""
        async with self.lock:
            yield self.connection

    async def run(self, script: Script[T]) -> T:
        """Run a script's statements in one trip to aiosqlite's thread, in one transaction.

        A trip (handing the work over, waking the thread, waking the loop back) costs more than most of a turn's
        statements do; a turn makes four instead of ten (bench/trips.py, bench/turn.py). aiosqlite has no public
        call for running a function in its thread, so this uses the one all of its own methods use (`_execute`,
        with the sqlite3 connection, `_conn`); aiosqlite is pinned in requirements.txt, and tests/test_backends.py
        checks a script makes one trip.

        Scripts that arrive while the connection is busy go together in the next trip, in the order they came, each
        in its own transaction: 1,000 users writing at once make a few trips, not 1,000.
        """
        if not self._waiting and not self.lock.locked():  # nothing to share a trip with: go at once
            async with self.lock:
                return await self.connection._execute(drive, self.connection._conn, script)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append((script, future))
        if len(self._waiting) == 1:  # the first of the next trip sends it
            trip = asyncio.create_task(self._trip())
            self._trips.add(trip)
            trip.add_done_callback(self._trips.discard)
        return await future

    async def _trip(self) -> None:
        """Run every waiting script in one trip to aiosqlite's thread; give each its result or its error."""
        batch: list[tuple[Script[Any], asyncio.Future[Any]]] = []
        try:
            async with self.lock:
                batch, self._waiting = self._waiting, []
                outcomes = await self.connection._execute(drive_each, self.connection._conn,
                                                          [script for script, _ in batch])
        except BaseException as error:  # the connection is closed, or the loop is shutting down
            if not batch:  # stopped before it took its scripts: they, and any behind them, stop with it
                batch, self._waiting = self._waiting, []
            cancelled = isinstance(error, asyncio.CancelledError)
            for _, future in batch:
                if not future.done():
                    future.cancel() if cancelled else future.set_exception(error)
            if cancelled:
                raise
            return
        for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
            if not future.done():  # its caller may have been cancelled meanwhile
                future.set_result(value) if ok else future.set_exception(value)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection inside BEGIN IMMEDIATE … COMMIT (ROLLBACK on any error)."""
        async with self.lock:
            await self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                await self.connection.execute("ROLLBACK")
                raise
            await self.connection.execute("COMMIT")

    async def schema_version(self) -> int:
        rows = await self.connection.execute_fetchall("PRAGMA user_version")
        return int(next(iter(rows))[0])

    async def migrate(self, target: int) -> None:
        """Apply, in order and each in its own transaction, the migrations above the current version."""
        current = await self.schema_version()
        for version, _name, statements in MIGRATIONS:
            if current < version <= target:
                async with self.transaction() as db:
                    for statement in statements:
                        await db.execute(statement)
                    await db.execute(f"PRAGMA user_version = {version}")

    @asynccontextmanager
    async def user_lock(self, key: int) -> AsyncIterator[None]:
        """Nothing to take: one process owns a SQLite file, and its update processor orders each user's turns."""
        yield

    async def take_poller_lock(self) -> bool:
        """True: one process owns a SQLite file."""
        return True

    async def close(self) -> None:
        await self.connection.close()


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
    """One pooled asyncpg connection with aiosqlite's three methods, so Store's SQL runs on it unchanged."""

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


# Advisory lock ids. Users take their own Telegram id (positive); these are negative so they never collide.
MIGRATION_LOCK = -1  # two machines starting together migrate one after the other
POLLER_LOCK = -2  # held by the one process that polls Telegram


class PostgresBackend:
    """An asyncpg pool; each session or transaction takes a connection of its own."""

    dialect = POSTGRES

    def __init__(self, pool: Any, url: str) -> None:
        self.pool = pool
        self.locker = Locker(url)
        self.poller: Any = None  # the connection holding POLLER_LOCK, in polling mode

    @classmethod
    async def open(cls, url: str, size: int = 10) -> "PostgresBackend":
        pool = await _asyncpg().create_pool(url, min_size=1, max_size=size, command_timeout=60)
        return cls(pool, url)

    def user_lock(self, key: int) -> AbstractAsyncContextManager[None]:
        """Hold the user's advisory lock: their turns run one at a time across every machine."""
        return self.locker.hold(key)

    async def take_poller_lock(self) -> bool:
        """Take POLLER_LOCK for the life of the process; False when another process holds it."""
        connection = await self.pool.acquire()
        if await connection.fetchval("SELECT pg_try_advisory_lock($1)", POLLER_LOCK):
            self.poller = connection
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
        if self.poller is not None:
            await self.pool.release(self.poller)  # its session lock goes with the reset
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
                self.connection = await _asyncpg().connect(self.url)
            return bool(await self.connection.fetchval(sql, key))

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()


def is_postgres_url(target: object) -> bool:
    """True for a postgresql:// (or postgres://) URL."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
