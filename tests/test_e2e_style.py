"""End to end: lasting wishes about how to talk reach their own block in system message zero, are confirmed
with an Undo button, switch ты/вы both ways, and go with /forget; a one-off request leaves no trace."""

from __future__ import annotations

import pytest

from memory.store.memory_store import Store
from tests.harness import make_config, running_bot
from tests.test_e2e_memory import chat_requests, dump_database, extractor_reply, system_zero, wait_until_stored
from tests.test_e2e_privacy import buttons_of

ANN, BOB = 1001, 1002
BLOCK = "## How they want you to talk"


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=0.3, memory_retry_s=0.3)


async def style_facts(config, user_id: int) -> dict[str, str]:
    store = await Store.open(config.database_path)
    facts = {fact.key: fact.value for fact in await store.facts.facts(user_id) if fact.category == "style"}
    await store.close()
    return facts


def block_of(prompt: str) -> str:
    """The style block of a system message, or "" when it has none."""
    if BLOCK not in prompt:
        return ""
    return prompt.split(BLOCK, 1)[1].split("\n## ", 1)[0]


async def test_a_lasting_wish_is_confirmed_with_undo_and_rules_every_later_turn(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "From now on, please never use emoji with me.")
        reply, note = await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "So how was your day?")
        await telegram.wait_for_sent(ANN, 3)
    assert note["visible_text"].startswith("✎ From now on:") and "emoji" in note["visible_text"]
    [(label, data)] = buttons_of(note)
    assert label == "↩ Undo" and data.startswith("un:")
    assert "reply_markup" not in reply
    for request in chat_requests(model):  # the very turn it was said, and the next
        prompt = system_zero(request)
        assert 'emoji: "' in block_of(prompt)
        persona_end = prompt.index(BLOCK)
        assert persona_end < prompt.index("## The person you are talking with") < prompt.index("## Now")
        assert "emoji" not in prompt.split("## The person you are talking with")[1]  # not among the facts


async def test_a_one_off_request_leaves_no_trace(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "This time just answer briefly, ok?")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "Сейчас ответь коротко, пожалуйста.", language_code="ru")
        await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "and now tell me something")
        await telegram.wait_for_sent(ANN, 3)
    assert len(telegram.sent_to(ANN)) == 3  # no note was sent
    assert all(BLOCK not in system_zero(request) for request in chat_requests(model))
    assert await style_facts(config, ANN) == {}


async def test_undo_deletes_exactly_that_wish_and_only_for_its_owner(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "I live in Berlin. From now on please never use emoji.")
        _, note = await telegram.wait_for_sent(ANN, 2)
        [(_, data)] = buttons_of(note)
        telegram.push_callback(BOB, data, note["message_id"], chat_id=ANN)  # somebody else's press
        await telegram.wait_for_call("answerCallbackQuery", 1)
        assert await style_facts(config, ANN) != {}
        telegram.push_callback(ANN, data, note["message_id"])
        [edited] = await telegram.wait_for_call("editMessageText", 1)
        telegram.push_callback(ANN, data, note["message_id"])  # pressed again: nothing left to undo
        answers = await telegram.wait_for_call("answerCallbackQuery", 3)
        telegram.push_text(ANN, "hi again")
        await telegram.wait_for_sent(ANN, 3)
    assert "↩ Undone" in edited["text"] and "reply_markup" not in edited
    assert "expired" in answers[0].get("text", "") and "expired" in answers[2].get("text", "")
    assert await style_facts(config, ANN) == {}
    last = system_zero(chat_requests(model)[-1])
    assert BLOCK not in last and 'city: "Berlin"' in last  # only the wish went


async def test_ty_and_vy_switch_both_ways(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "Обращайтесь ко мне на вы, пожалуйста.", language_code="ru")
        await telegram.wait_for_sent(ANN, 2)
        assert await style_facts(config, ANN) == {"style:address": "вы"}
        telegram.push_text(ANN, "Ладно, давай на ты, так проще", language_code="ru")
        note = (await telegram.wait_for_sent(ANN, 4))[-1]
        telegram.push_text(ANN, "Обращайся ко мне на вы, я передумала", language_code="ru")
        await telegram.wait_for_sent(ANN, 6)
        store = await Store.open(config.database_path)
        history = [value for value, _, _ in await store.facts.fact_history(ANN, "style:address")]
        await store.close()
    assert note["visible_text"] == "✎ Теперь на «ты»" and buttons_of(note)[0][0] == "↩ Отменить"
    blocks = [block_of(system_zero(request)) for request in chat_requests(model)]
    assert ['"вы"' in b for b in blocks] == [True, False, True]
    assert ['"ты"' in b for b in blocks] == [False, True, False]
    assert history == ["вы", "ты"]


