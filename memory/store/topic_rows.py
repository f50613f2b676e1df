"""The store's topic lines, one per conversation (part of Store, on either engine)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from memory.continuity import Topic
from memory.store.backends import Session
from memory.store.rows import Rows

TOPIC_COLUMNS = "id, text, started_at, ended_at"


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat()


def _topic(row: tuple) -> Topic:
    return Topic(id=row[0], text=row[1], started_at=datetime.fromisoformat(row[2]),
                 ended_at=datetime.fromisoformat(row[3]))


def topics_from_json(text: str | None) -> list[Topic]:
    """Return the topic lines of a Dialect.topics_json array (None when there are none), newest first."""
    topics = [_topic(tuple(row)) for row in json.loads(text or "[]")]
    return sorted(topics, key=lambda topic: (topic.ended_at, topic.id or 0), reverse=True)


async def newest_topics(db: Session, user_id: int, limit: int | None) -> list[Topic]:
    """Return the user's `limit` newest topic lines, newest first (Dialect.no_limit: all of them)."""
    rows = await db.execute_fetchall(
        f"SELECT {TOPIC_COLUMNS} FROM topics WHERE user_id = ? ORDER BY ended_at DESC, id DESC LIMIT ?",
        (user_id, limit),
    )
    return [_topic(row) for row in rows]


async def save_topic(db: Session, user_id: int, topic: Topic, keep: int) -> None:
    """Insert the line of a new conversation or rewrite the one it continues (`topic.id`); keep the newest
    `keep` lines of the user. Runs inside the caller's transaction."""
    if topic.id is None:
        await db.execute(
            "INSERT INTO topics (user_id, text, started_at, ended_at) VALUES (?, ?, ?, ?)",
            (user_id, topic.text, _iso(topic.started_at), _iso(topic.ended_at)),
        )
    else:
        await db.execute(
            "UPDATE topics SET text = ?, ended_at = ? WHERE id = ? AND user_id = ?",
            (topic.text, _iso(topic.ended_at), topic.id, user_id),
        )
    await db.execute(
        "DELETE FROM topics WHERE user_id = ? AND id NOT IN"
        " (SELECT id FROM topics WHERE user_id = ? ORDER BY ended_at DESC, id DESC LIMIT ?)",
        (user_id, user_id, keep),
    )


class TopicQueries(Rows):
    """Reading and deleting a user's topic lines.

    Lines are written by FactQueries.save_facts, in the transaction that records what the extractor read.
    """


    async def topics(self, user_id: int, limit: int = 1_000) -> list[Topic]:
        """Return the user's topic lines, newest first."""
        async with self._session() as db:
            return await newest_topics(db, user_id, limit)

    async def delete_topic(self, user_id: int, topic_id: int) -> int:
        """Delete one of the user's topic lines; return 1, or 0 when it is not theirs or gone."""
        async with self._session() as db:
            cursor = await db.execute("DELETE FROM topics WHERE id = ? AND user_id = ?", (topic_id, user_id))
        return int(cursor.rowcount)
