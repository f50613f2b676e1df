"""The PostgreSQL migrations build the same schema as the SQLite ones: tables, column order, indexes (memory's
migrations, then the transport's, as the bot runs them)."""

import sqlite3

import asyncpg

from memory.store.migrations import MIGRATIONS
from memory.store.migrations_pg import PG_MIGRATIONS
from transport import transport_migrations

TIME_COLUMNS = {
    "users": {"first_seen", "last_seen", "checkin_at", "blocked_at", "proactive_day", "extract_claim", "checkin_claim"},
    "messages": {"created_at"},
    "facts": {"created_at", "updated_at", "when_at", "followup_at", "followup_claim", "ended_at", "ended_on"},
    "fact_history": {"valid_from", "valid_until", "when_at"},
    "inbox": {"received_at", "handled_at"},
    "topics": {"started_at", "ended_at"},
    "usage": {"at"},
    "forgotten": {"created_at", "expires_at"},
    "reminders": {"due_at", "created_at", "claim_until", "delivered_at"},
    "memory_events": {"at", "learned_at"},
}


def sqlite_schema() -> tuple[dict[str, list[str]], set[str]]:
    """Columns in order per table, and index names, after every SQLite migration."""
    db = sqlite3.connect(":memory:")
    for _, _, statements in MIGRATIONS + transport_migrations.MIGRATIONS:
        for statement in statements:
            db.execute(statement)
    listed = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
    tables = [r[0] for r in listed]
    columns = {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in tables}
    indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    db.close()
    return columns, {name for name in indexes if not name.startswith("sqlite_autoindex_")}


async def migrated(url: str) -> asyncpg.Connection:
    """A connection to a schema with every PG migration applied, one transaction each."""
    conn = await asyncpg.connect(url)
    for _, _, statements in PG_MIGRATIONS + transport_migrations.PG_MIGRATIONS:
        async with conn.transaction():
            for statement in statements:
                await conn.execute(statement)
    return conn


def test_numbered_and_named_like_sqlite():
    assert [(v, n) for v, n, _ in PG_MIGRATIONS] == [(v, n) for v, n, _ in MIGRATIONS]


async def test_same_tables_and_column_order(pg_url):
    expected, _ = sqlite_schema()
    conn = await migrated(pg_url)
    try:
        rows = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
    finally:
        await conn.close()
    actual: dict[str, list[str]] = {}
    for row in rows:
        actual.setdefault(row["table_name"], []).append(row["column_name"])
    assert actual == expected


async def test_time_columns_compare_bytewise(pg_url):
    conn = await migrated(pg_url)
    try:
        rows = await conn.fetch(
            "SELECT table_name, column_name, collation_name FROM information_schema.columns"
            " WHERE table_schema = current_schema()"
        )
        # Under the test server's ICU default collation, this pair compares the wrong way round.
        await conn.execute(
            "INSERT INTO inbox (update_id, received_at) VALUES (1, '2026-01-01T10:00:00+00:00'),"
            " (2, '2026-01-01T10:00:00.5+00:00')"
        )
        order = [r[0] for r in await conn.fetch("SELECT update_id FROM inbox ORDER BY received_at")]
    finally:
        await conn.close()
    collated = {(r["table_name"], r["column_name"]) for r in rows if r["collation_name"] == "C"}
    expected = {(table, column) for table, columns in TIME_COLUMNS.items() for column in columns}
    assert collated == expected
    assert order == [1, 2]


async def test_same_index_names(pg_url):
    _, expected = sqlite_schema()
    conn = await migrated(pg_url)
    try:
        rows = await conn.fetch(
            "SELECT i.indexname FROM pg_indexes i WHERE i.schemaname = current_schema()"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname"
            " AND c.connamespace = current_schema()::regnamespace)"
        )
    finally:
        await conn.close()
    assert {r[0] for r in rows} == expected


async def test_search_path_is_the_fresh_schema(pg_url):
    conn = await asyncpg.connect(pg_url)
    try:
        schema = await conn.fetchval("SELECT current_schema()")
        await conn.execute("CREATE TABLE probe (id BIGINT)")
        where = await conn.fetchval("SELECT table_schema FROM information_schema.tables WHERE table_name = 'probe'")
    finally:
        await conn.close()
    assert schema.startswith("t_") and where == schema
