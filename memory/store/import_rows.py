"""Writing what an import brings (importing/, services/importer.py): one user at a time, each in one transaction,
so an import cut short or refused half-way leaves every user either imported or as they were."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from memory.continuity import Topic
from memory.facts import Extraction, Fact, Relation, comparable
from memory.store.backends import Session
from memory.store.backends import iso as _iso
from memory.store.event_rows import LEARNED, record_events
from memory.store.fact_rows import FactQueries
from memory.store.rows import Rows
from memory.store.topic_rows import save_topic


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
            await self._seen(db, user_id, stamp, stamp)
            added = await self._add_messages(db, user_id, [(role, content, stamp) for role, content in messages], read)
            saved, history = await self._merge_as_of(db, user_id, facts, at, max_facts, via)
        return Imported(added, saved, history)

    async def _seen(self, db: Session, user_id: int, first: str, last: str) -> None:
        """Make the user's row, or move its "last talked" to `last` where that is later."""
        await db.execute(
            "INSERT INTO users (id, first_seen, last_seen) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE"
            f" SET last_seen = {self._dialect.greatest}(users.last_seen, excluded.last_seen)",
            (user_id, first, last),
        )

    async def _merge_as_of(self, db: Session, user_id: int, facts: Extraction, at: datetime, max_facts: int,
                           via: str) -> tuple[int, int]:
        """Merge `facts`, heard at `at`, as a message's would; a fact the bot heard since wins, and an imported value
        unlike it goes to its history. Return how many facts were saved and how many went to history."""
        known = {fact.key: fact for fact in await FactQueries.facts_in(db, user_id)}
        newer = [fact for fact in facts.facts if not self._heard_since(known.get(fact.key), at)]
        history = 0
        for fact in facts.facts:
            old = known.get(fact.key)
            if self._heard_since(old, at) and old is not None and comparable(old.value) != comparable(fact.value):
                history += await self._keep_older(db, user_id, old, fact, _iso(at))
        saved = await FactQueries(self._backend).merge_facts(db, user_id, Extraction(newer, facts.relations), at,
                                                             max_facts, via=via)
        return len(saved), history

    @staticmethod
    def _heard_since(old: Fact | None, at: datetime) -> bool:
        """True when the bot learned or confirmed `old` after `at`: what the user said here since wins."""
        return old is not None and old.updated_at is not None and old.updated_at > at

    async def import_conversations(
        self, user_id: int, messages: list[tuple[str, str, datetime]], facts: Extraction, topics: list[Topic],
        max_facts: int, max_topics: int, *, via: str = "import",
    ) -> Imported:
        """Write a user's conversations from elsewhere in one transaction: the (role, content, when) messages not
        stored yet, left unread for the extractor; the facts the rules found in them, as of the newest message (what
        the bot heard since wins, as in import_user); a topic line per conversation, the newest `max_topics` kept."""
        at = max((when for _, _, when in messages), default=None)
        if at is None:
            return Imported(0, 0, 0)
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            await self._seen(db, user_id, _iso(min(when for _, _, when in messages)), _iso(at))
            added = await self._add_messages(
                db, user_id, [(role, content, _iso(when)) for role, content, when in messages], read=False)
            saved, history = await self._merge_as_of(db, user_id, facts, at, max_facts, via)
            for topic in topics:
                if not await db.execute_fetchall(
                        "SELECT 1 FROM topics WHERE user_id = ? AND text = ? AND started_at = ?",
                        (user_id, topic.text, _iso(topic.started_at))):
                    await save_topic(db, user_id, topic, max_topics)
        return Imported(added, saved, history)

    async def _add_messages(self, db: Session, user_id: int, messages: list[tuple[str, str, str]], read: bool) -> int:
        """Store the (role, content, stamp) messages not stored yet; mark them read when `read` and nothing else of
        the user's is unread."""
        rows = await db.execute_fetchall(
            "SELECT role, content, created_at FROM messages WHERE user_id = ?", (user_id,))
        stored = {(row[0], row[1], row[2]) for row in rows}
        unread = await db.execute_fetchall(
            "SELECT COUNT(*) FROM messages m JOIN users u ON u.id = m.user_id WHERE m.user_id = ? AND m.role = 'user'"
            " AND m.id > u.extracted_upto", (user_id,))
        last, added = None, 0
        for role, content, stamp in messages:
            if (role, content, stamp) in stored:
                continue
            stored.add((role, content, stamp))
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
        """Keep `fact`'s value in `old`'s history (once), valid from `stamp` until the bot last heard `old`: the
        older of two values for one key; return 1 if written."""
        rows = await db.execute_fetchall(
            "SELECT 1 FROM fact_history WHERE fact_id = ? AND value = ?", (old.id, fact.value))
        if rows:
            return 0
        await db.execute(
            "INSERT INTO fact_history (fact_id, user_id, value, source, valid_from, valid_until, when_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (old.id, user_id, fact.value, fact.source, stamp, _stamp(old.updated_at, stamp), fact.when),
        )
        return 1

    async def restore_user(
        self, user: dict, facts: list[Fact], lists: dict[str, list[dict]], relations: list[Relation], now: datetime,
        max_facts: int, *, via: str = "import",
    ) -> Imported:
        """Write back a user's /export (memory/importing/export_file.py), its facts already through the gates, in
        one transaction; return what changed. Into an empty database it gives back the rows the file came from, so
        exporting again gives the same file; into a database that knows the user, what is there stays and what is
        newer wins (a fact's older value goes to its history), and nothing is written twice."""
        user_id = int(user["id"])
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            await self._restore_row(db, user)
            messages = [(item["role"], item["content"], item["kind"], _iso(_moment(item["at"])),
                         item.get("persona", "")) for item in lists["messages"]]
            added = await self._restore_messages(db, user_id, messages)
            changed, history = await self._restore_facts(db, user_id, facts, via)
            history += await self._restore_history(db, user_id, lists["fact_history"])
            await self._restore_rest(db, user_id, lists)
            # The relations, and the cap of MEMORY_MAX_FACTS, as a message's merge applies them.
            await FactQueries(self._backend).merge_facts(db, user_id, Extraction([], relations), now, max_facts)
        return Imported(added, changed, history)

    async def _restore_row(self, db: Session, user: dict) -> None:
        """Give the user their row as the file has it, or fill in what their row lacks (its settings too)."""
        user_id = int(user["id"])
        rows = await db.execute_fetchall("SELECT settings FROM users WHERE id = ?", (user_id,))
        first, last = _iso(_moment(user["first_seen"])), _iso(_moment(user["last_seen"]))
        if not rows:
            await db.execute(
                "INSERT INTO users (id, first_name, name, language_code, first_seen, last_seen, settings)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (user_id, user["first_name"], user["name"], user["language_code"], first, last,
                 json.dumps(user["settings"], ensure_ascii=False)))
            return
        settings = {**user["settings"], **json.loads(rows[0][0])}  # what the bot holds now wins
        await db.execute(
            "UPDATE users SET first_name = COALESCE(first_name, ?), name = COALESCE(name, ?),"
            " language_code = COALESCE(language_code, ?), settings = ?,"
            " first_seen = CASE WHEN first_seen < ? THEN first_seen ELSE ? END,"
            f" last_seen = {self._dialect.greatest}(last_seen, ?) WHERE id = ?",
            (user["first_name"], user["name"], user["language_code"], json.dumps(settings, ensure_ascii=False),
             first, first, last, user_id))

    async def _restore_messages(self, db: Session, user_id: int,
                                messages: list[tuple[str, str, str, str, str]]) -> int:
        """Store the (role, content, kind, at, persona) messages not stored yet, each in its persona's session ('':
        the default's); they count as read unless the user had unread messages of their own."""
        rows = await db.execute_fetchall(
            "SELECT role, content, created_at FROM messages WHERE user_id = ?", (user_id,))
        stored = {(row[0], row[1], row[2]) for row in rows}
        unread = await self._unread(db, user_id)
        last, added = None, 0
        for role, content, kind, at, persona in messages:
            if (role, content, at) in stored:
                continue
            stored.add((role, content, at))
            [(last,)] = await db.execute_fetchall(
                "INSERT INTO messages (user_id, role, content, created_at, kind, persona) VALUES (?, ?, ?, ?, ?, ?)"
                " RETURNING id", (user_id, role, content, at, kind, persona))
            added += 1
        if last is not None and not unread:
            await db.execute(
                f"UPDATE users SET extracted_upto = {self._dialect.greatest}(extracted_upto, ?) WHERE id = ?",
                (last, user_id))
        return added

    @staticmethod
    async def _unread(db: Session, user_id: int) -> int:
        rows = await db.execute_fetchall(
            "SELECT COUNT(*) FROM messages m JOIN users u ON u.id = m.user_id WHERE m.user_id = ? AND m.role = 'user'"
            " AND m.id > u.extracted_upto", (user_id,))
        return int(rows[0][0])

    async def _restore_facts(self, db: Session, user_id: int, facts: list[Fact], via: str) -> tuple[int, int]:
        """Insert the facts the user lacks with their own dates; where the key is known, the newer value wins and
        the other goes to the fact's history (once). Return (facts written, values kept as history)."""
        known = {fact.key: fact for fact in await FactQueries.facts_in(db, user_id)}
        changed = history = 0
        for fact in facts:
            old = known.get(fact.key)
            learned = _stamp(fact.created_at, _stamp(fact.updated_at, ""))
            updated = _stamp(fact.updated_at, learned)
            columns = (fact.category, fact.value, fact.importance, fact.confidence, fact.source, updated, fact.when,
                       fact.ended_at and _iso(fact.ended_at), fact.ended, fact.ended_on, int(fact.shared))
            if old is None:
                [(fact_id,)] = await db.execute_fetchall(
                    "INSERT INTO facts (user_id, key, created_at, category, value, importance, confidence, source,"
                    " updated_at, when_at, ended_at, ended, ended_on, shared)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (user_id, fact.key, learned, *columns))
                await record_events(db, user_id, LEARNED, via, learned, [(fact_id, learned, None)])
                changed += 1
            elif comparable(old.value) == comparable(fact.value):
                continue
            elif fact.updated_at and old.updated_at and fact.updated_at > old.updated_at:
                history += await self._keep_older(db, user_id, old, old, _stamp(old.updated_at, updated))
                await db.execute(
                    "UPDATE facts SET category = ?, value = ?, importance = ?, confidence = ?, source = ?,"
                    " updated_at = ?, when_at = ?, ended_at = ?, ended = ?, ended_on = ?, shared = ?,"
                    " embedding = NULL WHERE id = ?", (*columns, old.id))
                changed += 1
            else:
                history += await self._keep_older(db, user_id, old, fact, updated)
            if fact.key == "name":
                await db.execute("UPDATE users SET name = (SELECT value FROM facts WHERE user_id = ? AND key = 'name')"
                                 " WHERE id = ?", (user_id, user_id))
        return changed, history

    @staticmethod
    async def _restore_history(db: Session, user_id: int, items: list[dict]) -> int:
        """Write the file's earlier values of the user's facts that are not there yet; return how many."""
        written = 0
        for item in items:
            found = await db.execute_fetchall(
                "SELECT f.id, (SELECT COUNT(*) FROM fact_history h WHERE h.fact_id = f.id AND h.value = ?"
                " AND h.valid_from = ?) FROM facts f WHERE f.user_id = ? AND f.key = ?",
                (item["value"], _iso(_moment(item["valid_from"])), user_id, item["key"]))
            if not found or found[0][1]:
                continue
            await db.execute(
                "INSERT INTO fact_history (fact_id, user_id, value, source, valid_from, valid_until, when_at)"
                " VALUES (?, ?, ?, 'import', ?, ?, ?)",
                (found[0][0], user_id, item["value"], _iso(_moment(item["valid_from"])),
                 _iso(_moment(item["valid_until"])), item["when"]))
            written += 1
        return written

    @staticmethod
    async def _restore_rest(db: Session, user_id: int, lists: dict[str, list[dict]]) -> None:
        """Write the ✗ marks, topic lines and reminders the user lacks (each compared whole: never twice)."""
        for item in lists["marked_wrong"]:
            at = _iso(_moment(item["at"]))
            if not await db.execute_fetchall(
                    "SELECT 1 FROM memory_events WHERE user_id = ? AND event = 'wrong' AND at = ? AND value IS NOT"
                    " DISTINCT FROM ?", (user_id, at, item["value"])):
                await db.execute(
                    "INSERT INTO memory_events (user_id, fact_id, event, source, at, learned_at, value)"
                    " VALUES (?, 0, 'wrong', 'user', ?, ?, ?)", (user_id, at, at, item["value"]))
        for item in lists["conversations"]:
            started, ended = _iso(_moment(item["started"])), _iso(_moment(item["ended"]))
            if not await db.execute_fetchall(
                    "SELECT 1 FROM topics WHERE user_id = ? AND text = ? AND started_at = ? AND ended_at = ?",
                    (user_id, item["topics"], started, ended)):
                await db.execute("INSERT INTO topics (user_id, text, started_at, ended_at) VALUES (?, ?, ?, ?)",
                                 (user_id, item["topics"], started, ended))
        for item in lists["reminders"]:
            due, created = _iso(_moment(item["due_at"])), _iso(_moment(item["created_at"]))
            delivered = item["delivered_at"] and _iso(_moment(item["delivered_at"]))
            if not await db.execute_fetchall(
                    "SELECT 1 FROM reminders WHERE user_id = ? AND task = ? AND due_at = ? AND created_at = ?",
                    (user_id, item["task"], due, created)):
                await db.execute(
                    "INSERT INTO reminders (user_id, chat_id, task, due_at, rule, zone, created_at, state,"
                    " delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (user_id, user_id, item["task"], due, item["rule"], item["zone"], created, item["state"],
                     delivered))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _stamp(moment: datetime | None, otherwise: str) -> str:
    """Return `moment` as the tables keep it, or `otherwise` when there is none."""
    return _iso(moment) if moment is not None else otherwise
