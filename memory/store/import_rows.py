"""Writing what an import brings (importing/, services/importer.py): one user at a time, each in one transaction,
so an import cut short or refused half-way leaves every user either imported or as they were."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memory.facts import Extraction, Fact, comparable
from memory.store.backends import Session
from memory.store.backends import iso as _iso
from memory.store.fact_rows import FactQueries
from memory.store.rows import Rows


@dataclass(frozen=True)
class Imported:
    """What one user's import wrote: messages added, facts new or changed, older values kept as history."""

    messages: int
    facts: int
    history: int


class ImportRows(Rows):
    """A user's memory written from an import: their row, session messages and facts, never doubled on a rerun."""

    async def import_user(
        self, user_id: int, messages: list[tuple[str, str]], facts: Extraction, at: datetime, max_facts: int,
        *, read: bool, via: str = "import",
    ) -> Imported:
        """Write the user's imported `messages` ((role, content), oldest first) and `facts`, as of `at` (when the
        user last talked there), in one transaction; return what changed.

        A message already stored for the user at `at` with the same words is not stored again, so an import
        may run twice. A fact this bot has heard newer than `at` wins: an imported value unlike it goes to its
        history instead (once). The others merge as a message's would (FactQueries.merge_facts), recorded as
        learned `via` the import. "Last talked" moves to `at` unless the user has talked here since. `read`:
        the messages count as read by the extractor (their facts came with them), unless the user already had
        unread messages of their own.
        """
        stamp = _iso(at)
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            await db.execute(
                "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE"
                f" SET last_seen = {self._dialect.greatest}(users.last_seen, excluded.last_seen)",
                (user_id, stamp, stamp),
            )
            added = await self._add_messages(db, user_id, messages, stamp, read)
            fact_rows = FactQueries(self._backend)
            known = {fact.key: fact for fact in await fact_rows.facts_in(db, user_id)}
            newer = [fact for fact in facts.facts if not self._heard_since(known.get(fact.key), at)]
            history = 0
            for fact in facts.facts:
                old = known.get(fact.key)
                if self._heard_since(old, at) and old is not None and comparable(old.value) != comparable(fact.value):
                    history += await self._keep_older(db, user_id, old, fact, stamp)
            saved = await fact_rows.merge_facts(db, user_id, Extraction(newer, facts.relations), at, max_facts,
                                                via=via)
        return Imported(added, len(saved), history)

    @staticmethod
    def _heard_since(old: Fact | None, at: datetime) -> bool:
        """True when the bot learned or confirmed `old` after `at`: what the user said here since wins."""
        return old is not None and old.updated_at is not None and old.updated_at > at

    async def _add_messages(self, db: Session, user_id: int, messages: list[tuple[str, str]], stamp: str,
                            read: bool) -> int:
        """Store the messages not stored yet at `stamp`; mark them read when `read` and nothing else is unread."""
        rows = await db.execute_fetchall(
            "SELECT role, content FROM messages WHERE user_id = ? AND created_at = ?", (user_id, stamp))
        stored = {(row[0], row[1]) for row in rows}
        unread = await db.execute_fetchall(
            "SELECT COUNT(*) FROM messages m JOIN users u ON u.id = m.user_id WHERE m.user_id = ? AND m.role = 'user'"
            " AND m.id > u.extracted_upto", (user_id,))
        last, added = None, 0
        for role, content in messages:
            if (role, content) in stored:
                continue
            stored.add((role, content))
            [(last,)] = await db.execute_fetchall(
                "INSERT INTO messages (user_id, role, content, created_at, kind) VALUES (?, ?, ?, ?, 'text')"
                " RETURNING id", (user_id, role, content, stamp))
            added += 1
        if read and last is not None and not int(unread[0][0]):
            await db.execute(
                f"UPDATE users SET extracted_upto = {self._dialect.greatest}(extracted_upto, ?) WHERE id = ?",
                (last, user_id))
        return added

    @staticmethod
    async def _keep_older(db: Session, user_id: int, old: Fact, fact: Fact, stamp: str) -> int:
        """Keep the imported `fact`, older than the bot's `old`, in old's history (once); return 1 if written."""
        rows = await db.execute_fetchall(
            "SELECT 1 FROM fact_history WHERE fact_id = ? AND value = ?", (old.id, fact.value))
        if rows:
            return 0
        await db.execute(
            "INSERT INTO fact_history (fact_id, user_id, value, source, valid_from, valid_until, when_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (old.id, user_id, fact.value, fact.source, stamp, _iso(old.updated_at) if old.updated_at else stamp, fact.when),
        )
        return 1
