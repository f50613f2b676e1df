"""The transport's own schema: the inbox and the send budget, with numbered migrations recorded in transport_version.

Memory's migrations (memory/store/migrations.py, migrations_pg.py) used to create these tables, as their versions
4 (the inbox), 9 (whose update it is) and 11 (the send budget). Those statements moved here as versions 1, 2 and
3, and memory's migrations no longer touch the transport's tables: the DDL of a table lives with its owner.

Why that rewrite of old migrations breaks no database: a database that already ran memory's old 4, 9 or 11 has
those tables, but no transport_version yet. The first time this code opens it, `held_version` reads which of
them it holds (the inbox, its user_id column, the send budget) and records the transport migrations that made
exactly that shape as done; only the ones still missing run. So a database at any old memory version, or a blank
one, ends with the same schema, whichever of memory's migrations it had run (tests/test_transport_migrations.py
builds each old shape with the old statements and checks). Memory's user_version (SQLite) and schema_version
(PostgreSQL) keep their numbers: memory's migrations 4, 9 and 11 stay, doing only their memory part.

The transport's version is a table of its own on both engines, since SQLite's PRAGMA user_version is memory's.
On PostgreSQL each migration holds a transaction-scoped advisory lock, so machines starting together migrate one
after the other.
"""

from __future__ import annotations

from memory.store.backends import Session
from memory.store.database import Backend
from memory.store.postgres_backend import PostgresBackend

MIGRATION_LOCK = -3  # memory's migrations take -1, the poller -2 (transport/transport_store.py)

# (version, what it does, its statements): SQLite's first, then PostgreSQL's, numbered and named alike.
MIGRATIONS: list[tuple[int, str, tuple[str, ...]]] = [
    (
        1,
        "inbox of updates",
        (
            # Every update is written here before Telegram is told it arrived, and marked handled once
            # its handlers have run: after a crash the unhandled ones are replayed, and a redelivered
            # one is recognised. The payload (secrets masked) is dropped as soon as it is handled.
            """
            CREATE TABLE inbox (
                update_id INTEGER PRIMARY KEY,
                payload TEXT,                        -- the update as JSON while it waits; NULL once handled
                received_at TEXT NOT NULL,
                handled_at TEXT
            )
            """,
        ),
    ),
    (
        2,
        "whose update it is",
        (
            # The user (else the chat) an update belongs to: their earlier unhandled updates go first.
            "ALTER TABLE inbox ADD COLUMN user_id INTEGER",
            "CREATE INDEX inbox_unhandled ON inbox(user_id, update_id) WHERE handled_at IS NULL",
        ),
    ),
    (
        3,
        "Telegram's rate shared by several machines",
        (
            # One row: the token bucket every process of the bot takes a token from before a request to Telegram
            # (PostgreSQL only; one process on SQLite keeps its bucket in memory). refilled_at is in seconds
            # since the epoch, on the database's clock.
            """
            CREATE TABLE send_budget (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                tokens REAL NOT NULL,
                refilled_at REAL NOT NULL
            )
            """,
        ),
    ),
]

PG_MIGRATIONS: list[tuple[int, str, tuple[str, ...]]] = [
    (
        1,
        "inbox of updates",
        (
            # update_id: a plain BIGINT key, Telegram's id.
            """
            CREATE TABLE inbox (
                update_id BIGINT PRIMARY KEY,
                payload TEXT,
                received_at TEXT COLLATE "C" NOT NULL,
                handled_at TEXT COLLATE "C"
            )
            """,
        ),
    ),
    (
        2,
        "whose update it is",
        (
            "ALTER TABLE inbox ADD COLUMN user_id BIGINT",
            "CREATE INDEX inbox_unhandled ON inbox(user_id, update_id) WHERE handled_at IS NULL",
        ),
    ),
    (
        3,
        "Telegram's rate shared by several machines",
        (
            """
            CREATE TABLE send_budget (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                tokens DOUBLE PRECISION NOT NULL,
                refilled_at DOUBLE PRECISION NOT NULL
            )
            """,
        ),
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]

# A primary key: copy-db copies this table too, and a version already there is skipped, not doubled.
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS transport_version (version INTEGER PRIMARY KEY)"


def shape_version(columns: dict[str, set[str]]) -> int:
    """Return the transport migration that the tables found (table: its columns) amount to: 0 for none of them."""
    if "inbox" not in columns:
        return 0
    if "user_id" not in columns["inbox"]:
        return 1
    return 3 if "send_budget" in columns else 2


async def columns_found(db: Session, on_postgres: bool) -> dict[str, set[str]]:
    """Return the transport's tables the database holds, each with its columns."""
    if on_postgres:
        rows = await db.execute_fetchall(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name IN ('inbox', 'send_budget')"
        )
    else:
        rows = await db.execute_fetchall(
            "SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c"
            " WHERE m.type = 'table' AND m.name IN ('inbox', 'send_budget')"
        )
    found: dict[str, set[str]] = {}
    for table, column in rows:
        found.setdefault(str(table), set()).add(str(column))
    return found


async def held_version(db: Session, on_postgres: bool) -> int:
    """Return the last transport migration the database holds; the first time, read from the tables memory's old
    migrations made, and recorded."""
    await db.execute(VERSION_TABLE)
    [(done,)] = await db.execute_fetchall("SELECT MAX(version) FROM transport_version")
    if done is not None:
        return int(done)
    adopted = shape_version(await columns_found(db, on_postgres))
    for version in range(1, adopted + 1):
        await db.execute("INSERT INTO transport_version (version) VALUES (?)", (version,))
    return adopted


async def transport_version(backend: Backend) -> int:
    """Return the last transport migration the database holds (0 for a database that holds none of its tables)."""
    async with backend.transaction() as db:
        return await held_version(db, isinstance(backend, PostgresBackend))


async def migrate_transport(backend: Backend, target: int = LATEST_VERSION) -> int:
    """Apply the transport's migrations above the database's version up to `target`, each in its own transaction;
    return the version reached."""
    on_postgres = isinstance(backend, PostgresBackend)
    steps = PG_MIGRATIONS if on_postgres else MIGRATIONS
    while True:
        async with backend.transaction() as db:
            if on_postgres:
                await db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            done = await held_version(db, on_postgres)
            if done >= target:
                return done
            version, _name, statements = steps[done]
            for sql in statements:
                await db.execute(sql)
            await db.execute("INSERT INTO transport_version (version) VALUES (?)", (version,))
