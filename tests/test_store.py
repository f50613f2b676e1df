from datetime import datetime, timedelta, timezone

import aiosqlite
import pytest

from memory.facts import Extraction, Fact
from memory.store.memory_store import Store
from memory.store.migrations import LATEST_VERSION, MIGRATIONS
from memory.store.turn_rows import UNREAD_CAP
from tests.conftest import fetch
from tests.harness import session
from transport.transport_store import TransportStore

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


async def schema(path):
    async with aiosqlite.connect(path) as db:
        rows = await (await db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name")).fetchall()
        version = (await (await db.execute("PRAGMA user_version")).fetchone())[0]
    return version, rows


async def turn(store, user_id, text, minutes=0, update_id=None, name=None, limit=20):
    result = await store.turns.begin_turn(
        user_id=user_id, first_name="Ann", language_code="en", text=text,
        now=T0 + timedelta(minutes=minutes), update_id=update_id, history_limit=limit,
    )
    if name:  # as the companion does when the rules find a name: a "name" fact sets users.name
        await store.facts.save_facts(user_id, Extraction([Fact("personal", "name", name)]), T0, 100)
    return result


async def test_a_blank_file_gets_the_latest_schema(tmp_path):
    path = tmp_path / "nested" / "folder" / "bot.db"
    store = await Store.open(path)
    assert await store.schema_version() == LATEST_VERSION
    await store.close()
    version, rows = await schema(path)
    names = {name for _type, name, _sql in rows}
    assert {"users", "messages"} <= names


async def test_sqlite_pragmas(tmp_path):
    store = await Store.open(tmp_path / "bot.db")
    assert await fetch(store, "PRAGMA journal_mode") == [("wal",)]
    assert await fetch(store, "PRAGMA foreign_keys") == [(1,)]
    await store.close()


@pytest.mark.parametrize("start", range(0, LATEST_VERSION + 1))
async def test_every_older_schema_migrates_to_the_same_schema(tmp_path, database, start):
    store = await Store.open(database, migrate_to=start)
    assert await store.schema_version() == start
    if start >= 1:  # rows written with the schema of migration 1, which every later one must keep
        await fetch(store, "INSERT INTO users (id, name, first_seen, last_seen) VALUES (1, 'Ann', 'x', 'x')")
        await fetch(
            store,
            "INSERT INTO messages (user_id, role, content, created_at, update_id)"
            " VALUES (1, 'user', 'kept across the migration', '2026-01-01T00:00:00+00:00', 5)",
        )
    await store.migrate()
    assert await store.schema_version() == LATEST_VERSION
    if start >= 1:
        assert await session(store, 1, 20) == [{"role": "user", "content": "kept across the migration"}]
        assert await store.users.user_name(1) == "Ann"
        assert await store.facts.unread_count(1) == 1  # old messages are unread: the extractor will read them
        assert (await store.accounts.export_user(1))["messages"][0]["kind"] == "text"  # what every earlier message was
    await store.close()
    if not isinstance(database, str):  # SQLite: the schema is the very one a blank file gets
        blank = tmp_path / "blank.db"
        await (await Store.open(blank)).close()
        assert await schema(database) == await schema(blank)


async def test_reopening_a_migrated_database_changes_nothing(tmp_path):
    path = tmp_path / "bot.db"
    await (await Store.open(path)).close()
    before = await schema(path)
    await (await Store.open(path)).close()
    assert await schema(path) == before


def test_migrations_are_numbered_in_order():
    assert [version for version, _name, _sql in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))


async def test_first_turn_has_no_previous_time_and_the_next_has(store):
    first = await turn(store, 1, "hello")
    assert first.previous_seen is None and first.name is None
    second = await turn(store, 1, "again", minutes=90)
    assert second.previous_seen == T0


async def test_the_last_unanswered_message_is_only_the_newest_with_no_reply(store):
    assert await store.turns.last_unanswered(1) is None
    first = await turn(store, 1, "one", update_id=501)
    assert await store.turns.last_unanswered(1) == (501, "one", "text")
    await store.turns.add_reply(1, "reply one", T0, 20, reply_to=first.message_id)
    assert await store.turns.last_unanswered(1) is None
    await turn(store, 1, "two", minutes=1, update_id=502)
    await turn(store, 1, "three", minutes=2, update_id=503)
    assert await store.turns.last_unanswered(1) == (503, "three", "text")  # never an older one
    await turn(store, 2, "someone else", minutes=3, update_id=504)
    assert await store.turns.last_unanswered(1) == (503, "three", "text")
    await turn(store, 1, "no update id", minutes=4)
    assert await store.turns.last_unanswered(1) is None


