"""The two databases under every owner of tables: SQLite (one file, one connection) and PostgreSQL (a pool,
several machines).

One backend is opened (memory/store/database.py) and shared by memory's Store, the usage meter
(memory/store/meter.py) and the transport's store (transport/transport_store.py); each writes its SQL
once, with `?` placeholders, and what differs between the engines lives here, in one `Dialect` per backend. Each
backend's way of opening sessions and transactions, of running a script, and of taking a lock across machines is in
memory/store/sqlite_backend.py and memory/store/postgres_backend.py.
"""

from __future__ import annotations

import importlib
import sqlite3
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Protocol, Sequence


def database_errors() -> tuple[type[BaseException], ...]:
    """The errors of either engine, for callers that report a database they cannot use (`except
    database_errors()`). asyncpg's are among them once it is imported, which only PostgreSQL does: on SQLite the
    driver costs no memory (about 3 MiB resident)."""
    asyncpg = sys.modules.get("asyncpg")
    return (sqlite3.Error, OSError) + ((asyncpg.PostgresError, asyncpg.InterfaceError) if asyncpg else ())


def passing_errors() -> tuple[type[BaseException], ...]:
    """The errors of either engine that pass by themselves: a full disk, a database locked too long, a lost or
    refused PostgreSQL connection, a server shutting down. A turn that fails on one is tried again later; a
    constraint or a syntax error is a bug, and is not among them."""
    asyncpg = sys.modules.get("asyncpg")
    found: tuple[type[BaseException], ...] = (sqlite3.OperationalError, OSError)
    if asyncpg:
        found += (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, asyncpg.InsufficientResourcesError,
                  asyncpg.OperatorInterventionError, asyncpg.TransactionRollbackError, asyncpg.LockNotAvailableError)
    return found


def asyncpg_module() -> Any:
    """Import the PostgreSQL driver, on first use."""
    try:
        return importlib.import_module("asyncpg")
    except ImportError:  # pragma: no cover - asyncpg is in requirements.txt
        raise OSError("DATABASE_URL names PostgreSQL, but asyncpg is not installed (pip install asyncpg)") from None


def iso(moment: datetime) -> str:
    """Return `moment` as every table keeps one: ISO 8601 text in UTC, which sorts as time does."""
    return moment.astimezone(timezone.utc).isoformat()


class Session(Protocol):
    """What the owners' queries use of a connection: aiosqlite's Connection has it, and so has PostgresSession."""

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ...) -> Sequence[Any]: ...

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


def is_postgres_url(target: object) -> bool:
    """True for a postgresql:// (or postgres://) URL."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
