"""Migration 15 and a session per persona: the store keeps each persona's messages apart, prunes each on its own,
and an older database's messages become the default persona's."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory.store.memory_store import Store
from tests.conftest import fetch

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


async def talk(store, text: str, persona: str = "", minutes: int = 0, limit: int = 20):
    """One turn of user 1 with `persona`: their message, then a reply; return the turn as begun."""
    now = T0 + timedelta(minutes=minutes)
    turn = await store.turns.begin_turn(user_id=1, first_name="Ann", language_code="en", text=text, now=now,
                                        update_id=None, history_limit=limit, persona=persona)
    await store.turns.add_reply(1, f"re: {text}", now, limit, reply_to=turn.message_id, persona=persona)
    return turn


async def words(store, persona: str) -> list[str]:
    return [content for _role, content, _at in await store.outreach.timed_history(1, 100, persona)]


async def test_an_older_database_keeps_its_messages_as_the_default_personas(database):
    store = await Store.open(database, migrate_to=14)
    await fetch(store, "INSERT INTO users (id, name, first_seen, last_seen) VALUES (1, 'Ann', ?, ?)",
                (T0.isoformat(), T0.isoformat()))
    await fetch(store, "INSERT INTO messages (user_id, role, content, created_at, update_id)"
                       " VALUES (1, 'user', 'said before 15', '2026-01-01T00:00:00+00:00', 5)")
    await store.migrate()
    assert await store.schema_version() == 15
    assert await fetch(store, "SELECT persona, content FROM messages") == [("", "said before 15")]
    with_luna = await talk(store, "hi Luna", "luna", 1)
    by_default = await talk(store, "hi again", "", 2)
    assert [m["content"] for m in with_luna.history] == ["hi Luna"]
    assert [m["content"] for m in by_default.history] == ["said before 15", "hi again"]
    await store.close()


async def test_each_persona_has_its_own_session_and_the_extractor_reads_them_all(database):
    store = await Store.open(database)
    await talk(store, "one", "", 0)
    await talk(store, "two", "quill", 1)
    turn = await talk(store, "three", "", 2)
    assert turn.history == [{"role": "user", "content": "one"}, {"role": "assistant", "content": "re: one"},
                            {"role": "user", "content": "three"}]
    assert turn.unread == 3  # the user's words to every persona await the extractor: memory is theirs
    assert await words(store, "quill") == ["two", "re: two"]
    await store.close()


async def test_talking_with_one_persona_never_prunes_anothers_session(database):
    store = await Store.open(database)
    for minute in range(3):
        await talk(store, f"default {minute}", "", minute, limit=4)
    await fetch(store, "UPDATE users SET extracted_upto = 1000000 WHERE id = 1")  # all read: pruning may take them
    for minute in range(3, 9):
        await talk(store, f"luna {minute}", "luna", minute, limit=4)
    assert await words(store, "luna") == ["luna 7", "re: luna 7", "luna 8", "re: luna 8"]
    assert len(await words(store, "")) == 6  # the default's three exchanges, untouched
    await store.close()


async def test_forgetting_a_user_takes_every_personas_session(database):
    store = await Store.open(database)
    await talk(store, "with the default", "", 0)
    await talk(store, "with luna", "luna", 1)
    await store.accounts.forget_user(1)
    assert await fetch(store, "SELECT COUNT(*) FROM messages") == [(0,)]
    assert await words(store, "") == [] and await words(store, "luna") == []
    await store.close()
