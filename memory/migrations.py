"""Numbered schema migrations; the database's user_version records the last one applied."""

from __future__ import annotations

# Each entry: (version, name, statements). Append only; never edit a released migration.
MIGRATIONS: list[tuple[int, str, tuple[str, ...]]] = [
    (
        1,
        "users and messages",
        (
            """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY,              -- Telegram user id
                first_name TEXT,                     -- from the Telegram profile
                name TEXT,                           -- what the user asked to be called
                language_code TEXT,
                first_seen TEXT NOT NULL,            -- ISO 8601, UTC
                last_seen TEXT NOT NULL,
                settings TEXT NOT NULL DEFAULT '{}'  -- JSON object
            )
            """,
            """
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
                content TEXT NOT NULL,
                created_at TEXT NOT NULL,
                update_id INTEGER UNIQUE             -- the Telegram update that carried a user message
            )
            """,
            "CREATE INDEX messages_by_user ON messages(user_id, id)",
        ),
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
