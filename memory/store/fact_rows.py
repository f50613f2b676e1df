"""The store's fact tables: facts, their history and relations (part of Store, on either engine)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Callable

from memory.continuity import Topic
from memory.facts import (
    STATE_DAYS,
    Correction,
    Ending,
    Extraction,
    Fact,
    Relation,
    comparable,
    merge_action,
    with_list_merged,
)
from memory.store.backends import Dialect, Session
from memory.store.backends import iso as _iso
from memory.store.event_rows import BY_USER, CORRECTED, LEARNED, REMOVED, REPLACED, event_rows, record_events
from memory.store.rows import Rows
from memory.store.topic_rows import save_topic

FACT_COLUMNS = (
    "id, category, key, value, importance, confidence, source, source_message_id, created_at, updated_at, when_at,"
    " ended_at, ended, ended_on, shared"
)
FACT_COLUMN_NAMES = tuple(FACT_COLUMNS.replace(" ", "").split(","))


def _fact(row: tuple) -> Fact:
    return Fact(
        id=row[0], category=row[1], key=row[2], value=row[3], importance=row[4], confidence=row[5],
        source=row[6], source_message_id=row[7],
        created_at=datetime.fromisoformat(row[8]), updated_at=datetime.fromisoformat(row[9]), when=row[10],
        ended_at=datetime.fromisoformat(row[11]) if row[11] else None, ended=row[12], ended_on=row[13],
        shared=bool(row[14]),
    )


class FactQueries(Rows):
    """Reading and writing a user's facts."""


    async def facts(self, user_id: int) -> list[Fact]:
        """Return all of the user's facts, oldest first."""
        async with self._session() as db:
            return await self._facts(db, user_id)

    async def fact_graph(self, user_id: int) -> tuple[list[Fact], list[Relation]]:
        """Return the user's facts and the relations among them (the fact graph)."""
        async with self._session() as db:
            facts = await self._facts(db, user_id)
            rows = await db.execute_fetchall(
                "SELECT s.key, t.key, r.relation, r.strength FROM fact_relations r"
                " JOIN facts s ON s.id = r.source_fact_id JOIN facts t ON t.id = r.target_fact_id"
                " WHERE r.user_id = ? AND s.user_id = ? AND t.user_id = ? ORDER BY r.id",
                (user_id, user_id, user_id),
            )
        return facts, [Relation(*row) for row in rows]

    async def fact_history(self, user_id: int, key: str) -> list[tuple[str, datetime, datetime]]:
        """Return the earlier values of a fact as (value, valid_from, valid_until), oldest first."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT h.value, h.valid_from, h.valid_until FROM fact_history h JOIN facts f ON f.id = h.fact_id"
                " WHERE f.user_id = ? AND f.key = ? ORDER BY h.id",
                (user_id, key),
            )
        return [(value, datetime.fromisoformat(start), datetime.fromisoformat(end)) for value, start, end in rows]

    async def save_facts(
        self,
        user_id: int,
        extraction: Extraction,
        now: datetime,
        max_facts: int,
        extracted_upto: int | None = None,
        plan: Callable[[Fact], datetime | None] | None = None,
        topic: Topic | None = None,
        max_topics: int = 30,
        forgets_seen: int | None = None,
        via: str | None = None,
    ) -> list[Fact]:
        """Merge facts and relations into the user's memory in one transaction; return the new or changed facts.

        The extraction's endings and corrections go first: an ended fact stays as the past, a corrected one
        takes its new value or date, and the old value goes to fact_history either way.
        With `extracted_upto`, the same transaction records that the user's messages up to that id were read.
        `plan` says when to write first about a new or changed fact (a follow-up, a birthday), or None.
        `topic` is the line of the conversation those messages belong to, kept with the newest `max_topics`.
        `forgets_seen` is forget_count() from before the messages were read: if the user had something
        forgotten since, nothing is saved (the answer may hold it) and an empty list comes back; the messages
        stay unread for the next pass. The same goes when the user was forgotten altogether (/forget) while
        the pass waited for the model.
        `via` names where the facts came from when not their own source ("page": typed on the memory page); each
        fact learned, corrected or replaced is recorded as such (memory/store/event_rows.py).
        """
        async with self._transaction() as db:
            if self._dialect.lock_user:  # another machine's turn or extraction pass merges after this one
                await db.execute(self._dialect.lock_user, (user_id,))
            if forgets_seen is not None and await self._forget_count(db, user_id) != forgets_seen:
                return []
            return await self.merge_facts(db, user_id, extraction, now, max_facts, extracted_upto, plan, topic,
                                          max_topics, via)

    async def merge_facts(
        self, db: Session, user_id: int, extraction: Extraction, now: datetime, max_facts: int,
        extracted_upto: int | None = None, plan: Callable[[Fact], datetime | None] | None = None,
        topic: Topic | None = None, max_topics: int = 30, via: str | None = None,
    ) -> list[Fact]:
        """Merge as save_facts does, inside the caller's transaction `db` (which has locked the user where the
        engine needs it): an import writes a user's messages and facts in one transaction (importing/)."""
        stamp = _iso(now)
        saved: list[Fact] = []
        known = {fact.key: fact for fact in await self._facts(db, user_id)}
        corrected = await self._correct(db, user_id, extraction.corrections, known, stamp, plan)
        saved += corrected
        for fact in corrected:
            await record_events(db, user_id, CORRECTED, via or fact.source, stamp, event_rows([fact], stamp))
        await self._end(db, user_id, extraction.endings, known, stamp)
        for fact in extraction.facts:
            fact = with_list_merged(known.get(fact.key), fact)
            family = fact.key.split(":")[0] + ":"
            siblings = [comparable(f.value) for k, f in known.items()
                        if ":" in fact.key and k.startswith(family) and f.ended is None]
            action = merge_action(known.get(fact.key), fact, siblings)
            due = plan(fact) if plan is not None and action in ("insert", "replace") else None
            if action == "insert":
                [(fact_id,)] = await db.execute_fetchall(
                    "INSERT INTO facts (user_id, category, key, value, importance, confidence, source,"
                    " source_message_id, created_at, updated_at, when_at, followup_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (user_id, fact.category, fact.key, fact.value, fact.importance, fact.confidence,
                     fact.source, fact.source_message_id, stamp, stamp, fact.when, due and _iso(due)),
                )
                fact = replace(fact, id=fact_id, created_at=now)
                await record_events(db, user_id, LEARNED, via or fact.source, stamp, event_rows([fact], stamp))
            elif action == "touch":
                await db.execute(
                    f"UPDATE facts SET updated_at = ?, importance = {self._dialect.greatest}(importance, ?)"
                    " WHERE user_id = ? AND key = ?",
                    (stamp, fact.importance, user_id, fact.key),
                )
            elif action == "replace":
                old = known[fact.key]
                await self._keep_history(db, user_id, old, stamp)
                await db.execute(
                    "UPDATE facts SET category = ?, value = ?, importance = ?, confidence = ?, source = ?,"
                    " source_message_id = ?, updated_at = ?, embedding = NULL, when_at = ?, followup_at = ?,"
                    " ended_at = NULL, ended = NULL, ended_on = NULL WHERE id = ?",
                    (fact.category, fact.value, fact.importance, fact.confidence, fact.source,
                     fact.source_message_id, stamp, fact.when, due and _iso(due), old.id),
                )
                fact = replace(fact, id=old.id)
                await record_events(db, user_id, REPLACED, via or fact.source, stamp, event_rows([old], stamp))
            if action in ("insert", "replace"):
                saved.append(fact)
                known[fact.key] = fact
            if fact.key == "name" and action != "skip":
                await db.execute("UPDATE users SET name = ? WHERE id = ?", (fact.value, user_id))
        await self._save_relations(db, user_id, extraction.relations)
        await self._evict(db, self._dialect, user_id, now, max_facts)
        if topic is not None and max_topics > 0:
            await save_topic(db, user_id, topic, max_topics)
        if extracted_upto is not None:
            await db.execute(
                f"UPDATE users SET extracted_upto = {self._dialect.greatest}(extracted_upto, ?) WHERE id = ?",
                (extracted_upto, user_id),
            )
        return saved

    async def forget_count(self, user_id: int) -> int:
        """Return how many times the user has had something forgotten (read before an extraction pass)."""
        async with self._session() as db:
            return await self._forget_count(db, user_id) or 0

    @staticmethod
    async def _forget_count(db: Session, user_id: int) -> int | None:
        """Return the user's count of forgets, or None when the user is not stored (or no longer)."""
        rows = await db.execute_fetchall("SELECT forgets FROM users WHERE id = ?", (user_id,))
        return next((int(row[0]) for row in rows), None)

    @staticmethod
    async def _keep_history(db: Session, user_id: int, old: Fact, stamp: str) -> None:
        """Record `old`'s value and date in fact_history, valid until it ended (or until now)."""
        until = _iso(old.ended_at) if old.ended_at else stamp
        await db.execute(
            "INSERT INTO fact_history (fact_id, user_id, value, source, valid_from, valid_until, when_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (old.id, user_id, old.value, old.source, _iso(old.updated_at) if old.updated_at else stamp, until,
             old.when),
        )

    async def _correct(
        self, db: Session, user_id: int, corrections: list[Correction], known: dict[str, Fact], stamp: str,
        plan: Callable[[Fact], datetime | None] | None,
    ) -> list[Fact]:
        """Give each corrected fact its new value, date and key (a clash with another known key is skipped)."""
        changed = []
        for correction in corrections:
            old, fact = known.get(correction.key), correction.fact
            if old is None or (fact.key != old.key and fact.key in known):
                continue
            due = plan(fact) if plan is not None else None
            await self._keep_history(db, user_id, old, stamp)
            await db.execute(
                "UPDATE facts SET key = ?, value = ?, when_at = ?, source_message_id = ?, updated_at = ?,"
                " embedding = NULL, followup_at = ? WHERE id = ?",
                (fact.key, fact.value, fact.when, fact.source_message_id, stamp,
                 None if old.ended else due and _iso(due), old.id),
            )
            if fact.key == "name":
                await db.execute("UPDATE users SET name = ? WHERE id = ?", (fact.value, user_id))
            fact = replace(old, key=fact.key, value=fact.value, when=fact.when,
                           source_message_id=fact.source_message_id)
            del known[correction.key]
            known[fact.key] = fact
            changed.append(fact)
        return changed

    @staticmethod
    async def _end(db: Session, user_id: int, endings: list[Ending], known: dict[str, Fact], stamp: str) -> None:
        """Mark each ended fact as the past: how and when it ended, the message that said so; no follow-up."""
        for ending in endings:
            old = known.get(ending.key)
            if old is None or old.ended == ending.how or (old.ended == "died" and ending.how == "ended"):
                continue  # unknown, or already so: the first date stays
            await db.execute(
                "UPDATE facts SET ended_at = ?, ended = ?, ended_on = ?, source_message_id = ?, followup_at = NULL"
                " WHERE id = ?",
                (stamp, ending.how, ending.on, ending.source_message_id, old.id),
            )
            known[ending.key] = replace(old, ended=ending.how, ended_on=ending.on, ended_at=datetime.fromisoformat(
                stamp), source_message_id=ending.source_message_id)

    async def delete_facts(self, user_id: int, fact_ids: list[int], now: datetime) -> int:
        """Delete those of `fact_ids` that belong to the user, in one transaction, each recorded as removed by the
        user at `now`; return how many went."""
        deleted: list[tuple[int, str, str | None]] = []
        async with self._transaction() as db:
            for fact_id in fact_ids:
                deleted += [(row[0], row[1], None) for row in await db.execute_fetchall(
                    "DELETE FROM facts WHERE id = ? AND user_id = ? RETURNING id, created_at", (fact_id, user_id))]
            await record_events(db, user_id, REMOVED, BY_USER, _iso(now), deleted)
            # The name the bot calls them by goes with its fact (an undone "call me …").
            await db.execute(
                "UPDATE users SET name = NULL WHERE id = ? AND name IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM facts WHERE user_id = ? AND key = 'name')",
                (user_id, user_id),
            )
        return len(deleted)

    async def facts_to_embed(self, user_id: int, model: str) -> list[Fact]:
        """Return the user's facts that have no vector from `model` (new, changed, or made by another model)."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ?"
                " AND (embedding IS NULL OR embedding_model IS DISTINCT FROM ?) ORDER BY id",
                (user_id, model),
            )
        return [_fact(row) for row in rows]

    async def save_embeddings(self, user_id: int, model: str, vectors: list[tuple[int, bytes, int]]) -> None:
        """Store (fact id, float32 BLOB, dimension) for the user's facts, in one transaction."""
        async with self._transaction() as db:
            for fact_id, blob, dim in vectors:
                await db.execute(
                    "UPDATE facts SET embedding = ?, embedding_model = ?, embedding_dim = ?"
                    " WHERE id = ? AND user_id = ?",
                    (blob, model, dim, fact_id, user_id),
                )

    async def fact_vectors(self, user_id: int, model: str) -> list[tuple[int, bytes, int]]:
        """Return (fact id, BLOB, dimension) of the user's facts embedded by `model` — one query, this user only."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT id, embedding, embedding_dim FROM facts WHERE user_id = ? AND embedding IS NOT NULL"
                " AND embedding_model = ?",
                (user_id, model),
            )
        return [(row[0], row[1], row[2]) for row in rows]

    async def pending_messages(self, user_id: int, limit: int) -> list[dict]:
        """Return up to `limit` of the user's messages the extractor has not read yet, oldest first.

        Each is {"id", "role", "content", "at", "kind"}: "at" (when it was written) resolves "tomorrow" and "on
        Friday"; "kind" tells a forwarded message (someone else's words) from the user's own.
        """
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT m.id, m.role, m.content, m.created_at, m.kind FROM messages m JOIN users u ON u.id = m.user_id"
                " WHERE m.user_id = ? AND m.id > u.extracted_upto ORDER BY m.id LIMIT ?",
                (user_id, limit),
            )
        return [{"id": row[0], "role": row[1], "content": row[2], "at": datetime.fromisoformat(row[3]), "kind": row[4]}
                for row in rows]

    async def unread_count(self, user_id: int) -> int:
        """Return how many of the user's own messages the extractor has not read yet."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT COUNT(*) FROM messages m JOIN users u ON u.id = m.user_id"
                " WHERE m.user_id = ? AND m.role = 'user' AND m.id > u.extracted_upto",
                (user_id,),
            )
        return int(next(iter(rows))[0])

    async def memories_active_since(self, since: datetime, limit: int) -> list[int]:
        """Return the keys of the `limit` memories written to most recently since `since` (users', members' in
        groups), newest first."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT id FROM users WHERE last_seen >= ? ORDER BY last_seen DESC, id LIMIT ?", (_iso(since), limit)
            )
        return [int(row[0]) for row in rows]

    async def users_due_for_extraction(self, idle_since: datetime) -> list[int]:
        """Return users silent since `idle_since` who wrote something the extractor has not read yet.

        This is all the scheduling state there is: it lives in the database, so it survives restarts.
        """
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT u.id FROM users u WHERE u.last_seen < ? AND EXISTS (SELECT 1 FROM messages m"
                " WHERE m.user_id = u.id AND m.role = 'user' AND m.id > u.extracted_upto) ORDER BY u.last_seen",
                (_iso(idle_since),),
            )
        return [row[0] for row in rows]

    @staticmethod
    async def facts_in(db: Session, user_id: int) -> list[Fact]:
        """Return all of the user's facts, oldest first, inside the caller's transaction `db`."""
        return await FactQueries._facts(db, user_id)

    @staticmethod
    async def _facts(db: Session, user_id: int) -> list[Fact]:
        rows = await db.execute_fetchall(f"SELECT {FACT_COLUMNS} FROM facts WHERE user_id = ? ORDER BY id", (user_id,))
        return [_fact(row) for row in rows]

    @staticmethod
    async def _save_relations(db: Session, user_id: int, relations: list[Relation]) -> None:
        for relation in relations:
            await db.execute(
                "INSERT INTO fact_relations (user_id, source_fact_id, target_fact_id, relation, strength)"
                " SELECT ?, s.id, t.id, ?, ? FROM facts s, facts t"
                " WHERE s.user_id = ? AND s.key = ? AND t.user_id = ? AND t.key = ? AND s.id != t.id"
                " ON CONFLICT (source_fact_id, target_fact_id, relation) DO UPDATE SET strength = excluded.strength",
                (user_id, relation.relation, min(1.0, max(0.0, relation.strength)),
                 user_id, relation.source_key, user_id, relation.target_key),
            )

    @staticmethod
    async def _evict(db: Session, dialect: Dialect, user_id: int, now: datetime, max_facts: int) -> None:
        # Old moods go first; then, past the cap, facts that ended (not a loss), then the least important and
        # oldest facts (never a style wish: there are a handful at most, and forgetting how someone wants to be
        # talked to is what this avoids).
        await db.execute(
            "DELETE FROM facts WHERE user_id = ? AND category = 'state' AND updated_at < ?",
            (user_id, _iso(now - timedelta(days=STATE_DAYS))),
        )
        await db.execute(
            "DELETE FROM facts WHERE id IN (SELECT id FROM facts WHERE user_id = ? AND category != 'style'"
            " ORDER BY CASE WHEN ended = 'ended' THEN 0 ELSE 1 END, importance, updated_at, id"
            f" LIMIT {dialect.greatest}(0, (SELECT COUNT(*) FROM facts WHERE user_id = ?) - ?))",
            (user_id, user_id, max_facts),
        )
