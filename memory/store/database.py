"""The one database the bot opens: a backend that memory's Store, the usage meter and the transport's store share.

Each of them owns its own tables (tests/test_table_owners.py says which) and is built over the same backend, so
they share its connection (SQLite) or pool (PostgreSQL); the migrations that create every table run here, once.
"""

from __future__ import annotations

from pathlib import Path

from memory.store.backends import is_postgres_url
from memory.store.migrations import LATEST_VERSION
from memory.store.postgres_backend import PostgresBackend
from memory.store.sqlite_backend import SQLiteBackend

Backend = SQLiteBackend | PostgresBackend


async def open_database(target: Path | str, *, migrate_to: int | None = LATEST_VERSION) -> Backend:
    """Open the database at `target`, a SQLite file (created if needed) or a postgresql:// URL, and bring its
    schema up to `migrate_to` (None: leave it as it is)."""
    backend = await (PostgresBackend.open(str(target)) if is_postgres_url(target) else SQLiteBackend.open(target))
    try:
        if migrate_to is not None:
            await backend.migrate(migrate_to)
    except BaseException:
        await backend.close()
        raise
    return backend
