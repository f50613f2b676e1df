"""The store's forgetting (part of Store, on either engine): a forget request's facts go, with their history and
relations, and the session and topic lines are scrubbed of them, in one transaction. What was removed is kept as
JSON in `forgotten` only until it expires, for the Undo button, and purged after.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Callable

from memory.changes import Forgotten
from memory.store.backends import Session
from memory.store.event_rows import BY_USER, REMOVED, WRONG, event_rows, record_events
from memory.store.fact_rows import FACT_COLUMN_NAMES, _fact, _iso
from memory.store.rows import Rows

# Everything a fact row holds but its vector (re-embedded after an Undo) and a machine's claim.
FACT_ROW = ("id", "category", "key", "value", "importance", "confidence", "source", "source_message_id",
            "created_at", "updated_at", "when_at", "followup_at", "ended_at", "ended", "ended_on", "shared")
HISTORY_ROW = ("id", "fact_id", "value", "source", "valid_from", "valid_until", "when_at")
RELATION_ROW = ("id", "source_fact_id", "target_fact_id", "relation", "strength")
MESSAGE_ROW = ("id", "role", "content", "created_at", "update_id", "reply_to", "kind", "chat_message_id", "used")
TOPIC_ROW = ("id", "text", "started_at", "ended_at")

Scrub = Callable[[str], "str | None"]  # a text without what is forgotten (the same text: untouched; None: drop it)


def _marks(count: int) -> str:
    return ", ".join("?" * count)


class ForgetQueries(Rows):
    """Forgetting some facts with Undo."""


    async def forget(
        self, user_id: int, fact_ids: list[int], scrub: Scrub, now: datetime, keep: timedelta,
        edits: dict[int, str | None] | None = None, event: str = REMOVED, topic_ids: list[int] | None = None,
    ) -> Forgotten:
        """Delete the user's facts `fact_ids` (their history and relations go with them), pass each of their
        session messages and topic lines through `scrub`, set message id -> content for those in `edits` (None
        drops it), and keep what was removed until `now + keep` for restore_forgotten. One transaction.
        Each fact is recorded as `event` (REMOVED by the user, or WRONG: marked wrong, its value kept as its history).
        The topic lines `topic_ids` go too (a line marked wrong), with Undo as the rest.

        An extraction pass that read the user's messages before this then saves nothing (FactQueries.save_facts).
        """
        stamp, edits = _iso(now), edits or {}
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            removed = await self._remove_facts(db, user_id, fact_ids)
            removed["messages"] = await self._scrub(db, user_id, "messages", MESSAGE_ROW, "content", scrub, edits)
            removed["topics"] = await self._scrub(db, user_id, "topics", TOPIC_ROW, "text", scrub,
                                                  dict.fromkeys(topic_ids or ()))
            await db.execute("UPDATE users SET forgets = forgets + 1 WHERE id = ?", (user_id,))
            await db.execute(
                "UPDATE users SET name = NULL WHERE id = ? AND name IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM facts WHERE user_id = ? AND key = 'name')",
                (user_id, user_id),
            )
            await db.execute("DELETE FROM forgotten WHERE expires_at <= ?", (stamp,))
            facts = [_fact(tuple(row[column] for column in FACT_COLUMN_NAMES)) for row in removed["facts"]]
            await record_events(db, user_id, event, BY_USER, stamp, event_rows(facts, stamp, keep_value=event == WRONG))
            if not any(removed[part] for part in ("facts", "messages", "topics")):
                return Forgotten()
            [(undo_id,)] = await db.execute_fetchall(
                "INSERT INTO forgotten (user_id, created_at, expires_at, payload) VALUES (?, ?, ?, ?) RETURNING id",
                (user_id, stamp, _iso(now + keep), json.dumps(removed, ensure_ascii=False)),
            )
        return Forgotten(facts=facts, undo_id=undo_id, messages=len(removed["messages"]))

    async def restore_forgotten(self, user_id: int, undo_id: int, now: datetime) -> list[int] | None:
        """Put back what forget removed under `undo_id`, if it is the user's and has not expired; return the ids
        of the facts restored (one that was learned again meanwhile stays as it is now), or None."""
        async with self._transaction() as db:
            if self._dialect.lock_user:
                await db.execute(self._dialect.lock_user, (user_id,))
            rows = await db.execute_fetchall(
                "DELETE FROM forgotten WHERE id = ? AND user_id = ? AND expires_at > ? RETURNING payload, created_at",
                (undo_id, user_id, _iso(now)),
            )
            if not rows:
                return None
            payload, forgotten_at = next(iter(rows))
            removed = json.loads(payload)
            restored = []
            for row in removed["facts"]:
                columns = tuple(row)
                inserted = await db.execute_fetchall(
                    f"INSERT INTO facts (user_id, {', '.join(columns)}) VALUES (?, {_marks(len(columns))})"
                    " ON CONFLICT DO NOTHING RETURNING id",
                    (user_id, *row.values()),
                )
                restored += [fact_id for (fact_id,) in inserted]
            if restored:  # undone: what the forget recorded of them is taken back too
                await db.execute(
                    f"DELETE FROM memory_events WHERE user_id = ? AND event IN ('{REMOVED}', '{WRONG}') AND at >= ?"
                    f" AND fact_id IN ({_marks(len(restored))})", (user_id, forgotten_at, *restored),
                )
            await self._put_back_history(db, user_id, removed["history"], restored)
            await self._put_back_relations(db, user_id, removed["relations"])
            await self._restore_texts(db, user_id, "messages", "content", removed["messages"])
            await self._restore_texts(db, user_id, "topics", "text", removed["topics"])
            if any(row["key"] == "name" and row["id"] in restored for row in removed["facts"]):
                name = next(row["value"] for row in removed["facts"] if row["key"] == "name")
                await db.execute("UPDATE users SET name = ? WHERE id = ?", (name, user_id))
        return restored

    async def purge_forgotten(self, now: datetime) -> int:
        """Delete every Undo record that has expired; return how many went."""
        async with self._session() as db:
            cursor = await db.execute("DELETE FROM forgotten WHERE expires_at <= ?", (_iso(now),))
        return int(cursor.rowcount)

    @staticmethod
    async def _remove_facts(db: Session, user_id: int, fact_ids: list[int]) -> dict[str, list]:
        """Delete the facts and return them, their history and their relations as rows of column -> value."""
        ids = sorted(set(fact_ids))
        if not ids:
            return {"facts": [], "history": [], "relations": []}
        where = f"IN ({_marks(len(ids))})"
        facts = await db.execute_fetchall(
            f"SELECT {', '.join(FACT_ROW)} FROM facts WHERE user_id = ? AND id {where} ORDER BY id", (user_id, *ids)
        )
        history = await db.execute_fetchall(
            f"SELECT {', '.join(HISTORY_ROW)} FROM fact_history WHERE user_id = ? AND fact_id {where} ORDER BY id",
            (user_id, *ids),
        )
        relations = await db.execute_fetchall(
            f"SELECT {', '.join(RELATION_ROW)} FROM fact_relations WHERE user_id = ?"
            f" AND (source_fact_id {where} OR target_fact_id {where}) ORDER BY id", (user_id, *ids, *ids),
        )
        await db.execute(f"DELETE FROM facts WHERE user_id = ? AND id {where}", (user_id, *ids))
        return {
            "facts": [dict(zip(FACT_ROW, row, strict=True)) for row in facts],
            "history": [dict(zip(HISTORY_ROW, row, strict=True)) for row in history],
            "relations": [dict(zip(RELATION_ROW, row, strict=True)) for row in relations],
        }

    @staticmethod
    async def _scrub(
        db: Session, user_id: int, table: str, columns: tuple[str, ...], text: str, scrub: Scrub,
        edits: dict[int, str | None],
    ) -> list[dict]:
        """Scrub or drop the user's rows of `table` (its `text` column); return each changed row as it was."""
        rows = await db.execute_fetchall(
            f"SELECT {', '.join(columns)} FROM {table} WHERE user_id = ? ORDER BY id", (user_id,)
        )
        changed = []
        for row in rows:
            original = dict(zip(columns, row, strict=True))
            now = edits[original["id"]] if original["id"] in edits else scrub(original[text])
            if now == original[text]:
                continue
            changed.append({**original, "now": now})
            if now is None:
                await db.execute(f"DELETE FROM {table} WHERE id = ? AND user_id = ?", (original["id"], user_id))
            else:
                await db.execute(f"UPDATE {table} SET {text} = ? WHERE id = ? AND user_id = ?",
                                 (now, original["id"], user_id))
        return changed

    @staticmethod
    async def _put_back_history(db: Session, user_id: int, rows: list[dict], restored: list[int]) -> None:
        """Insert the earlier values of the facts that were restored."""
        for row in rows:
            if row["fact_id"] in restored:
                await db.execute(
                    f"INSERT INTO fact_history (user_id, {', '.join(HISTORY_ROW)}) VALUES (?, {_marks(len(row))})"
                    " ON CONFLICT DO NOTHING",
                    (user_id, *(row[column] for column in HISTORY_ROW)),
                )

    @staticmethod
    async def _put_back_relations(db: Session, user_id: int, rows: list[dict]) -> None:
        """Insert the relations again whose two facts both exist now."""
        existing = {fact_id for (fact_id,) in await db.execute_fetchall("SELECT id FROM facts WHERE user_id = ?",
                                                                          (user_id,))}
        for row in rows:
            if {row["source_fact_id"], row["target_fact_id"]} <= existing:
                await db.execute(
                    f"INSERT INTO fact_relations (user_id, {', '.join(RELATION_ROW)}) VALUES (?, {_marks(len(row))})"
                    " ON CONFLICT DO NOTHING",
                    (user_id, *(row[column] for column in RELATION_ROW)),
                )

    @staticmethod
    async def _restore_texts(db: Session, user_id: int, table: str, column: str, rows: list[dict]) -> None:
        """Give scrubbed rows their text back, and insert dropped ones again; a row changed since stays."""
        for row in rows:
            now, original = row.pop("now"), dict(row)
            if now is None:
                columns = tuple(original)
                inserted = await db.execute_fetchall(
                    f"INSERT INTO {table} (user_id, {', '.join(columns)}) VALUES (?, {_marks(len(columns))})"
                    " ON CONFLICT DO NOTHING RETURNING id",
                    (user_id, *original.values()),
                )
                if not inserted and table == "topics":  # its id went to a newer line (topics reuse ids): a new one
                    columns = tuple(column for column in original if column != "id")
                    await db.execute(
                        f"INSERT INTO topics (user_id, {', '.join(columns)}) VALUES (?, {_marks(len(columns))})",
                        (user_id, *(original[column] for column in columns)),
                    )
            else:
                await db.execute(
                    f"UPDATE {table} SET {column} = ? WHERE id = ? AND user_id = ? AND {column} = ?",
                    (original[column], original["id"], user_id, now),
                )
