"""The transport's migrations (transport/transport_migrations.py): numbered, alike on both engines, and bringing a
blank database and every database memory's old migrations left (which made the inbox and the send budget then) to
one schema."""

from datetime import datetime, timezone

import pytest

from memory.store.database import open_database
from memory.store.migrations import LATEST_VERSION as MEMORY_LATEST
from memory.store.postgres_backend import PostgresBackend
from transport.transport_migrations import (
    LATEST_VERSION,
    MIGRATIONS,
    PG_MIGRATIONS,
    migrate_transport,
    shape_version,
    transport_version,
)
from transport.transport_store import TransportStore

# The memory migration that used to run each transport migration's statements, before they moved here.
MADE_BY_MEMORY = {1: 4, 2: 9, 3: 11}
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def test_numbered_in_order_and_named_alike_on_both_engines():
    assert [version for version, _, _ in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert [(v, n) for v, n, _ in PG_MIGRATIONS] == [(v, n) for v, n, _ in MIGRATIONS]


def test_the_shape_found_names_the_migration_that_made_it():
    assert shape_version({}) == 0
    assert shape_version({"inbox": {"update_id", "payload", "received_at", "handled_at"}}) == 1
    assert shape_version({"inbox": {"update_id", "user_id"}}) == 2
    assert shape_version({"inbox": {"update_id", "user_id"}, "send_budget": {"id"}}) == 3


async def schema(backend) -> tuple[dict[str, list[str]], set[str]]:
    """Return the transport's tables with their columns in order, and the indexes on them."""
    async with backend.session() as db:
        if isinstance(backend, PostgresBackend):
            rows = await db.execute_fetchall(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name IN ('inbox', 'send_budget', 'transport_version') ORDER BY table_name, ordinal_position"
            )
            indexes = await db.execute_fetchall(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'inbox'"
                " AND indexname <> 'inbox_pkey'"
            )
        else:
            rows = await db.execute_fetchall(
                "SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table'"
                " AND m.name IN ('inbox', 'send_budget', 'transport_version') ORDER BY m.name, c.cid"
            )
            indexes = await db.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inbox'"
                " AND name NOT LIKE 'sqlite_%'"
            )
    columns: dict[str, list[str]] = {}
    for table, column in rows:
        columns.setdefault(table, []).append(column)
    return columns, {row[0] for row in indexes}


LATEST_SCHEMA = (
    {"inbox": ["update_id", "payload", "received_at", "handled_at", "user_id"],
     "send_budget": ["id", "tokens", "refilled_at"], "transport_version": ["version"]},
    {"inbox_unhandled"},
)


async def test_a_blank_database_gets_every_migration_and_a_second_run_changes_nothing(database):
    backend = await open_database(database)
    try:
        assert await migrate_transport(backend) == LATEST_VERSION
        assert await schema(backend) == LATEST_SCHEMA
        assert await migrate_transport(backend) == LATEST_VERSION
        async with backend.session() as db:
            rows = await db.execute_fetchall("SELECT version FROM transport_version ORDER BY version")
        assert [row[0] for row in rows] == list(range(1, LATEST_VERSION + 1))
    finally:
        await backend.close()


async def test_a_migration_at_a_time_reaches_the_same_schema(database):
    backend = await open_database(database)
    try:
        for target in range(LATEST_VERSION + 1):
            assert await migrate_transport(backend, target) == target
            assert await transport_version(backend) == target
        assert await schema(backend) == LATEST_SCHEMA
    finally:
        await backend.close()


@pytest.mark.parametrize("memory_version", range(0, MEMORY_LATEST + 1))
async def test_a_database_memorys_old_migrations_left_migrates_to_the_same_schema(database, memory_version):
    """Built as the old code left it: memory's migrations up to `memory_version`, with the transport's tables as those
    migrations made them then (the same statements, now the transport's), and no transport_version."""
    backend = await open_database(database, migrate_to=memory_version)
    steps = PG_MIGRATIONS if isinstance(backend, PostgresBackend) else MIGRATIONS
    made = [step for step in steps if MADE_BY_MEMORY[step[0]] <= memory_version]
    try:
        for _version, _name, statements in made:
            async with backend.transaction() as db:
                for sql in statements:
                    await db.execute(sql)
        if made:
            async with backend.session() as db:
                await db.execute("INSERT INTO inbox (update_id, payload, received_at)"
                                 " VALUES (7, '{}', '2026-01-01T00:00:00+00:00')")
        await backend.migrate(MEMORY_LATEST)
        assert await transport_version(backend) == len(made)  # adopted from the tables found, and recorded
        transport = await TransportStore.open(backend)
        assert await schema(backend) == LATEST_SCHEMA
        assert await transport.unhandled_updates() == (["{}"] if made else [])  # an update waiting is kept
        assert await transport.record_updates([(8, "{}", 1)], T0) == {8}
    finally:
        await backend.close()
