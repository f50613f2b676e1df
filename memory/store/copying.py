"""copy-db: copy a SQLite database into PostgreSQL, table by table; safe to re-run, and the source is only read.

Stop the bot first: rows it writes to the SQLite file after the copy has read it are not copied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import aiosqlite

from memory.store.backends import is_postgres_url
from memory.store.database import Backend, open_database
from memory.store.migrations import LATEST_VERSION
from memory.store.postgres_backend import PostgresBackend

BATCH = 1_000  # rows per executemany
CONVERT: dict[str, Callable[[Any], Any]] = {
    "bigint": int, "integer": int, "smallint": int, "double precision": float, "real": float,
    "bytea": bytes, "text": str,
}


def same(value: Any) -> Any:
    return value


class CopyError(Exception):
    """The copy cannot start or cannot finish; the message says why, in one line."""


def in_fk_order(tables: list[str], parents: dict[str, set[str]]) -> list[str]:
    """`tables` with each one after the tables its foreign keys point to (creation order otherwise)."""
    ordered: list[str] = []
    while len(ordered) < len(tables):
        ready = [t for t in tables if t not in ordered and parents[t] - {t} <= set(ordered)]
        if not ready:
            raise CopyError(f"foreign keys form a cycle among {sorted(set(tables) - set(ordered))}")
        ordered.append(ready[0])
    return ordered


async def copy_sqlite_to_postgres(
    source: Path | str, target: str, batch: int = BATCH,
    also_migrate: Callable[[Backend], Awaitable[object]] | None = None,
) -> dict[str, tuple[int, int]]:
    """Copy every table of the SQLite file `source` into the PostgreSQL database `target` (migrated first, by
    memory's migrations and by `also_migrate`: the other owners' own, such as the transport's); return
    {table: (rows in the source, rows in the target)}, in copy order."""
    source = Path(source)
    if not is_postgres_url(target):
        raise CopyError("--to must be a postgresql:// URL")
    if not source.is_file():
        raise CopyError(f"no SQLite database at {source}")
    uri = source.resolve().as_uri() + "?mode=ro"
    if not any(Path(f"{source}-{end}").exists() for end in ("wal", "journal")):
        uri += "&immutable=1"  # closed cleanly, all in the one file: read it without creating a -wal and -shm beside it
    async with aiosqlite.connect(uri, uri=True, isolation_level=None) as lite:
        version = next(iter(await lite.execute_fetchall("PRAGMA user_version")))[0]
        if version < LATEST_VERSION:
            raise CopyError(f"{source} is at schema version {version}, not {LATEST_VERSION}: start the bot once on it"
                            " to migrate it, stop it, then copy")
        if version > LATEST_VERSION:
            raise CopyError(f"{source} is at schema version {version}, newer than this code's {LATEST_VERSION}")
        await lite.execute("BEGIN")  # one snapshot of every table
        names = await lite.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            " ORDER BY rowid"
        )
        tables = [row[0] for row in names]
        parents = {t: {row[2] for row in await lite.execute_fetchall(f'PRAGMA foreign_key_list("{t}")')}
                   for t in tables}
        backend = await open_database(target)
        try:
            if also_migrate is not None:
                await also_migrate(backend)
            assert isinstance(backend, PostgresBackend)  # a postgresql:// URL, checked above
            async with backend.pool.acquire() as pg:
                return await _copy(lite, pg, in_fk_order(tables, parents), batch)
        finally:
            await backend.close()


async def _copy(lite: aiosqlite.Connection, pg: Any, tables: list[str], batch: int) -> dict[str, tuple[int, int]]:
    """Copy `tables` from `lite` to `pg` in one PostgreSQL transaction, reset their sequences, count both sides."""
    counts: dict[str, tuple[int, int]] = {}
    async with pg.transaction():
        for table in tables:
            columns = [row[1] for row in await lite.execute_fetchall(f'PRAGMA table_info("{table}")')]
            types = dict(await pg.fetch(
                "SELECT column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = $1", table,
            ))
            if not types:
                raise CopyError(f"table {table} of the SQLite database is missing from the PostgreSQL schema")
            missing = [c for c in columns if c not in types]
            if missing:
                raise CopyError(f"table {table} in PostgreSQL lacks the columns {', '.join(missing)}")
            convert = [CONVERT.get(types[c], same) for c in columns]
            names = ", ".join(f'"{c}"' for c in columns)
            insert = (f'INSERT INTO "{table}" ({names}) VALUES ({", ".join(f"${i + 1}" for i in range(len(columns)))})'
                      " ON CONFLICT DO NOTHING")
            cursor = await lite.execute(f'SELECT {names} FROM "{table}"')
            while rows := await cursor.fetchmany(batch):
                await pg.executemany(insert, [
                    tuple(None if v is None else f(v) for f, v in zip(convert, row, strict=True)) for row in rows
                ])
            await cursor.close()
            if await pg.fetchval(
                "SELECT is_identity = 'YES' FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'", table,
            ):
                await pg.execute(
                    f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'),"
                    f' GREATEST((SELECT MAX(id) FROM "{table}"), 1), EXISTS (SELECT FROM "{table}"))'
                )
            source_rows = next(iter(await lite.execute_fetchall(f'SELECT COUNT(*) FROM "{table}"')))[0]
            counts[table] = (source_rows, await pg.fetchval(f'SELECT COUNT(*) FROM "{table}"'))
    return counts
