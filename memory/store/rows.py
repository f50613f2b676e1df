"""The base of every repository of memory's tables: one backend, and the three ways to run SQL on it."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Awaitable

from memory.store.backends import Dialect, Session
from memory.store.database import Backend
from memory.store.postgres_backend import PostgresBackend
from memory.store.scripts import Script, T


class Rows:
    """A repository over the shared database (memory/store/database.py): each subclass owns a few tables and touches
    only those (tests/test_table_owners.py)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._dialect: Dialect = backend.dialect

    @property
    def on_postgres(self) -> bool:
        """True when the database is PostgreSQL: several machines may share it, and claim work in it first."""
        return isinstance(self._backend, PostgresBackend)

    def _session(self) -> AbstractAsyncContextManager[Session]:
        """A connection whose statements each commit on their own."""
        return self._backend.session()

    def _transaction(self) -> AbstractAsyncContextManager[Session]:
        """A connection inside one transaction, rolled back on any error."""
        return self._backend.transaction()

    def _run(self, script: Script[T]) -> Awaitable[T]:
        """Run a script (scripts.Script): on SQLite at once in one transaction, on PostgreSQL statement by statement."""
        return self._backend.run(script)
