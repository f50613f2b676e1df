"""SQLite under every owner of tables: one file, one aiosqlite connection."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterable, Sequence

import aiosqlite

from memory.store.backends import SQLITE
from memory.store.migrations import MIGRATIONS
from memory.store.scripts import Script, T, begin_at_once, finish

log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 5000  # how long a statement waits, in aiosqlite's thread, for another connection's write to end
CHECKPOINT_EVERY = 100  # scripts, sessions and transactions between two checkpoints of the write-ahead log
CHECKPOINT_WAIT_FRAMES = 4000  # a log this long (16 MiB of 4 KiB pages) is checkpointed making writers wait
CHECKPOINT_TIMEOUT_S = 1.0  # ... for at most this long
# SQLite's own checkpoint, inside a commit, only for a log that grew this long all the same (a loop that never
# let the thread's checkpoint run): a bound on the file, not a way of working.
AUTOCHECKPOINT_FRAMES = 2 * CHECKPOINT_WAIT_FRAMES
ITER_CHUNK_SIZE = 64  # rows an aiosqlite cursor fetches a trip (aiosqlite.connect's default; the store never iterates)


def checkpoint(connection: sqlite3.Connection, wait_frames: int = CHECKPOINT_WAIT_FRAMES) -> tuple[int, int, int]:
    """Copy the write-ahead log into the database file on `connection` (not the bot's own); return SQLite's
    answer (busy, frames in the log, frames copied).

    PASSIVE: it waits for no one, and the bot's connection goes on writing meanwhile. The log starts over only
    when a write finds all of it copied; under unbroken writing, something is always written during the
    checkpoint, and the log would grow for ever. So a log of `wait_frames` or more is checkpointed again with
    RESTART, which makes writers wait (in aiosqlite's thread) until it is all copied and the log can start
    over. It waits for readers at most CHECKPOINT_TIMEOUT_S (another program reading the file for long), and
    then gives up until the next one."""
    answer = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    if answer[1] >= wait_frames:
        answer = connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
    return answer


def checkpoint_file(path: str) -> tuple[int, int, int]:
    """checkpoint, on a connection opened for it (in a thread: it never holds up the loop)."""
    connection = sqlite3.connect(path, isolation_level=None, timeout=CHECKPOINT_TIMEOUT_S)
    try:
        return checkpoint(connection)
    finally:
        connection.close()


class LoopSession:
    """The connection's statements run right here, in the loop's thread: they take microseconds, and a trip to
    aiosqlite's thread (handing the work over, waking the thread, waking the loop back) costs more. One that would
    have to wait for another connection's write (SQLITE_BUSY at once: busy_timeout is 0) waits for it in
    aiosqlite's thread instead (`SQLiteBackend.begin_patiently`), then runs here. The owners' SQL sees aiosqlite's
    three methods."""

    def __init__(self, backend: SQLiteBackend) -> None:
        self.backend = backend
        self.raw = backend.raw

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list:
        return await self._here(_rows, self.raw, sql, params)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return await self._here(self.raw.execute, sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return await self._here(self.raw.executemany, sql, list(rows))

    async def _here(self, work: Callable[..., T], *args: Any) -> T:
        """Return work(*args), run in the loop's thread; when another connection is writing, once aiosqlite's
        thread has waited for it, in a transaction of its own."""
        try:
            return work(*args)
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or self.raw.in_transaction:
                raise
        await self.backend.begin_patiently()
        return finish_work(self.raw, work, *args)


def _rows(connection: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list:
    return connection.execute(sql, params).fetchall()


def finish_work(connection: sqlite3.Connection, work: Callable[..., T], *args: Any) -> T:
    """Return work(*args), run in the transaction begun on `connection`; COMMIT, or ROLLBACK on any error."""
    try:
        result = work(*args)
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return result


class SQLiteBackend:
    """One aiosqlite connection; an asyncio lock keeps its transactions from interleaving.

    Statements run right here in the loop's thread (LoopSession, `run`), on the sqlite3 connection the backend
    opened itself and handed to aiosqlite (`open`: aiosqlite's Connection takes the function that opens it):
    handing them to aiosqlite's thread and waking the loop back costs more than they do (bench/trips.py,
    bench/turn.py). Only waiting for another connection's write (a backup tool, a second process by mistake)
    happens in aiosqlite's thread, through its own `execute` (`begin_patiently`), so the loop never waits for it;
    the lock keeps the two threads from ever using the connection at once.

    SQLite's own checkpoint would run inside whichever commit filled the write-ahead log (1,000 pages), holding
    up the loop, and every user, for several milliseconds. The log is checkpointed in a thread instead, on a
    connection of its own, every CHECKPOINT_EVERY scripts (`checkpoint_file`); SQLite's own waits for a log
    of AUTOCHECKPOINT_FRAMES, which the thread's keep it from reaching.
    """

    dialect = SQLITE

    def __init__(self, connection: aiosqlite.Connection, raw: sqlite3.Connection, path: str | None = None) -> None:
        """`connection`: aiosqlite's, over `raw`, the sqlite3 connection it was opened with."""
        self.connection = connection
        self.raw = raw
        self.lock = asyncio.Lock()
        self.closed = False
        self._path = path  # the file, for checkpoints (None: in memory, no log)
        self._since_checkpoint = 0
        self._checkpoint: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path | str) -> "SQLiteBackend":
        """Open (creating if needed) the file at `path`; a damaged file is reported and never written to."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        opened: list[sqlite3.Connection] = []

        def connect() -> sqlite3.Connection:
            # Used from the loop's thread too (run), never at the same time as from aiosqlite's: the lock sees to it.
            opened.append(sqlite3.connect(str(path), isolation_level=None, check_same_thread=False))
            return opened[0]

        connection = await aiosqlite.Connection(connect, ITER_CHUNK_SIZE)
        try:
            await connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            verdict = next(iter(await connection.execute_fetchall("PRAGMA quick_check")))[0]
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"the database file is damaged (quick_check: {verdict})")
            await connection.execute("PRAGMA journal_mode = WAL")
            await connection.execute("PRAGMA synchronous = NORMAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            await connection.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_FRAMES}")  # see checkpoint_file
            await connection.execute("PRAGMA busy_timeout = 0")  # from now on only `begin_patiently` waits
        except BaseException:
            await connection.close()  # its thread would otherwise keep the process alive
            raise
        return cls(connection, opened[0], None if str(path) == ":memory:" else str(path))

    async def begin_patiently(self) -> None:
        """BEGIN IMMEDIATE, in aiosqlite's thread, waiting there up to BUSY_TIMEOUT_MS for another connection's
        write to end (the loop goes on meanwhile); raise SQLite's error when it does not end in time.

        Called under the lock. Once begun, the transaction holds the file's write lock, so its statements never
        wait and run in the loop's thread. Cancelled while the thread still waits, it lets the thread finish and
        rolls back what it began before the lock goes to anyone else."""
        self.raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        begun = asyncio.ensure_future(self._begin_in_thread())
        try:
            await asyncio.shield(begun)
        except asyncio.CancelledError:
            await asyncio.wait([begun])
            if self.raw.in_transaction:
                self.raw.execute("ROLLBACK")
            raise
        finally:
            if begun.done():  # else a second cancellation came: the thread still holds the connection
                self.raw.execute("PRAGMA busy_timeout = 0")

    async def _begin_in_thread(self) -> None:
        await self.connection.execute("BEGIN IMMEDIATE")

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("the database connection is closed")

    @asynccontextmanager
    async def session(self) -> AsyncIterator[LoopSession]:
        """The connection, to itself: each statement commits on its own."""
        async with self.lock:
            self._check_open()
            yield LoopSession(self)
        self._wrote()

    async def run(self, script: Script[T]) -> T:
        """Run a script's statements at once, in one transaction, and return its result.

        They run right here, in the loop's thread: a turn's scripts take tens of microseconds, and a trip to
        aiosqlite's thread costs more than that (bench/trips.py). When another connection is writing to the file,
        BEGIN waits for it in aiosqlite's thread. Scripts that arrive while the connection is busy wait for the
        lock, and run in the order they came (asyncio's lock is first come, first served), each in its own
        transaction.
        """
        self._wrote()
        async with self.lock:
            self._check_open()
            if not begin_at_once(self.raw):
                await self.begin_patiently()
            return finish(self.raw, script)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[LoopSession]:
        """The connection inside BEGIN IMMEDIATE … COMMIT (ROLLBACK on any error), in the loop's thread; only
        BEGIN, when another connection is writing, waits for it in aiosqlite's thread."""
        async with self.lock:
            self._check_open()
            connection = self.raw
            if not begin_at_once(connection):
                await self.begin_patiently()
            try:
                yield LoopSession(self)
            except BaseException:
                if connection.in_transaction:  # SQLite may have rolled back already (a full disk)
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        self._wrote()

    def _wrote(self) -> None:
        """Count a script, session or transaction; every CHECKPOINT_EVERY of them, checkpoint in a thread."""
        self._since_checkpoint += 1
        if self._since_checkpoint < CHECKPOINT_EVERY or self._path is None:
            return
        if self._checkpoint is None or self._checkpoint.done():
            self._since_checkpoint = 0
            self._checkpoint = asyncio.create_task(self._checkpoint_in_thread(self._path))

    @staticmethod
    async def _checkpoint_in_thread(path: str) -> None:
        try:
            await asyncio.to_thread(checkpoint_file, path)
        except sqlite3.Error as error:  # the next one tries again; meanwhile the log only grows
            log.warning("could not checkpoint the database's write-ahead log: %s", error)

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

    async def take_process_lock(self, key: int) -> bool:
        """True: one process owns a SQLite file."""
        return True

    async def close(self) -> None:
        self.closed = True  # from now on a script or session fails at once, as aiosqlite's own calls do
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        await self.connection.close()
