"""The store: what the bot remembers of its users, in the database it shares (memory/store/database.py).

The inbox, the send budget and the poller lock are the transport's (transport/transport_store.py, its schema in
transport/transport_migrations.py), the usage ledger the meter's (memory/store/meter.py); tests/test_table_owners.py
says which tables each may touch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from memory.store.account_rows import AccountRows
from memory.store.claims import ClaimQueries
from memory.store.database import Backend, open_database
from memory.store.edit_rows import EditQueries
from memory.store.event_rows import EventQueries
from memory.store.fact_rows import FactQueries
from memory.store.forget_rows import ForgetQueries
from memory.store.import_rows import ImportRows
from memory.store.migrations import LATEST_VERSION
from memory.store.outreach_rows import ProactiveQueries
from memory.store.postgres_backend import PostgresBackend
from memory.store.reminder_rows import ReminderQueries
from memory.store.scope_rows import ScopeQueries
from memory.store.topic_rows import TopicQueries
from memory.store.turn_rows import TurnQueries
from memory.store.user_rows import UserRows


@dataclass(frozen=True)
class Store:
    """Memory's repositories over one database, and the database's own operations (open, migrate, back up, close).

    Only bot.py's wiring and the tests hold it whole: each service is given the repositories it uses (each a class of
    its own over the backend, memory/store/rows.py; tests/test_table_owners.py says which tables each touches).
    """

    backend: Backend  # the database under the store, which the usage meter and the transport's store share
    turns: TurnQueries
    facts: FactQueries
    forgetting: ForgetQueries
    outreach: ProactiveQueries
    topics: TopicQueries
    claims: ClaimQueries
    edits: EditQueries
    reminders: ReminderQueries
    scopes: ScopeQueries
    events: EventQueries
    users: UserRows
    accounts: AccountRows  # /export and /forget: the one repository that spans the tables
    imports: ImportRows  # `bot.py import` and an export sent to the bot: a user's memory written at once

    @classmethod
    def over(cls, backend: Backend) -> "Store":
        """Return every repository of memory's tables, each over `backend`."""
        return cls(
            backend=backend, turns=TurnQueries(backend), facts=FactQueries(backend),
            forgetting=ForgetQueries(backend), outreach=ProactiveQueries(backend), topics=TopicQueries(backend),
            claims=ClaimQueries(backend), edits=EditQueries(backend), reminders=ReminderQueries(backend),
            scopes=ScopeQueries(backend), events=EventQueries(backend), users=UserRows(backend),
            accounts=AccountRows(backend), imports=ImportRows(backend),
        )

    @classmethod
    async def open(cls, target: Path | str, *, migrate_to: int | None = LATEST_VERSION) -> "Store":
        """Open the database at `target` (open_database: a SQLite file or a postgresql:// URL, migrated) and
        return the store over it."""
        return cls.over(await open_database(target, migrate_to=migrate_to))

    @property
    def on_postgres(self) -> bool:
        """True when the store runs on PostgreSQL: several machines may share it."""
        return isinstance(self.backend, PostgresBackend)

    @staticmethod
    async def backup(source: Path | str, target: Path | str) -> str:
        """Copy the SQLite database at `source` to `target` with SQLite's online backup API; return integrity_check.

        Safe while the bot runs and writes: the copy is one consistent snapshot.
        """
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        async with aiosqlite.connect(str(source)) as db, aiosqlite.connect(str(target)) as copy:
            await db.backup(copy)
            rows = await copy.execute_fetchall("PRAGMA integrity_check")
        return str(next(iter(rows))[0])

    async def close(self) -> None:
        """Close the database, for every owner built over it: the connection (SQLite checkpoints its WAL) or the
        pool."""
        await self.backend.close()

    async def schema_version(self) -> int:
        """Return the number of the last migration applied."""
        return await self.backend.schema_version()

    async def migrate(self, target: int = LATEST_VERSION) -> None:
        """Apply, in order and each in its own transaction, the migrations above the current version."""
        await self.backend.migrate(target)
