"""Edits: finding the user's message an edit changes, while it is still in the session, and rewriting it."""

from __future__ import annotations

from memory.store.rows import Rows


class EditQueries(Rows):
    """A user's message found by its Telegram id and rewritten: a repository over the shared database."""


    async def session_message(
        self, user_id: int, chat_message_id: int, history_limit: int
    ) -> tuple[int, str, str] | None:
        """Return (id, content, kind) of the user's own message that was Telegram's `chat_message_id`, while it is
        among their last `history_limit` messages (the session); None for an older one or one never kept."""
        async with self._session() as db:
            rows = await db.execute_fetchall(
                "SELECT id, content, kind FROM messages WHERE user_id = ? AND role = 'user' AND chat_message_id = ?"
                " AND id >= (SELECT COALESCE(MIN(id), 0) FROM"
                " (SELECT id FROM messages WHERE user_id = ? ORDER BY id DESC LIMIT ?) AS session)"
                " ORDER BY id DESC LIMIT 1",
                (user_id, chat_message_id, user_id, history_limit),
            )
        return next(((int(row[0]), row[1], row[2]) for row in rows), None)

    async def edit_message(self, user_id: int, message_id: int, content: str) -> None:
        """Rewrite the user's message `message_id` with its edited `content`; the extractor, if it has not read the
        message yet, reads the edited words."""
        async with self._transaction() as db:
            await db.execute("UPDATE messages SET content = ? WHERE id = ? AND user_id = ? AND role = 'user'",
                             (content, message_id, user_id))