async def test_an_llm_learned_wish_is_confirmed_even_with_notes_off(telegram, model, config):
    model.reply = extractor_reply({"Ugh, corporate speak again, I can't bear it.": [
        {"category": "style", "key": "style:tone", "value": "only data and conclusions"}]})
    async with running_bot(config):
        telegram.push_text(ANN, "Ugh, corporate speak again, I can't bear it.")
        await wait_until_stored(config, ANN, "style:tone")
        messages = await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "write me a status update")
        await telegram.wait_for_sent(ANN, 3)
    note = messages[-1]
    assert note["visible_text"] == "✎ From now on: only data and conclusions" and buttons_of(note)
    assert 'tone: "only data and conclusions"' in block_of(system_zero(chat_requests(model)[-1]))


async def test_profile_shows_wishes_first_and_forget_takes_them_all(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "I live in Berlin. Please never use emoji from now on.")
        await telegram.wait_for_sent(ANN, 2)
        telegram.push_text(ANN, "/profile")
        shown = (await telegram.wait_for_sent(ANN, 3))[-1]
        telegram.push_text(ANN, "/forget")
        ask = (await telegram.wait_for_sent(ANN, 4))[-1]
        telegram.push_callback(ANN, "forget:all", ask["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
    page = shown["visible_text"]
    assert page.index("How you want me to talk") < page.index("Places")
    assert "• From now on:" in page
    assert await style_facts(config, ANN) == {}
    assert "emoji" not in (await dump_database(config.database_path)).lower()


async def test_a_wish_said_in_a_group_is_noted_there_without_buttons(telegram, model, config):
    group = -100555
    async with running_bot(config) as app:
        telegram.push_text(ANN, f"@{app.bot.username} from now on never use emoji with me", chat_id=group,
                           chat_type="group")
        [reply] = await telegram.wait_for_sent(group, 1)
        key = await app.bot_data.store.scopes.known_member(ANN, group)
    assert "✎ From now on:" in reply["visible_text"] and "reply_markup" not in reply
    assert telegram.sent_to(ANN) == []
    # A wish said in a group holds in that group: her private chat keeps its own (memory/scopes.py).
    assert list(await style_facts(config, key)) == ["style:emoji"]
    assert list(await style_facts(config, ANN)) == []


@pytest.mark.parametrize("text, key, language", [
    ("Отвечай мне по-английски, хочу практиковаться", "style:language", "ru"),
    ("Reply in English even if I write in Russian", "style:language", "en"),
    ("Don't ask me follow-up questions all the time, just answer", "style:tone", "en"),
    ("Не матерись при мне", "style:tone", "ru"),
])
async def test_a_wish_the_rules_miss_reaches_system_zero_from_the_extractor_and_undo_takes_it(
        telegram, model, config, text, key, language):
    """The extractor hands a wish over in the user's own words, imperatives and all (memory/orders.py keeps it);
    it rules the next turn, and its Undo button takes it back out."""
    value = text.lower()
    model.reply = extractor_reply({text: [{"category": "style", "key": key, "value": value}]})
    async with running_bot(config):
        telegram.push_text(ANN, text, language_code=language)
        await wait_until_stored(config, ANN, key)
        note = (await telegram.wait_for_sent(ANN, 2))[-1]
        telegram.push_text(ANN, "how are you?")
        await telegram.wait_for_sent(ANN, 3)
        [(_, data)] = buttons_of(note)
        telegram.push_callback(ANN, data, note["message_id"])
        await telegram.wait_for_call("editMessageText", 1)
        telegram.push_text(ANN, "and now?")
        await telegram.wait_for_sent(ANN, 4)
    first, last = [system_zero(request) for request in chat_requests(model)][-2:]
    assert f'{key.removeprefix("style:")}: "' in block_of(first) and value.split(",")[0] in block_of(first)
    assert await style_facts(config, ANN) == {}
    assert BLOCK not in last
