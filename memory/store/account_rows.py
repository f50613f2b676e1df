"""Everything stored about one user, across every table: /export reads it all, /forget deletes it all in one
transaction. The one repository that spans memory's tables, and says so (tests/test_table_owners.py)."""

from __future__ import annotations

import json

from memory.store.fact_rows import FactQueries, _iso
from memory.store.rows import Rows
from memory.store.scope_rows import ScopeQueries
from memory.store.topic_rows import newest_topics
from memory.store.user_rows import UserRows


class AccountRows(Rows):
    """A user's whole account: exported as plain data, or forgotten, their memories in groups too."""

    async def export_user(self, user_id: int) -> dict:
        """Return everything stored about the user, as plain data (for /export): their private memory, then their
        memory in each group under the group's title."""
        async with self._session() as db:
            users = await db.execute_fetchall(
                "SELECT id, first_name, name, language_code, first_seen, last_seen, settings FROM users WHERE id = ?",
                (user_id,),
            )
            reminders = await db.execute_fetchall(
                "SELECT task, due_at, rule, zone, state, created_at, delivered_at FROM reminders WHERE user_id = ?"
                " ORDER BY id",
                (user_id,),
            )
        user = dict(zip(("id", "first_name", "name", "language_code", "first_seen", "last_seen", "settings"),
                        users[0], strict=True)) if users else None
        if user:
            user["settings"] = json.loads(user["settings"])
        groups = []
        user_rows = UserRows(self._backend)
        for member in await ScopeQueries(self._backend).memberships(user_id):
            name = await user_rows.user_name(member.key)
            groups.append({"group": member.title, "chat_id": member.chat_id, "name": name,
                           **await self._export_memory(member.key)})
        return {
            "user": user,
            **await self._export_memory(user_id),
            "reminders": [dict(zip(("task", "due_at", "rule", "zone", "state", "created_at", "delivered_at"), row,
                                   strict=True)) for row in reminders],
            "groups": groups,
        }

    async def _export_memory(self, key: int) -> dict:
        """Return one memory (the private one, or a member's in a group) as plain data: facts, their history and
        relations, the session's messages and the conversations' topic lines."""
        async with self._session() as db:
            messages = await db.execute_fetchall(
                "SELECT role, kind, content, created_at, persona FROM messages WHERE user_id = ? ORDER BY id", (key,)
            )
            history = await db.execute_fetchall(
                "SELECT f.key, h.value, h.valid_from, h.valid_until, h.when_at FROM fact_history h"
                " JOIN facts f ON f.id = h.fact_id WHERE h.user_id = ? ORDER BY h.id",
                (key,),
            )
            wrong = await db.execute_fetchall(
                "SELECT value, at FROM memory_events WHERE user_id = ? AND event = 'wrong' ORDER BY id", (key,)
            )
            topics = await newest_topics(db, key, self._dialect.no_limit)
        facts, relations = await FactQueries(self._backend).fact_graph(key)
        return {
            "facts": [
                {"category": f.category, "key": f.key, "value": f.value, "importance": f.importance,
                 "confidence": f.confidence, "source": f.source, "learned": _iso(f.created_at),
                 "updated": _iso(f.updated_at), "when": f.when, **({"shared": True} if f.shared else {}),
                 **({"ended": f.ended, "ended_at": _iso(f.ended_at), "ended_on": f.ended_on} if f.ended_at else {})}
                for f in facts if f.created_at and f.updated_at
            ],
            "fact_history": [dict(zip(("key", "value", "valid_from", "valid_until", "when"), row, strict=True))
                             for row in history],
            "marked_wrong": [{"value": value, "at": at} for value, at in wrong],
            "relations": [{"source": r.source_key, "target": r.target_key, "relation": r.relation,
                           "strength": r.strength} for r in relations],
            # A persona's own session (PERSONAS_DIR): its key, where it is not the default's.
            "messages": [{**dict(zip(("role", "kind", "content", "at"), row[:4], strict=True)),
                          **({"persona": row[4]} if row[4] else {})} for row in messages],
            "conversations": [{"topics": t.text, "started": _iso(t.started_at), "ended": _iso(t.ended_at)}
                              for t in reversed(topics)],
        }

    async def forget_user(self, user_id: int) -> tuple[int, int]:
        """Delete everything stored about the user, their memory in every group too, in one transaction; return
        (messages, facts) deleted."""
        async with self._transaction() as db:
            keys = [user_id, *(int(row[0]) for row in await db.execute_fetchall(
                "SELECT key FROM members WHERE user_id = ?", (user_id,)))]
            among = f"IN ({', '.join('?' * len(keys))})"
            facts = (await db.execute(f"DELETE FROM facts WHERE user_id {among}", keys)).rowcount
            messages = (await db.execute(f"DELETE FROM messages WHERE user_id {among}", keys)).rowcount
            await db.execute(f"DELETE FROM topics WHERE user_id {among}", keys)
            await db.execute(f"DELETE FROM reminders WHERE user_id {among}", keys)
            # What they spent stays in the day's totals for /stats, and what became of their facts in memory's own
            # figures, but neither says whose any longer, nor what a fact marked wrong said.
            await db.execute(f"UPDATE usage SET user_id = NULL WHERE user_id {among}", keys)
            await db.execute(f"UPDATE memory_events SET user_id = NULL, value = NULL WHERE user_id {among}", keys)
            # Relations and fact history went with the facts, memberships with the users (ON DELETE CASCADE).
            await db.execute(f"DELETE FROM users WHERE id {among}", keys)
        return int(messages), int(facts)
