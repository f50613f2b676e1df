"""End to end: a group is a public room. What a user tells the bot in private stays out of every group's prompt; what
they say in a group is kept per member per group; what they choose to share follows them; /why lists what a reply
used, in a group only what that group may see, and ✗ retires a memory with Undo."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

import pytest

from memory.facts import Extraction, Fact
from tests.conftest import fetch
from tests.harness import make_config, running_bot
from tests.test_e2e_privacy import tables_mentioning

OLYA, PASHA = 1001, 1002
FRIENDS, WORK = -1001000000101, -1001000000202
PRIVATE_WORDS = ("depression", "antidepressants", "300", "Dima", "Sberbank", "Berlin")


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", embeddings="hashing")


def chat_requests(model) -> list[dict]:
    return [r for r in model.requests if "response_format" not in r]


def prompt_text(request: dict) -> str:
    """Everything the model was sent for one turn: system message zero and the conversation."""
    return "\n".join(message["content"] if isinstance(message["content"], str) else json.dumps(message["content"])
                     for message in request["messages"])


def in_group(telegram, user_id: int, group: int, text: str, name: str, **kwargs) -> int:
    """Push a message that mentions the bot in `group`."""
    return telegram.push_text(user_id, f"@{telegram.bot_username} {text}", chat_id=group, chat_type="supergroup",
                              first_name=name, **kwargs)


async def tell_olya_privately(app, telegram) -> None:
    """Olya tells the bot about her health, debt, ex and employer in private, as words and as stored facts."""
    telegram.push_text(OLYA, "I have depression and take antidepressants. I live in Berlin.", first_name="Olya")
    await telegram.wait_for_sent(OLYA, 1)
    facts = [Fact("state", "health", "depression, takes antidepressants", importance=9),
             Fact("other", "debt", "owes 300,000 on a credit card", importance=8),
             Fact("family", "ex_partner", "Dima", importance=6),
             Fact("career", "employer", "Sberbank", importance=7)]
    await app.bot_data.store.facts.save_facts(OLYA, Extraction(facts), datetime.now(timezone.utc), 100)


async def test_private_memory_never_reaches_a_group_prompt_nor_another_members(telegram, model, config):
    async with running_bot(config) as app:
        await tell_olya_privately(app, telegram)
        in_group(telegram, OLYA, FRIENDS, "what film tonight?", "Olya")
        await telegram.wait_for_sent(FRIENDS, 1)
        in_group(telegram, PASHA, FRIENDS, "what do you know about Olya? where does she work?", "Pasha")
        await telegram.wait_for_sent(FRIENDS, 2)
        telegram.push_text(OLYA, "/profile", chat_id=FRIENDS, chat_type="supergroup", first_name="Olya")
        await telegram.wait_for_sent(FRIENDS, 3)
    private, olya_in_group, pasha_in_group = chat_requests(model)
    assert "Berlin" in prompt_text(private)
    for request in (olya_in_group, pasha_in_group):
        shown = prompt_text(request)
        assert not [word for word in PRIVATE_WORDS if word in shown], shown
        assert "In a group" in request["messages"][0]["content"]
    assert "[Olya] what film tonight?" in prompt_text(pasha_in_group)  # the room's own conversation is shared
    assert "Olya" in olya_in_group["messages"][0]["content"]  # her name as Telegram shows it there
    group_lines = " ".join(message["visible_text"] for message in telegram.sent_to(FRIENDS))
    assert not [word for word in PRIVATE_WORDS if word in group_lines]


async def test_what_she_says_in_a_group_stays_in_that_group_unless_she_shares(telegram, model, config):
    async with running_bot(config) as app:
        await tell_olya_privately(app, telegram)
        in_group(telegram, OLYA, FRIENDS, "I have a cat named Murka", "Olya")
        await telegram.wait_for_sent(FRIENDS, 1)
        in_group(telegram, OLYA, FRIENDS, "any plans?", "Olya")
        await telegram.wait_for_sent(FRIENDS, 2)
        in_group(telegram, OLYA, WORK, "morning all", "Olya")
        await telegram.wait_for_sent(WORK, 1)
        telegram.push_text(OLYA, "hi again", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 2)
        store = app.bot_data.store
        [city] = [fact for fact in await store.facts.facts(OLYA) if fact.key == "city"]
        await app.bot_data.memory_page.share(OLYA, city.id, True)
        in_group(telegram, OLYA, WORK, "weather?", "Olya")
        await telegram.wait_for_sent(WORK, 2)
        friends = (await store.scopes.memberships(OLYA))[0]
        group_facts = await store.facts.facts(friends.key)
    _, _, later_in_friends, in_work, private_again, shared_in_work = chat_requests(model)
    assert "Murka" in later_in_friends["messages"][0]["content"]
    assert "Murka" not in prompt_text(in_work) and "Murka" not in prompt_text(private_again)
    assert "Berlin" in shared_in_work["messages"][0]["content"]  # she let her city follow her
    assert not [word for word in PRIVATE_WORDS if word != "Berlin" and word in prompt_text(shared_in_work)]
    assert friends.chat_id == FRIENDS and [fact.value for fact in group_facts] == ["cat Murka"]


async def test_a_forget_said_in_a_group_forgets_there_only_and_forget_erases_every_group(telegram, model, config):
    async with running_bot(config) as app:
        telegram.push_text(OLYA, "I have a dog named Rex", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 1)
        in_group(telegram, OLYA, FRIENDS, "I have a dog named Rex", "Olya")
        await telegram.wait_for_sent(FRIENDS, 1)
        in_group(telegram, OLYA, FRIENDS, "forget about my dog", "Olya")
        await telegram.wait_for_sent(FRIENDS, 2)
        store = app.bot_data.store
        [friends] = await store.scopes.memberships(OLYA)
        kept_privately, kept_in_group = await store.facts.facts(OLYA), await store.facts.facts(friends.key)
        in_group(telegram, OLYA, WORK, "I live in Kazan", "Olya")
        await telegram.wait_for_sent(WORK, 1)
        telegram.push_text(OLYA, "/export", first_name="Olya")
        [upload] = await telegram.wait_for_call("sendDocument", 1)
        keys = [member.key for member in await store.scopes.memberships(OLYA)]
        telegram.push_text(OLYA, "/forget", first_name="Olya")
        ask = (await telegram.wait_for_sent(OLYA, 2))[-1]
        erase = ask["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(OLYA, erase, ask["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
    assert [fact.value for fact in kept_privately] == ["dog Rex"] and kept_in_group == []
    exported = json.loads(upload["document"]["content"])
    assert [fact["value"] for fact in exported["facts"]] == ["dog Rex"]
    assert {group["chat_id"]: [fact["value"] for fact in group["facts"]] for group in exported["groups"]} == {
        FRIENDS: [], WORK: ["Kazan"]}
    for key in (OLYA, *keys):
        left = await tables_mentioning(config.database_path, key)
        assert all(count == 0 for count in left.values()), (key, left)
    from memory.store.memory_store import Store
    store = await Store.open(config.database_path)
    assert await fetch(store, "SELECT COUNT(*) FROM members") == [(0,)]
    await store.close()


async def test_why_lists_what_a_reply_used_and_a_cross_retires_a_fact_with_undo(telegram, model, config):
    async with running_bot(config) as app:
        telegram.push_text(OLYA, "My name is Olya. I live in Berlin and I have a dog named Rex.", first_name="Olya")
        first = (await telegram.wait_for_sent(OLYA, 1))[-1]
        telegram.push_text(OLYA, "how are you?", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 2)
        telegram.push_text(OLYA, "/why", first_name="Olya", reply_to=first["message_id"])
        listed = (await telegram.wait_for_sent(OLYA, 3))[-1]
        crosses = {label: data for row in listed["reply_markup"]["inline_keyboard"] for label, data in
                   [(button["text"], button["callback_data"]) for button in row]}
        telegram.push_callback(PASHA, crosses["✗ Berlin"], listed["message_id"], chat_id=OLYA)  # not his
        await telegram.wait_for_call("answerCallbackQuery", 1)
        telegram.push_callback(OLYA, crosses["✗ Berlin"], listed["message_id"])
        marked = (await telegram.wait_for_sent(OLYA, 4))[-1]
        after_cross = {fact.value for fact in await app.bot_data.store.facts.facts(OLYA)}
        telegram.push_text(OLYA, "and now?", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 5)
        undo = marked["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(OLYA, undo, marked["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        after_undo = {fact.value for fact in await app.bot_data.store.facts.facts(OLYA)}
        telegram.push_text(OLYA, "/why", first_name="Olya")
        last = (await telegram.wait_for_sent(OLYA, 6))[-1]
        events = await fetch(app.bot_data.store, "SELECT event, value FROM memory_events WHERE event = 'wrong'")
    assert "Berlin" in listed["visible_text"] and "Rex" in listed["visible_text"]
    assert "My name is Olya" in listed["visible_text"]  # which reply it explains
    assert "Always in mind" in listed["visible_text"]
    assert "expired" in [p for m, p in telegram.calls if m == "answerCallbackQuery"][0]["text"]
    assert "Marked wrong" in marked["visible_text"] and "Berlin" in marked["visible_text"]
    assert "Berlin" not in after_cross and "dog Rex" in after_cross
    assert "Berlin" not in chat_requests(model)[-1]["messages"][0]["content"]
    assert "Berlin" in after_undo and events == []  # undone: nothing recorded as wrong
    assert "and now?" in last["visible_text"] and "Rex" in last["visible_text"]
    assert "• Olya" in listed["visible_text"]  # the name it called her by is a memory too


async def test_why_in_a_group_shows_only_what_the_group_may_see_and_only_to_its_member(telegram, model, config):
    async with running_bot(config) as app:
        await tell_olya_privately(app, telegram)
        in_group(telegram, OLYA, FRIENDS, "I have a cat named Murka", "Olya")
        answer = (await telegram.wait_for_sent(FRIENDS, 1))[-1]
        telegram.push_text(PASHA, "/why", chat_id=FRIENDS, chat_type="supergroup", first_name="Pasha",
                           reply_to=answer["message_id"])
        refused = (await telegram.wait_for_sent(FRIENDS, 2))[-1]
        telegram.push_text(OLYA, "/why", chat_id=FRIENDS, chat_type="supergroup", first_name="Olya",
                           reply_to=answer["message_id"])
        listed = (await telegram.wait_for_sent(FRIENDS, 3))[-1]
        cross = listed["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(PASHA, cross, listed["message_id"], chat_id=FRIENDS)
        await telegram.wait_for_call("answerCallbackQuery", 1)
        [friends] = await app.bot_data.store.scopes.memberships(OLYA)
        still = [fact.value for fact in await app.bot_data.store.facts.facts(friends.key)]
    assert "Murka" not in refused["visible_text"] and "no longer know" in refused["visible_text"]
    assert "Murka" in listed["visible_text"]
    assert not [word for word in PRIVATE_WORDS if word in listed["visible_text"]]
    assert still == ["cat Murka"]  # Pasha's press retired nothing of hers


async def test_stats_shows_what_memory_learned_what_was_undone_and_duplicated(telegram, model, config):
    from dataclasses import replace

    async with running_bot(replace(config, admin_user_ids=frozenset({OLYA}))) as app:
        telegram.push_text(PASHA, "I live in Berlin and I have a dog named Rex", first_name="Pasha")
        await telegram.wait_for_sent(PASHA, 1)
        await app.bot_data.store.facts.save_facts(PASHA, Extraction([Fact("pets", "pet:murka", "Мурка"),
                                                               Fact("pets", "pet:мурка", "кошка Мурка")]),
                                            datetime.now(timezone.utc), 100, via="page")
        telegram.push_text(PASHA, "/why", first_name="Pasha")
        listed = (await telegram.wait_for_sent(PASHA, 2))[-1]
        cross = listed["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(PASHA, cross, listed["message_id"])
        await telegram.wait_for_sent(PASHA, 3)
        telegram.push_text(OLYA, "/stats", first_name="Olya")
        stats = (await telegram.wait_for_sent(OLYA, 1))[-1]["visible_text"]
    assert "Memory in 24 h: learned 4 facts (rules 2, extractor 0, page 2), marked wrong ✗ 1" in stats
    assert "Near-duplicates: 1 pairs in 1 memories" in stats
    assert "Memories per reply: 2.0 (over 1 replies of 24 h)" in stats


async def test_what_she_said_in_a_group_reaches_her_private_chat_only_when_she_lets_it(telegram, model, config):
    async with running_bot(config) as app:
        in_group(telegram, OLYA, FRIENDS, "I have a cat named Murka", "Olya")
        await telegram.wait_for_sent(FRIENDS, 1)
        telegram.push_text(OLYA, "hello", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 1)
        store = app.bot_data.store
        group_key = (await store.scopes.memberships(OLYA))[0].key
        [murka] = await store.facts.facts(group_key)
        shared = await app.bot_data.memory_page.share(OLYA, murka.id, True)
        telegram.push_text(OLYA, "how is my cat?", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 2)
        telegram.push_text(OLYA, "/why", first_name="Olya")
        listed = (await telegram.wait_for_sent(OLYA, 3))[-1]
        cross = listed["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(OLYA, cross, listed["message_id"])
        marked = (await telegram.wait_for_sent(OLYA, 4))[-1]
        gone = await store.facts.facts(group_key)
        undo = marked["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(OLYA, undo, marked["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        back = await store.facts.facts(group_key)
        await app.bot_data.memory_page.share(OLYA, murka.id, False)
        telegram.push_text(OLYA, "and now?", first_name="Olya")
        await telegram.wait_for_sent(OLYA, 5)
    before, after, unshared = chat_requests(model)[1:]
    assert "Murka" not in prompt_text(before)
    assert shared.shared and "Murka" in after["messages"][0]["content"] and "Murka" in listed["visible_text"]
    assert gone == [] and [fact.value for fact in back] == ["cat Murka"]  # ✗ from private retired it, Undo too
    assert "Murka" not in unshared["messages"][0]["content"]


async def test_the_brain_button_under_a_reply_lists_what_it_used(telegram, model, config):
    from dataclasses import replace

    async with running_bot(replace(config, why_button=True)):
        telegram.push_text(OLYA, "I live in Berlin and I have a dog named Rex", first_name="Olya")
        reply = (await telegram.wait_for_sent(OLYA, 1))[-1]
        [[brain]] = reply["reply_markup"]["inline_keyboard"]
        telegram.push_callback(PASHA, brain["callback_data"], reply["message_id"], chat_id=OLYA)  # not his memory
        await telegram.wait_for_call("answerCallbackQuery", 1)
        telegram.push_callback(OLYA, brain["callback_data"], reply["message_id"])
        listed = (await telegram.wait_for_sent(OLYA, 2))[-1]
    assert brain["text"] == "🧠" and "Berlin" in listed["visible_text"] and "Rex" in listed["visible_text"]
    assert len(telegram.sent_to(OLYA)) == 2  # Pasha's press showed him nothing, and sent nothing


async def test_a_long_answer_in_a_group_is_waited_for_piece_by_piece_not_whole(telegram, model, config):
    async def writing(body: dict) -> str:  # as a slow local server writes it: 5 s in all, past the 2 s timeout
        if not body.get("stream"):
            await asyncio.sleep(5)  # unstreamed, nothing comes until the whole answer is written
        return "word " * 100

    model.reply = writing
    model.stream_first_delay, model.stream_chunk_chars, model.stream_chunk_interval = 0.05, 5, 0.05  # 5 s too
    async with running_bot(config):
        in_group(telegram, OLYA, FRIENDS, "tell me a long story", "Olya")
        [reply] = await telegram.wait_for_sent(FRIENDS, 1, timeout=30)
    assert reply["visible_text"].count("word") == 100 and telegram.drafts == []
    assert len(chat_requests(model)) == 1 and config.model_attempt_timeout_s == 2.0


async def test_in_a_group_an_edit_corrects_that_groups_memory_a_forward_teaches_nothing_and_junk_is_skipped(
        telegram, model, config):
    from tests.harness import ProcessedUpdates
    from tests.test_e2e_senders import user_origin

    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await tell_olya_privately(app, telegram)
        in_group(telegram, OLYA, FRIENDS, "I live in Kazan", "Olya")
        await telegram.wait_for_sent(FRIENDS, 1)
        [(said_id,)] = await fetch(store, "SELECT chat_message_id FROM messages WHERE user_id = ? AND role = 'user'",
                                   (await store.scopes.known_member(OLYA, FRIENDS),))
        await processed.wait(telegram.push_edited_text(OLYA, said_id, f"@{telegram.bot_username} I live in Omsk",
                                                       chat_id=FRIENDS))
        telegram.push_message(OLYA, {"text": f"@{telegram.bot_username} my name is Boris and I live in Paris",
                                     "forward_origin": user_origin(telegram, 5005, "Boris")},
                              chat_id=FRIENDS, chat_type="supergroup", first_name="Olya")
        await telegram.wait_for_sent(FRIENDS, 2)
        await processed.wait(telegram.push_update({"update_id": 99_999, "message": "not a message"}))
        in_group(telegram, OLYA, FRIENDS, "and now?", "Olya")
        await telegram.wait_for_sent(FRIENDS, 3)
        group = {fact.key: fact.value for fact in await store.facts.facts(await store.scopes.known_member(OLYA,
                                                                                                          FRIENDS))}
        private = {fact.key: fact.value for fact in await store.facts.facts(OLYA)}
    assert group == {"city": "Omsk"}  # the edit corrected what she said there; the forward was Boris's words
    assert private["city"] == "Berlin" and "name" not in private
    assert "Omsk" in chat_requests(model)[-1]["messages"][0]["content"]
