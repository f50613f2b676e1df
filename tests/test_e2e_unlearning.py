"""End to end: the companion unlearns, through the real Application against the Bot API and OpenAI doubles.

What ended is shown as the past (a death as a loss) from the very next reply; a correction replaces the value;
a forget request deletes the facts and scrubs the session, answered by the bot's own line with Undo; an
extraction pass after it does not learn it again; traps change nothing; and "Last time you talked" decides by
what the prompt carries.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from handlers.forget_commands import FORGET_ALL
from handlers.texts import text
from memory.facts import Extraction, Fact
from tests.conftest import fetch
from tests.harness import ProcessedUpdates, make_config, running_bot
from tests.test_e2e_memory import chat_requests, extraction_requests, system_zero, wait_until
from tests.test_e2e_privacy import buttons_of
from tests.test_e2e_proactive import MOSCOW, FakeClock, Sweeps, outreach_requests
from tests.timeouts import scaled

ANN, BOB = 1001, 1002
GROUP = -100777


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=600, stream_replies=False)


def fact_lines(prompt: str) -> list[str]:
    """The lines of system message zero that state facts ("- slot: value …")."""
    return [line for line in prompt.splitlines() if re.match(r"^- [a-z ]+: \"", line)]


def dump(path) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(line for line in db.iterdump() if not line.startswith('INSERT INTO "forgotten"'))


async def say(telegram, processed, user_id: int, words: str, **kwargs) -> None:
    await processed.wait(telegram.push_text(user_id, words, language_code="ru", **kwargs))


async def test_a_job_left_and_a_pet_that_died_are_the_past_from_the_very_next_reply(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Я работаю дизайнером в Яндексе. У меня есть кот Барсик.")
        before = system_zero(chat_requests(model)[-1])
        await say(telegram, processed, ANN, "Я уволилась из Яндекса на прошлой неделе. А Барсик умер вчера.")
        same_turn = system_zero(chat_requests(model)[-1])
        await say(telegram, processed, ANN, "Как думаешь, чем мне теперь заняться?")
        later = system_zero(chat_requests(model)[-1])
        facts = {fact.value: fact for fact in await store.facts.facts(ANN)}
    assert '- employer: "Яндекс"' in fact_lines(before) and '- pet: "кот Барсик"' in fact_lines(before)
    for prompt in (same_turn, later):
        lines = fact_lines(prompt)
        assert '- employer: "Яндекс"' not in lines and '- pet: "кот Барсик"' not in lines  # never as current
        [employer] = [line for line in lines if "Яндекс" in line]
        [cat] = [line for line in lines if "Барсик" in line]
        assert "no longer true" in employer
        assert "died on" in cat and "never ask after them" in cat
        assert '- job title: "дизайнер"' in lines  # the profession stays: only the employer ended
    assert facts["Яндекс"].ended == "ended" and facts["кот Барсик"].ended == "died"
    assert facts["кот Барсик"].ended_on is not None  # "вчера": the day before the message


async def test_a_check_in_after_the_pets_death_speaks_of_it_only_as_a_loss(telegram, model, tmp_path):
    clock = FakeClock(datetime(2026, 11, 30, 12, 0, tzinfo=MOSCOW))
    config = make_config(telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", proactive_sweep_s=0.1,
                         checkin_after_hours=1, followup_after_hours=3, memory_extract_delay_s=600,
                         stream_replies=False)

    def reply(body: dict) -> str:
        if "Write to them first" in body["messages"][0]["content"]:
            return "Думаю о тебе. Как ты держишься после всего?"
        return "echo"

    model.reply = reply
    async with running_bot(config, clock=clock) as app:
        sweeps, processed = Sweeps(app), ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть кот Барсик. Завтра в 10 у меня экзамен по химии.")
        await say(telegram, processed, ANN, "Барсик умер сегодня утром. Экзамен отменили.")
        clock.set("2026-12-01T16:00")  # past the check-in's hour and past the exam's follow-up
        await telegram.wait_for_sent(ANN, 3)
        await sweeps.wait()
        store = app.bot_data.store
        due = await store.outreach.due_items(clock() + timedelta(days=30), 10)
    [checkin] = outreach_requests(model)  # the check-in only: the cancelled exam gets no follow-up
    lines = fact_lines(system_zero(checkin))
    [cat] = [line for line in lines if "Барсик" in line]
    assert "died on" in cat and "never ask after them" in cat
    assert not any("экзамен" in line and "no longer true" not in line for line in lines)
    assert [item.kind for item in due] == []


@pytest.mark.parametrize("trap", [
    "Мой брат уволился из Сбера, сидит дома.",
    "Если я уйду из Яндекса, куда мне идти?",
    "Боюсь, что Барсик умрёт, ему уже 15.",
    "Барсик заболел, везу к ветеринару.",
    "«Я увольняюсь», — сказал мне сегодня коллега.",
    "Я умираю от смеха 😂",
    "Не забудь, что у меня в пятницу экзамен.",
    "Забудь, проехали.",
    "В детстве у меня умерла собака.",
])
async def test_a_trap_changes_nothing_and_gets_the_models_answer(telegram, model, config, trap):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Я работаю в Яндексе. У меня кот Барсик и собака Лайка.")
        before = await store.facts.facts(ANN)
        await say(telegram, processed, ANN, trap)
        after = await store.facts.facts(ANN)
        replies = telegram.sent_to(ANN)
    assert all(fact in after for fact in before) and all(fact.ended is None for fact in after)  # new ones may come
    assert replies[-1]["visible_text"].startswith("echo: ")  # the model answered, not the bot's own line
    assert len(chat_requests(model)) == 2


async def test_a_correction_replaces_the_value_and_keeps_the_old_one_in_history(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Меня зовут Алёна. У меня есть сестра Катя.")
        await say(telegram, processed, ANN, "Вообще-то я Алина, а не Алёна. И сестру зовут Оля, а не Катя.")
        prompt = system_zero(chat_requests(model)[-1])
        facts = {fact.key: fact.value for fact in await store.facts.facts(ANN)}
        names = await store.facts.fact_history(ANN, "name")
    assert 'Their name: "Алина"' in prompt and "Алёна" not in prompt and "Катя" not in prompt.split("## Now")[0]
    assert facts["name"] == "Алина" and "сестра Оля" in facts.values() and "сестра Катя" not in facts.values()
    assert [value for value, _, _ in names] == ["Алёна"]


async def test_a_moved_plan_gets_its_new_day(telegram, model, tmp_path):
    clock = FakeClock(datetime(2026, 12, 1, 12, 0, tzinfo=MOSCOW))  # a Tuesday
    config = make_config(telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", stream_replies=False)
    async with running_bot(config, clock=clock) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "В пятницу в 10 у меня экзамен по химии.")
        await say(telegram, processed, ANN, "Экзамен перенесли на понедельник.")
        [exam] = [fact for fact in await store.facts.facts(ANN) if fact.key.startswith("plan:")]
        [(_, _, _)] = history = await store.facts.fact_history(ANN, exam.key)
    assert exam.when == "2026-12-07" and history[0][0] == exam.value


async def test_a_forget_request_leaves_no_row_and_nothing_in_the_next_request_and_undo_brings_it_back(
    telegram, model, config
):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Я живу в Казани. У меня есть собака Лайка.")
        await say(telegram, processed, ANN, "Лайка сегодня съела мой тапок. А ещё я люблю джаз.")
        calls = len(chat_requests(model))
        await say(telegram, processed, ANN, "Забудь, пожалуйста, про мою собаку")
        note = telegram.sent_to(ANN)[-1]
        assert len(chat_requests(model)) == calls  # the bot's own line answers it, not the model
        assert note["visible_text"] == text("forgotten", "ru", facts="собака Лайка")
        [(label, undo)] = buttons_of(note)
        assert label == text("undo", "ru") and undo.startswith("fg:undo:")
        database = dump(config.database_path)
        facts_rows = await fetch(store, "SELECT COUNT(*) FROM facts f JOIN fact_history h ON h.fact_id = f.id")
        await say(telegram, processed, ANN, "Что посоветуешь послушать вечером?")
        after_forget = json.dumps(chat_requests(model)[-1], ensure_ascii=False)
        # Undo: somebody else's press does nothing; the user's brings it all back, once.
        await processed.wait(telegram.push_callback(BOB, undo, note["message_id"], chat_id=ANN))
        assert "Лайка" not in json.dumps([f.value for f in await store.facts.facts(ANN)], ensure_ascii=False)
        await processed.wait(telegram.push_callback(ANN, undo, note["message_id"]))
        restored = {fact.key: fact.value for fact in await store.facts.facts(ANN)}
        await processed.wait(telegram.push_callback(ANN, undo, note["message_id"]))
        await say(telegram, processed, ANN, "А что ещё?")
        after_undo = json.dumps(chat_requests(model)[-1], ensure_ascii=False)
    assert "Лайк" not in database and facts_rows == [(0,)]
    assert "Лайк" not in after_forget and "собак" not in after_forget  # not in the facts, nor in the session
    assert 'city: \\"Казань\\"' in after_forget and "джаз" in after_forget  # the rest of memory stays
    assert restored.get("pet:лайка") == "собака Лайка" and "Лайка сегодня съела" in after_undo
    edited = [params for method, params in telegram.calls if method == "editMessageText"]
    assert len(edited) == 1 and text("restored", "ru", facts="собака Лайка") in edited[0]["text"]
    answers = [params.get("text") for method, params in telegram.calls if method == "answerCallbackQuery"]
    assert answers.count(text("button_expired", "en")) == 1  # the stranger's press (Bob's app is in English)
    assert answers.count(text("button_expired", "ru")) == 1  # and Ann's second one


async def test_dont_remember_this_drops_the_message_before_and_what_was_learned_from_it(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Я живу в Казани.")
        await say(telegram, processed, ANN, "Я работаю в Сбере, но у меня долги два миллиона.")
        await say(telegram, processed, ANN, "не запоминай это")
        note = telegram.sent_to(ANN)[-1]
        await say(telegram, processed, ANN, "Что посоветуешь на вечер?")
        request = json.dumps(chat_requests(model)[-1], ensure_ascii=False)
        keys = {fact.key for fact in await store.facts.facts(ANN)}
    assert note["visible_text"] == text("forgotten", "ru", facts="Сбер")
    assert "долги" not in request and "Сбер" not in request and "Казань" in request
    assert keys == {"city"}


async def test_the_rest_of_a_message_that_asks_to_forget_gets_the_models_answer(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "У меня есть собака Лайка.")
        await say(telegram, processed, ANN, "Забудь про мою собаку. Кстати, что почитать на выходных?")
        [*_, reply, note] = telegram.sent_to(ANN)
        request = json.dumps(chat_requests(model)[-1], ensure_ascii=False)
        facts = await store.facts.facts(ANN)
    assert reply["visible_text"].startswith("echo: ") and "что почитать на выходных" in reply["visible_text"]
    assert note["visible_text"] == text("forgotten", "ru", facts="собака Лайка") and facts == []
    assert "Лайк" not in request and "собак" not in request


async def test_an_extraction_pass_after_the_forget_does_not_learn_it_again(telegram, model, config):
    def reply(body: dict) -> str:  # a model that learns the dog from any line that mentions her
        if "response_format" not in body:
            return "echo"
        prompt = body["messages"][-1]["content"]
        facts = [{"category": "pets", "key": "pet:laika", "value": "собака Лайка", "importance": 7,
                  "confidence": 0.9, "source_message_id": int(line_id), "when": None}
                 for line_id, line in re.findall(r"^\[user #(\d+)\] (.*)$", prompt, re.M) if "Лайк" in line]
        return json.dumps({"facts": facts, "relations": [], "topics": None, "changes": []})

    model.reply = reply
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "У меня есть собака Лайка, ей три года.")
        await say(telegram, processed, ANN, "Я живу в Казани.")
        await say(telegram, processed, ANN, "Забудь про мою собаку.")
        assert await app.bot_data.keeper.extract_quietly(ANN) == []  # reads every unread message now
        keys = {fact.key for fact in await store.facts.facts(ANN)}
        unread = await store.facts.unread_count(ANN)
    [request] = extraction_requests(model)
    assert "Лайк" not in request["messages"][-1]["content"]
    assert "pet:лайка" not in keys and "city" in keys and unread == 0


async def test_forget_everything_in_conversation_points_to_forget_and_wipes_nothing(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Я живу в Казани. У меня есть собака Лайка.")
        await say(telegram, processed, ANN, "Забудь всё обо мне")
        question = telegram.sent_to(ANN)[-1]
        kept = len(await store.facts.facts(ANN))
    assert question["visible_text"] == text("forget_ask", "ru")
    assert FORGET_ALL in [data for _, data in buttons_of(question)]
    assert kept == 2


async def test_a_request_that_could_mean_two_facts_asks_which(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "У меня есть сестра Катя и сестра Оля.")
        await say(telegram, processed, ANN, "Забудь про мою сестру")
        question = telegram.sent_to(ANN)[-1]
        assert len(await store.facts.facts(ANN)) == 2  # nothing deleted on a guess
        [(katya, pick)] = [(label, data) for label, data in buttons_of(question) if "Катя" in label]
        await processed.wait(telegram.push_callback(ANN, pick, question["message_id"]))
        values = [fact.value for fact in await store.facts.facts(ANN)]
    assert question["visible_text"] == text("forget_which", "ru")
    assert values == ["сестра Оля"]


async def test_a_request_that_matches_nothing_says_so(telegram, model, config):
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await say(telegram, processed, ANN, "У меня есть собака Лайка.")
        await say(telegram, processed, ANN, "Забудь про мою черепаху")
    assert telegram.sent_to(ANN)[-1]["visible_text"] == text("forget_unmatched", "ru", words="мою черепаху")


async def test_in_a_group_a_forget_request_touches_only_the_speaker_and_names_nothing(telegram, model, config):
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "У меня есть собака Лайка.")
        await say(telegram, processed, BOB, "У меня есть собака Лайка.")
        bot = f"@{telegram.bot_username}"
        await say(telegram, processed, ANN, f"{bot} у меня есть собака Лайка.", chat_id=GROUP, chat_type="group")
        await say(telegram, processed, BOB, f"{bot} у меня есть собака Лайка.", chat_id=GROUP, chat_type="group")
        mention = f"{bot} забудь про мою собаку и про собаку Боба"
        await say(telegram, processed, ANN, mention, chat_id=GROUP, chat_type="group")
        line = telegram.sent_to(GROUP)[-1]
        in_group = await store.facts.facts(await store.scopes.known_member(ANN, GROUP))
        bob_in_group = await store.facts.facts(await store.scopes.known_member(BOB, GROUP))
        ann, bob = await store.facts.facts(ANN), await store.facts.facts(BOB)
    # A forget said in a group forgets within that group only, and only the speaker's (memory/scopes.py).
    assert in_group == [] and [fact.value for fact in bob_in_group] == ["собака Лайка"]
    assert [fact.value for fact in ann] == ["собака Лайка"] and [fact.value for fact in bob] == ["собака Лайка"]
    assert line["visible_text"] == text("forgotten_count", "ru", count="1")
    assert "reply_markup" not in line  # no Undo button outside the private chat


async def test_a_forget_request_the_model_finds_is_carried_out_with_undo(telegram, model, config):
    def reply(body: dict) -> str:
        if "response_format" not in body:
            return "echo"
        prompt = body["messages"][-1]["content"]
        asked = re.search(r"^\[user #(\d+)\] Олега из памяти", prompt, re.M)
        changes = [{"op": "forget", "key": "family:ex_oleg", "value": None, "when": None, "how": None,
                    "source_message_id": int(asked.group(1))}] if asked else []
        return json.dumps({"facts": [], "relations": [], "topics": None, "changes": changes})

    model.reply = reply
    async with running_bot(config) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "Привет!")
        ex = Fact("family", "family:ex_oleg", "бывший муж Олег")  # as an earlier pass would have stored him
        await store.facts.save_facts(ANN, Extraction([ex]), app.bot_data.clock(), 100)
        await say(telegram, processed, ANN, "Олега из памяти — вон. Не было такого человека.")
        await app.bot_data.keeper.extract_quietly(ANN)
        await wait_until(lambda: any(m.get("reply_markup") for m in telegram.sent_to(ANN)))
        note = telegram.sent_to(ANN)[-1]
        keys = [fact.key for fact in await store.facts.facts(ANN)]
    assert keys == [] and "бывший муж Олег" in note["visible_text"]
    assert buttons_of(note)[0][1].startswith("fg:undo:")


async def test_the_last_conversations_line_appears_when_its_start_is_out_of_the_prompt(telegram, model, tmp_path):
    clock = FakeClock(datetime(2026, 11, 27, 12, 0, tzinfo=MOSCOW))
    config = make_config(telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", history_limit=20,
                         prompt_max_tokens=1100, conversation_gap_minutes=60, memory_extract_delay_s=0.2,
                         stream_replies=False)

    def reply(body: dict) -> str:
        if "response_format" in body:
            return json.dumps({"facts": [], "relations": [], "topics": "ремонт на даче и выбор краски"})
        return "Понятно, " + "расскажи подробнее, " * 6

    model.reply = reply
    async with running_bot(config, clock=clock) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        first = "Начинаю ремонт на даче, первый шаг: стены, потом пол, потом крыша."
        await say(telegram, processed, ANN, first)
        for i in range(6):  # a 13-message conversation: 7 of the user's and 6 replies
            clock.now += timedelta(minutes=2)
            await say(telegram, processed, ANN, f"Ещё про краску, вариант {i}: " + "белая или серая, " * 5)
        clock.now += timedelta(minutes=5)
        await wait_until(lambda: bool(extraction_requests(model)))
        await wait_until_topics(store)
        clock.now += timedelta(days=1)  # a new conversation
        await say(telegram, processed, ANN, "Привет! Как ты?")
    prompt = chat_requests(model)[-1]
    carried = json.dumps(prompt["messages"][1:], ensure_ascii=False)
    assert first not in carried  # the first conversation's start is out of the prompt …
    assert "## Last time you talked" in system_zero(prompt)  # … so its line is in
    assert "ремонт на даче и выбор краски" in system_zero(prompt)


async def wait_until_topics(store, timeout: float = 10.0) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + scaled(timeout)
    while not await store.topics.topics(ANN):
        assert time.monotonic() < deadline, "no topic line was written"
        await asyncio.sleep(0.05)


async def test_a_forget_request_is_carried_out_past_the_daily_limit(telegram, model, config):
    async with running_bot(replace(config, daily_message_limit=1)) as app:
        processed, store = ProcessedUpdates(app), app.bot_data.store
        await say(telegram, processed, ANN, "У меня есть собака Лайка.")  # the day's one answered message
        calls = len(chat_requests(model))
        await say(telegram, processed, ANN, "Забудь про мою собаку. И что почитать?")
        note = telegram.sent_to(ANN)[-1]
        facts = await store.facts.facts(ANN)
    assert facts == [] and note["visible_text"] == text("forgotten", "ru", facts="собака Лайка")
    assert len(chat_requests(model)) == calls  # the rest of the message waits for tomorrow, like any other
