"""The store's side of edits and forwards, on SQLite and PostgreSQL: a message found by its Telegram id while it
is in the session, rewritten in place; the extractor told which messages were forwarded."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


async def say(store, user_id: int, text: str, chat_message_id: int | None, minutes: int = 0, kind: str = "text"):
    return await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="en", text=text,
                                  now=T0 + timedelta(minutes=minutes), update_id=None, history_limit=4, kind=kind,
                                  chat_message_id=chat_message_id)


async def test_a_message_is_found_by_its_telegram_id_only_while_in_the_session(store):
    first = await say(store, 1, "my name is Vasya", 10)
    assert await store.edits.session_message(1, 10, 4) == (first.message_id, "my name is Vasya", "text")
    assert await store.edits.session_message(2, 10, 4) is None  # another user's message 10 is not theirs
    assert await store.edits.session_message(1, 11, 4) is None
    for index in range(4):
        await say(store, 1, f"message {index}", 11 + index, minutes=index + 1)
    assert await store.edits.session_message(1, 10, 4) is None  # four newer messages pushed it out of the session
    assert await store.edits.session_message(1, 14, 4) is not None


async def test_an_edit_rewrites_only_that_users_message(store):
    mine = await say(store, 1, "my name is Vasya", 10)
    await say(store, 2, "my name is Bob", 10)
    await store.edits.edit_message(1, mine.message_id, "my name is Petya")
    await store.edits.edit_message(2, mine.message_id, "hijacked")  # another user's id never reaches this row
    pending = await store.facts.pending_messages(1, 10)
    assert [m["content"] for m in pending] == ["my name is Petya"]
    assert [m["content"] for m in await store.facts.pending_messages(2, 10)] == ["my name is Bob"]


async def test_pending_messages_say_which_were_forwarded(store):
    await say(store, 1, "mine", 1)
    await say(store, 1, "[forwarded from Boris] his", 2, minutes=1, kind="forward")
    assert [m["kind"] for m in await store.facts.pending_messages(1, 10)] == ["text", "forward"]