async def test_history_is_oldest_first_and_includes_replies(store):
    await turn(store, 1, "one")
    await store.turns.add_reply(1, "reply one", T0, 20)
    result = await turn(store, 1, "two", minutes=1)
    assert result.history == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "reply one"},
        {"role": "user", "content": "two"},
    ]


async def count_messages(store, user_id):
    rows = await fetch(store, "SELECT COUNT(*) FROM messages WHERE user_id = ?", (user_id,))
    return rows[0][0]


async def chat(store, user_id, turns, limit=20):
    for i in range(turns):
        await turn(store, user_id, f"user {i}", minutes=i, limit=limit)
        await store.turns.add_reply(user_id, f"bot {i}", T0, limit)


async def test_the_history_sent_is_capped(store):
    await chat(store, 1, 15)
    result = await turn(store, 1, "last", minutes=99)
    assert len(result.history) == 20
    assert result.history[0] == {"role": "assistant", "content": "bot 5"}
    assert result.history[-1] == {"role": "user", "content": "last"}


async def test_messages_are_pruned_only_once_the_extractor_has_read_them(store):
    await chat(store, 1, 15)
    assert await count_messages(store, 1) == 30  # nothing read yet: nothing pruned
    [*_, newest] = await store.facts.pending_messages(1, 100)
    await store.facts.save_facts(1, Extraction(), T0, 100, extracted_upto=newest["id"])
    await store.turns.add_reply(1, "one more", T0, 20)
    assert await count_messages(store, 1) == 20
    assert await store.facts.pending_messages(1, 100) == [
        {"id": newest["id"] + 1, "role": "assistant", "content": "one more", "at": T0, "kind": "text"}
    ]


async def test_unread_counts_messages_older_than_the_session_too(store):
    await chat(store, 1, 8, limit=4)  # 8 user messages, none read, the session is 4 long
    assert (await turn(store, 1, "ninth", limit=4)).unread == 9


async def test_unread_messages_are_kept_only_up_to_a_hard_cap(store):
    await chat(store, 1, 30, limit=4)
    assert await count_messages(store, 1) == 4 * UNREAD_CAP


async def test_an_update_seen_again_resumes_its_turn_without_storing_the_message_twice(store):
    first = await turn(store, 1, "hi", update_id=100)
    again = await turn(store, 1, "hi", update_id=100)
    assert again.message_id == first.message_id and again.stored_reply is None
    assert await session(store, 1, 20) == [{"role": "user", "content": "hi"}]


async def test_an_update_seen_again_after_its_reply_was_stored_gets_that_reply(store):
    first = await turn(store, 1, "hi", update_id=100)
    await store.turns.add_reply(1, "hello!", T0, 20, reply_to=first.message_id)
    await turn(store, 1, "next", update_id=101)
    again = await turn(store, 1, "hi", update_id=100)
    assert again.stored_reply == "hello!"
    assert [m["content"] for m in await session(store, 1, 20)] == ["hi", "hello!", "next"]


async def test_a_voice_transcript_is_found_by_its_update_and_marked_voice(store):
    await store.turns.begin_turn(user_id=1, first_name="Ann", language_code="en", text="what I said aloud", now=T0,
                           update_id=300, history_limit=20, kind="voice")
    assert await store.turns.message_for_update(1, 300) == "what I said aloud"
    assert await store.turns.message_for_update(1, 301) is None
    assert await store.turns.message_for_update(2, 300) is None  # another user's update is never theirs
    [message] = (await store.accounts.export_user(1))["messages"]
    assert (message["kind"], message["content"]) == ("voice", "what I said aloud")


async def test_an_update_id_of_another_users_message_is_not_a_turn(store):
    await turn(store, 1, "hi", update_id=100)
    assert await turn(store, 2, "hi", update_id=100) is None
    assert await session(store, 2, 20) == []


