"""End to end: /profile, /forget, /memory and /export through the real Application."""

from __future__ import annotations

import json

import pytest

from memory.store.memory_store import Store
from tests.conftest import fetch
from tests.harness import make_config, running_bot

ANN, BOB = 1001, 1002


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db")


def buttons_of(message: dict) -> list[tuple[str, str]]:
    return [(b["text"], b["callback_data"]) for row in message["reply_markup"]["inline_keyboard"] for b in row]


def last_call(telegram, method: str) -> dict:
    return [params for name, params in telegram.calls if name == method][-1]


async def tables_mentioning(path, user_id: int) -> dict[str, int]:
    store = await Store.open(path)
    counts = {}
    tables = await fetch(store, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    for (table,) in tables:
        if table in ("send_budget", "transport_version"):  # the bot's shared Telegram rate, a schema's version
            continue
        if table == "inbox":  # an update waiting there carries the user in its JSON, and whose it is
            where, values = "payload LIKE ? OR user_id = ?", (f'%"id": {user_id},%', user_id)
        else:
            where, values = ("id = ?" if table == "users" else "user_id = ?"), (user_id,)
        counts[table] = (await fetch(store, f"SELECT COUNT(*) FROM {table} WHERE {where}", values))[0][0]
    await store.close()
    return counts


async def test_profile_lists_a_stated_fact_and_one_fact_is_deleted_by_its_button(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "/profile")
        [empty] = await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "My name is Ann. I live in Berlin and I have a dog named Rex.")
        await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "/profile")
        shown = (await telegram.wait_for_sent(ANN, 3))[-1]
        [dog] = [data for label, data in buttons_of(shown) if "Rex" in label]
        telegram.push_callback(BOB, dog, shown["message_id"], chat_id=ANN)  # somebody else's press
        await telegram.wait_for_call("answerCallbackQuery", 1)
        telegram.push_callback(ANN, dog, shown["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        telegram.push_callback(ANN, dog, shown["message_id"])  # the same button again: already gone
        await telegram.wait_for_call("answerCallbackQuery", 3)
    assert "don't know anything about you" in empty["visible_text"]
    assert "Name: Ann" in shown["visible_text"] and "• Berlin" in shown["visible_text"]
    assert "Rex" in shown["visible_text"]
    answers = [p for m, p in telegram.calls if m == "answerCallbackQuery"]
    assert "expired" in answers[0]["text"] and "expired" in answers[2]["text"]
    redrawn = last_call(telegram, "editMessageText")
    assert "Rex" not in redrawn["text"] and "Berlin" in redrawn["text"]
    store = await Store.open(config.database_path)
    assert {f.key for f in await store.facts.facts(ANN)} == {"name", "city"}
    await store.close()


async def test_forget_erases_every_row_of_the_user_and_nothing_of_anyone_else(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "my name is Ann, I live in Kazan")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(BOB, "my name is Bob, I live in Oslo", first_name="Bob")
        await telegram.wait_for_sent(BOB, 1)
        telegram.push_text(ANN, "/forget")
        ask = (await telegram.wait_for_sent(ANN, 2))[-1]
        [(_, erase), _cancel] = buttons_of(ask)
        telegram.push_callback(BOB, erase, ask["message_id"], chat_id=ANN)
        await telegram.wait_for_call("answerCallbackQuery", 1)
        assert (await tables_mentioning(config.database_path, ANN))["facts"] == 2  # Bob's press did nothing
        telegram.push_callback(ANN, erase, ask["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        after = await tables_mentioning(config.database_path, ANN)
        telegram.push_text(ANN, "hello again")
        await telegram.wait_for_sent(ANN, 3)
    assert set(after) >= {"users", "messages", "facts", "fact_history", "fact_relations"}
    assert all(count == 0 for count in after.values()), after
    assert "(facts: 2, messages: 2)" in last_call(telegram, "editMessageText")["text"]
    last = [r for r in model.requests if "response_format" not in r][-1]
    assert "Their name" not in last["messages"][0]["content"] and "Kazan" not in json.dumps(last)
    assert (await tables_mentioning(config.database_path, BOB))["facts"] == 2


async def test_forget_with_words_deletes_only_the_matching_facts(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "I have a dog named Rex and I live in Berlin")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "/forget dog")
        ask = (await telegram.wait_for_sent(ANN, 2))[-1]
        telegram.push_callback(ANN, buttons_of(ask)[0][1], ask["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        telegram.push_text(ANN, "/forget unicorns")
        await telegram.wait_for_sent(ANN, 3)
    assert "Rex" in ask["visible_text"] and "Berlin" not in ask["visible_text"]
    assert "Deleted: 1." in last_call(telegram, "editMessageText")["text"]
    assert "nothing that matches" in telegram.sent_to(ANN)[-1]["visible_text"]
    store = await Store.open(config.database_path)
    assert [f.key for f in await store.facts.facts(ANN)] == ["city"]
    await store.close()


async def test_forget_with_nothing_stored_is_harmless_and_junk_buttons_expire(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "/forget")
        ask = (await telegram.wait_for_sent(ANN, 1))[-1]
        telegram.push_callback(ANN, buttons_of(ask)[0][1], ask["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        for junk in ("junk:'; DROP TABLE users;--", "pf:del:1:0", "pf:pg:x", "pf:del:-1:0:9"):
            telegram.push_callback(ANN, junk, ask["message_id"])
        await telegram.wait_for_call("answerCallbackQuery", 5)
        telegram.push_text(ANN, "/nonsense_command with junk")
        await telegram.wait_for_sent(ANN, 2)
    assert "nothing to erase" in last_call(telegram, "editMessageText")["text"]
    answers = [p for m, p in telegram.calls if m == "answerCallbackQuery"][1:]
    assert all("expired" in answer["text"] for answer in answers)
    assert "/profile" in telegram.sent_to(ANN)[-1]["visible_text"]


async def test_memory_off_stores_nothing_new_and_on_again_does(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "/memory off")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "I live in Berlin")
        await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "/profile")
        off_profile = (await telegram.wait_for_sent(ANN, 3))[-1]
    async with running_bot(config):  # the setting outlives a restart
        telegram.push_text(ANN, "I have a cat named Luna")
        await telegram.wait_for_sent(ANN, 4)
        store = await Store.open(config.database_path)
        assert await store.facts.facts(ANN) == []
        await store.close()
        telegram.push_text(ANN, "/memory on")
        await telegram.wait_for_sent(ANN, 5)
        telegram.push_text(ANN, "I live in Berlin")
        await telegram.wait_for_sent(ANN, 6)
    assert "Memory is off" in off_profile["visible_text"]
    store = await Store.open(config.database_path)
    assert [f.value for f in await store.facts.facts(ANN)] == ["Berlin"]
    await store.close()


async def test_remembered_notes_are_off_by_default_and_can_be_turned_on(telegram, model, config):
    async with running_bot(config) as app:
        telegram.push_text(ANN, "I live in Berlin")
        quiet = (await telegram.wait_for_sent(ANN, 1))[-1]
        telegram.push_text(ANN, "/memory notify on")
        await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "I have a dog named Rex")
        reply, noted = (await telegram.wait_for_sent(ANN, 4))[-2:]
        [(label, undo)] = buttons_of(noted)
        telegram.push_callback(ANN, undo, noted["message_id"])
        [edited] = await telegram.wait_for_call("editMessageText", 1)
        facts = [fact.value for fact in await app.bot_data.store.facts.facts(ANN)]
    assert "remembered" not in quiet["visible_text"] and len(telegram.sent_to(ANN)) == 4
    assert "remembered" not in reply["visible_text"]
    assert noted["visible_text"] == "✎ remembered: dog Rex" and label == "↩ Undo"
    assert edited["text"] == "✎ remembered: dog Rex\n↩ Undone: dog Rex"
    assert facts == ["Berlin"]


async def test_export_sends_a_json_document_with_the_users_data_only(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "my name is Ann and I live in Kazan")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(BOB, "my name is Bob and I live in Oslo", first_name="Bob")
        await telegram.wait_for_sent(BOB, 1)
        telegram.push_text(ANN, "/export")
        [upload] = await telegram.wait_for_call("sendDocument", 1)
    data = json.loads(upload["document"]["content"])
    assert data["user"]["id"] == ANN and data["user"]["name"] == "Ann"
    assert {fact["value"] for fact in data["facts"]} == {"Ann", "Kazan"}
    assert [m["content"] for m in data["messages"]][0] == "my name is Ann and I live in Kazan"
    assert "Bob" not in json.dumps(data) and "Oslo" not in json.dumps(data)


@pytest.mark.parametrize("command", ["/profile", "/export", "/forget", "/memory off"])
async def test_memory_commands_in_a_group_point_to_the_private_chat_and_reveal_or_change_nothing(
    telegram, model, config, command
):
    group = -100777
    async with running_bot(config) as app:
        telegram.push_text(ANN, "My name is Ann and I live in Berlin.")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, command, chat_id=group, chat_type="group")
        [answer] = await telegram.wait_for_sent(group, 1)
        facts = {f.key for f in await app.bot_data.store.facts.facts(ANN)}
        settings = await app.bot_data.store.users.settings(ANN)
    assert "private chat" in answer["visible_text"] and "Berlin" not in answer["visible_text"]
    assert telegram.documents == [] and "reply_markup" not in answer
    assert {"name", "city"} <= facts and "memory" not in settings
