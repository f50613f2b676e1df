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
    (
        2,
        "facts, their history and relations",
        (
            """
            CREATE TABLE facts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                category TEXT NOT NULL,
                key TEXT NOT NULL,                   -- a slot ('city') or a slot with a discriminator ('pet:murka')
                value TEXT NOT NULL,                 -- in the user's language
                importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 10),
                confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
                source TEXT NOT NULL CHECK (source IN ('rule', 'llm')),
                source_message_id INTEGER,           -- messages.id; the message itself may be pruned later
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                UNIQUE (user_id, key)
            )
            """,
            """
            CREATE TABLE fact_history (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                value TEXT NOT NULL,                 -- what the fact said before it was replaced
                source TEXT NOT NULL,
                valid_from TEXT NOT NULL,
                valid_until TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE fact_relations (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                source_fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
                target_fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
                relation TEXT NOT NULL,
                strength REAL NOT NULL CHECK (strength BETWEEN 0 AND 1),
                UNIQUE (source_fact_id, target_fact_id, relation)
            )
            """,
            "CREATE INDEX fact_history_by_fact ON fact_history(fact_id)",
            "CREATE INDEX fact_relations_by_user ON fact_relations(user_id)",
            # The id of the last message the LLM extractor has read; later messages are pending.
            "ALTER TABLE users ADD COLUMN extracted_upto INTEGER NOT NULL DEFAULT 0",
        ),
    ),
    (
        3,
        "fact embeddings",
        (
            # float32 vector of the fact's value, and the model and dimension that made it; a change of
            # model leaves old vectors to be re-embedded lazily.
            "ALTER TABLE facts ADD COLUMN embedding BLOB",
            "ALTER TABLE facts ADD COLUMN embedding_model TEXT",
            "ALTER TABLE facts ADD COLUMN embedding_dim INTEGER",
        ),
    ),
    (
        4,
        "inbox of updates, replies linked to their message",
        (
            # The inbox this migration created is the transport's now: transport/transport_migrations.py, its 1.
            # For an assistant message: the id of the user message it answers, so that a turn cut short
            # by a crash resumes where it stopped.
            "ALTER TABLE messages ADD COLUMN reply_to INTEGER",
        ),
    ),
    (
        5,
        "what kind of message the user sent",
        (
            # 'text', 'voice' (content: the transcript), 'photo' (content: "[photo] caption", never the
            # image) or 'sticker' (content: "[sticker 😂]"); replies are 'text'.
            "ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'text'",
        ),
    ),
    (
        6,
        "the user's clock, dated facts, and messages the companion writes first",
        (
            # A plan or event's moment in the user's local time: "2026-12-04" or "2026-12-04T10:00".
            "ALTER TABLE facts ADD COLUMN when_at TEXT",
            # When to ask how it went (UTC); NULL once asked, or when there is nothing to ask.
            "ALTER TABLE facts ADD COLUMN followup_at TEXT",
            "CREATE INDEX facts_by_followup ON facts(followup_at) WHERE followup_at IS NOT NULL",
            # When to check in if the user stays silent (UTC): moved on by each of their private messages,
            # cleared once the companion has written first, so it never writes twice to someone silent.
            "ALTER TABLE users ADD COLUMN checkin_at TEXT",
            "CREATE INDEX users_by_checkin ON users(checkin_at) WHERE checkin_at IS NOT NULL",
            # The companion writes first only where it has a private chat to write to.
            "ALTER TABLE users ADD COLUMN private_chat INTEGER NOT NULL DEFAULT 0",
            # Set when Telegram answers 403 (the user blocked the bot); cleared when they write again.
            "ALTER TABLE users ADD COLUMN blocked_at TEXT",
            # The user's local date of the last message the companion wrote first, and how many it wrote
            # that day (the daily cap); NULL: it never has (the first one says how to turn them off).
            "ALTER TABLE users ADD COLUMN proactive_day TEXT",
            "ALTER TABLE users ADD COLUMN proactive_count INTEGER NOT NULL DEFAULT 0",
            # messages.kind gains 'checkin', 'followup' and 'birthday': what the companion wrote first.
        ),
    ),
    (
        7,
        "one topic line per conversation",
        (
            # What the user talked about in one conversation (a run of their messages with no long gap),
            # written by the LLM extraction pass; started_at and ended_at are their first and last message.
            """
            CREATE TABLE topics (
                id INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                started_at TEXT NOT NULL,
                ended_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX topics_by_user ON topics(user_id, ended_at)",
        ),
    ),
    (
        8,
        "what each user spends a day, for the daily limits and /stats",
        (
            # One row per charge: a user's message, the tokens of a model call, seconds of audio transcribed,
            # or a model request that failed (user_id NULL when it served nobody in particular, or after the
            # user's /forget). Numbers only, never words; rows older than two days are pruned.
            """
            CREATE TABLE usage (
                id INTEGER PRIMARY KEY,
                user_id INTEGER,
                at TEXT NOT NULL,                    -- ISO 8601, UTC
                messages INTEGER NOT NULL DEFAULT 0,
                tokens INTEGER NOT NULL DEFAULT 0,
                voice_seconds REAL NOT NULL DEFAULT 0,
                model_errors INTEGER NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX usage_by_user ON usage(user_id, at)",
            "CREATE INDEX usage_by_time ON usage(at)",
            # "<local day> <limit>,<limit>": the limits the user was told they reached that day (once each).
            "ALTER TABLE users ADD COLUMN limit_notice TEXT",
        ),
    ),
    (
        9,
        "several machines on one database: whose update it is, and claims on background work",
        (
            # Whose update it is moved with the inbox: transport/transport_migrations.py, its 2.
            # Until when one machine has taken the user's fact extraction, their check-in, or a fact's
            # follow-up (UTC); another machine leaves it alone until then. Used on PostgreSQL only.
            "ALTER TABLE users ADD COLUMN extract_claim TEXT",
            "ALTER TABLE users ADD COLUMN checkin_claim TEXT",
            "ALTER TABLE facts ADD COLUMN followup_claim TEXT",
        ),
    ),
    (
        10,
        "facts that ended, and what was forgotten kept a few minutes for Undo",
        (
            # A fact the user said is no longer true stays, as the past: when memory learned it ended (UTC),
            # how ('ended', or 'died' for a pet or relative), and the local date it ended where their words
            # said it ("вчера"). NULL ended_at: the fact is current.
            "ALTER TABLE facts ADD COLUMN ended_at TEXT",
            "ALTER TABLE facts ADD COLUMN ended TEXT",
            "ALTER TABLE facts ADD COLUMN ended_on TEXT",
            # The date an earlier value had ("the exam moved to Monday" keeps the old day here).
            "ALTER TABLE fact_history ADD COLUMN when_at TEXT",
            # How many times the user has had something forgotten: an extraction pass that read their messages
            # before the last one saves nothing, so it cannot bring the forgotten thing back.
            "ALTER TABLE users ADD COLUMN forgets INTEGER NOT NULL DEFAULT 0",
            # What a forget request removed (facts with their history and relations, session messages as they
            # were, topic lines), as JSON, only until expires_at: the Undo button puts it back. Purged after.
            """
            CREATE TABLE forgotten (
                id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: an old Undo button must not find a newer one
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                payload TEXT NOT NULL
            )
            """,
            "CREATE INDEX forgotten_by_expiry ON forgotten(expires_at)",
        ),
    ),
    (
        11,
        "Telegram's rate shared by several machines",
        (
            # The send budget this migration created is the transport's now: transport/transport_migrations.py, its 3.
            # The number stays, so that memory's versions keep their meaning in every old database.
        ),
    ),
    (
        12,
        "which Telegram message a user's message was, so that an edit finds it",
        (
            # chat_message_id: Telegram's message_id in the chat it came from (NULL for replies, messages written
            # first and rows from before this migration: an edit of those changes nothing).
            "ALTER TABLE messages ADD COLUMN chat_message_id INTEGER",
            "CREATE INDEX messages_by_chat_message ON messages(user_id, chat_message_id)",
        ),
    ),
    (
        13,
        "reminders the user asked for",
        (
            # One row per reminder. due_at is the next time it is planned for (UTC), always worked out from the
            # rule, never from when the last one was delivered, so a recurring one does not drift. rule: NULL for
            # a one-off, else a line like "week mon 08:00", planned in `zone` (IANA). chat_id is where it goes
            # (the private chat, or the group it was asked in, where `asker` is the name to mention). state:
            # 'pending' (the bot asked which time), 'active', 'done' (a one-off delivered), 'cancelled', or 'missed'
            # (a one-off the bot was down for). source_update: the update that set it, so that a turn resumed
            # after a crash finds it instead of setting it twice (NULL for one set by a button).
            # claim_until: until when one machine has taken it to send (UTC). missed: occurrences skipped while
            # the bot was down that the user has not been told of yet.
            """
            CREATE TABLE reminders (
                id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a button on an old one must not find a newer
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                chat_id INTEGER NOT NULL,
                asker TEXT,
                task TEXT NOT NULL,
                due_at TEXT NOT NULL,
                rule TEXT,
                zone TEXT NOT NULL,
                created_at TEXT NOT NULL,
                state TEXT NOT NULL DEFAULT 'active'
                    CHECK (state IN ('pending', 'active', 'done', 'cancelled', 'missed')),
                claim_until TEXT,
                delivered_at TEXT,
                missed INTEGER NOT NULL DEFAULT 0,
                source_update INTEGER
            )
            """,
            "CREATE INDEX reminders_by_due ON reminders(due_at) WHERE state = 'active'",
            "CREATE UNIQUE INDEX reminders_by_update ON reminders(user_id, source_update)",
            "CREATE INDEX reminders_by_user ON reminders(user_id, state)",
        ),
    ),
    (
        14,
        "what is said in a group stays there, what each reply used, and what became of each fact",
        (
            # A member of a group has a memory of their own there: a users row whose id (`key`) is below
            # memory.scopes.MEMBER_KEYS, never a Telegram id, with its own session, facts and topic lines. What they
            # say in the group, and what is learned from it, never meets their private memory, nor the reverse.
            # title: the group's as last seen, for the memory page.
            """
            CREATE TABLE members (
                key INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                chat_id INTEGER NOT NULL,
                title TEXT,
                UNIQUE (user_id, chat_id)
            )
            """,
            "CREATE INDEX members_by_chat ON members(chat_id)",
            # 1: the user lets this private fact (or wish) follow them into the groups they talk in.
            "ALTER TABLE facts ADD COLUMN shared INTEGER NOT NULL DEFAULT 0",
            # A reply's: which memories its prompt held (JSON: ids by kind), for "why did you say that?".
            "ALTER TABLE messages ADD COLUMN used TEXT",
            # What became of each fact, for the memory's own figures (/stats, /metrics): learned (source: rule,
            # llm or page), corrected, replaced by a new value, removed by the user, or marked wrong (value: what
            # it said, kept as its history). No content but that value; forgetting a user sets user_id and value
            # to NULL, so the counts stay and say nothing of whose they were.
            """
            CREATE TABLE memory_events (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER,
                fact_id INTEGER NOT NULL,
                event TEXT NOT NULL CHECK (event IN ('learned', 'corrected', 'replaced', 'removed', 'wrong')),
                source TEXT NOT NULL,
                at TEXT NOT NULL,
                learned_at TEXT NOT NULL,
                value TEXT
            )
            """,
            "CREATE INDEX memory_events_by_time ON memory_events(at)",
            "CREATE INDEX memory_events_by_user ON memory_events(user_id)",
            "CREATE INDEX memory_events_by_learned ON memory_events(learned_at)",
        ),
    ),
    (
        15,
        "each persona keeps its own session",
        (
            # Whose voice a message of the session is in: "" for the owner's default persona, else the file name
            # (without its suffix) of the persona of PERSONAS_DIR the user chose; each keeps its own session.
            "ALTER TABLE messages ADD COLUMN persona TEXT NOT NULL DEFAULT ''",
        ),
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]