async def test_the_inbox_replays_what_was_not_handled_and_forgets_the_payload_of_what_was(store):
    inbox = await TransportStore.open(store.backend)
    await inbox.record_updates([(7, '{"update_id": 7}', 1), (8, '{"update_id": 8}', 1)], T0)
    await inbox.record_updates([(7, '{"update_id": 7, "again": true}', 1)], T0)  # redelivered: kept as it was
    assert await inbox.unhandled_updates() == ['{"update_id": 7}', '{"update_id": 8}']
    await inbox.mark_handled(7, T0)
    assert await inbox.was_handled(7) and not await inbox.was_handled(8) and not await inbox.was_handled(9)
    assert await inbox.unhandled_updates() == ['{"update_id": 8}']
    rows = await fetch(store, "SELECT payload FROM inbox WHERE update_id = 7")
    assert rows == [(None,)]
    assert await inbox.prune_inbox(T0 + timedelta(seconds=1)) == 1  # the handled one; 8 waits
    assert await inbox.unhandled_updates() == ['{"update_id": 8}']


async def test_a_stated_name_is_kept_and_not_erased_by_later_turns(store):
    await turn(store, 1, "my name is Bob", name="Bob")
    assert (await turn(store, 1, "what's up")).name == "Bob"
    assert await store.users.user_name(1) == "Bob"


async def test_users_are_isolated(store):
    await turn(store, 1, "secret of one", name="One")
    other = await turn(store, 2, "hello from two")
    assert other.history == [{"role": "user", "content": "hello from two"}]
    assert other.name is None


async def test_a_failed_transaction_leaves_nothing(store):
    with pytest.raises(RuntimeError):
        async with store.backend.transaction() as db:
            await db.execute(
                "INSERT INTO users (id, first_seen, last_seen) VALUES (9, 'x', 'x')"
            )
            raise RuntimeError("boom")
    assert await fetch(store, "SELECT COUNT(*) FROM users WHERE id = 9") == [(0,)]


def statements_of(script, log: list):
    """Run `script` as it is, appending each statement it yields to `log`."""
    try:
        statement = script.send(None)
        while True:
            log.append(statement[0])
            statement = script.send((yield statement))
    except StopIteration as stop:
        return stop.value


ODD_TEXTS = ['she said "hi" \\ then\nleft', "ёлка 🎄 \u2028 tab\there", "{'json': [1, 2]}", "null", ""]


async def test_a_turn_brings_back_the_session_and_the_facts_exactly_as_stored(store):
    facts = [Fact("personal", "city", 'Nizhny "N" \\ Novgorod', confidence=1.0),
             Fact("preference", "food", "пельмени 🥟\nи чай", importance=8, confidence=0.123456789012345),
             Fact("event", "trip", "to Kazan", when="2026-12-04T10:00")]
    for minute, text in enumerate(ODD_TEXTS):
        started = await turn(store, 1, text, minutes=minute, update_id=500 + minute, limit=4)
        await store.turns.add_reply(1, f"re: {text}", T0 + timedelta(minutes=minute), 4, reply_to=started.message_id)
    await store.facts.save_facts(1, Extraction(facts), T0, 100)
    log: list = []
    last = await store.backend.run(statements_of(store.turns._begin_turn(
        1, "Ann", "en", "the last one", T0 + timedelta(hours=1), 600, 4, "text", True, None, None, 1), log))
    stored = await fetch(store, "SELECT id, role, content, created_at FROM messages WHERE user_id = ?"
                                " ORDER BY id DESC LIMIT 4", (1,))
    stored.reverse()
    assert last.ids == [row[0] for row in stored]
    assert last.history == [{"role": row[1], "content": row[2]} for row in stored]
    assert last.history[-1] == {"role": "user", "content": "the last one"}
    assert last.times == [datetime.fromisoformat(row[3]) for row in stored]
    assert [repr(fact) for fact in last.facts] == [repr(fact) for fact in await store.facts.facts(1)]
    assert {fact.value for fact in last.facts} == {fact.value for fact in facts}
    assert last.unread == len(ODD_TEXTS) + 1  # the extractor has read none of them
    # PostgreSQL: the user's row with their facts, then the message with the session, one round trip each.
    assert len(log) == (2 if store.on_postgres else 6)
