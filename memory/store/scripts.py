"""Scripts: a store operation written once for both engines, and the loops that run one (on SQLite in the loop's
own thread, memory/store/sqlite_backend.py; on PostgreSQL statement by statement)."""

from __future__ import annotations

import sqlite3
from typing import Any, Awaitable, Callable, Generator, Sequence, TypeVar

T = TypeVar("T")

# A store operation written once for both engines: a generator that yields each statement as (sql, params), is
# sent the statement's rows back, and returns the operation's result. SQLite runs all of it at once, in one
# transaction; PostgreSQL awaits the statements one by one on one pooled connection,
# each committing on its own (BEGIN and COMMIT would be two round trips more). So a script orders its statements
# so that a crash between any two leaves a consistent database.
Script = Generator[tuple[str, Sequence[Any]], list, T]


def statement(sql: str, params: Sequence[Any] = ()) -> Script[list]:
    """A script of one statement; it returns the statement's rows."""
    rows = yield sql, params
    return rows


def begin_at_once(connection: sqlite3.Connection) -> bool:
    """BEGIN IMMEDIATE on a connection that never waits (busy_timeout 0): False, with nothing begun, when another
    connection is writing."""
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode == sqlite3.SQLITE_BUSY:
            return False
        raise
    return True


def finish(connection: sqlite3.Connection, script: Script[T]) -> T:
    """Run the statements of `script` in the transaction begun on `connection`; COMMIT, or ROLLBACK on any error."""
    try:
        result = each_statement(connection, script)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return result


def each_statement(connection: sqlite3.Connection, script: Script[T]) -> T:
    """Run the statements of `script` on a sqlite3 connection, one after the other; return its result."""
    try:
        sql, params = next(script)
        while True:
            sql, params = script.send(connection.execute(sql, params).fetchall())
    except StopIteration as done:
        return done.value


async def await_each_statement(execute: Callable[[str, Sequence[Any]], Awaitable[Any]], script: Script[T]) -> T:
    """Run the statements of `script` through `execute(sql, params)`, awaiting each; return its result."""
    try:
        sql, params = next(script)
        while True:
            sql, params = script.send(list(await execute(sql, params)))
    except StopIteration as done:
        return done.value
