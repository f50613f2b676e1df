"""End to end: facts learned by rules and by the LLM reach system message zero; secrets never stored."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from dataclasses import replace

import pytest

from memory.store.memory_store import Store
from tests.harness import make_config, running_bot
from tests.timeouts import scaled

ANN, BOB = 1001, 1002


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=0.3, memory_retry_s=0.3)


def chat_requests(model):
    return [r for r in model.requests if "response_format" not in r]


def extraction_requests(model):
    return [r for r in model.requests if "response_format" in r]


def system_zero(request: dict) -> str:
    return request["messages"][0]["content"]


def user_message_ids(request: dict) -> list[int]:
    """The ids the extraction prompt gives the user's own messages."""
    text = "\n".join(m["content"] for m in request["messages"][1:])
    return [int(i) for i in re.findall(r"\[user #(\d+)\]", text)]


def extractor_reply(facts_for: dict[str, list[dict]]):
    """A model that answers chat turns with an echo and extraction calls with `facts_for[text]`."""

    def reply(body: dict) -> str:
        if "response_format" not in body:
            return "echo: " + body["messages"][-1]["content"]
        prompt = body["messages"][-1]["content"]
        facts = []
        for message_id in user_message_ids(body):
            line = re.search(rf"\[user #{message_id}\] (.*)", prompt).group(1)
            for fact in facts_for.get(line.strip(), []):
                facts.append({"importance": 6, "confidence": 0.9, "source_message_id": message_id, **fact})
        return json.dumps({"facts": facts, "relations": []})

    return reply


async def dump_database(path) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(db.iterdump())


async def test_a_rule_fact_is_in_the_same_turns_system_message(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "Привет! Я живу в Казани и у меня есть кошка Мурка.", language_code="ru")
        await telegram.wait_for_sent(ANN, 1)
    prompt = system_zero(chat_requests(model)[0])
    assert 'city: "Казань"' in prompt
    assert "Мурка" in prompt


async def test_an_llm_fact_reaches_a_later_turn_after_the_idle_delay(telegram, model, config):
    model.reply = extractor_reply({"I spent the weekend fixing my old Volvo": [
        {"category": "interests", "key": "car:volvo", "value": "old Volvo they fix themselves"}]})
    async with running_bot(config):
        telegram.push_text(ANN, "I spent the weekend fixing my old Volvo")
        await telegram.wait_for_sent(ANN, 1)
        await wait_until(lambda: extraction_requests(model))
        await wait_until_stored(config, ANN, "car:volvo")
        telegram.push_text(ANN, "what should I do this weekend?")
        await telegram.wait_for_sent(ANN, 2)
    assert 'car: "old Volvo they fix themselves"' in system_zero(chat_requests(model)[-1])
    request = extraction_requests(model)[0]
    assert request["response_format"]["type"] == "json_schema"


async def test_a_fact_stated_only_by_the_assistant_is_never_stored(telegram, model, config):
    def reply(body):
        if "response_format" not in body:
            return "You told me you live in Paris, right?"
        # A model that wrongly takes the assistant's words as a source: every message id it saw.
        text = "\n".join(m["content"] for m in body["messages"][1:])
        ids = [int(i) for i in re.findall(r"#(\d+)", text)]
        facts = [{"category": "location", "key": "city", "value": "Paris", "importance": 7, "confidence": 0.9,
                  "source_message_id": i} for i in ids if i not in user_message_ids(body)]
        return json.dumps({"facts": facts, "relations": []})

    model.reply = reply
    async with running_bot(config):
        telegram.push_text(ANN, "hello")
        await telegram.wait_for_sent(ANN, 1)
        await wait_until(lambda: extraction_requests(model))
        telegram.push_text(ANN, "and now?")
        await telegram.wait_for_sent(ANN, 2)
    assert "Paris" not in system_zero(chat_requests(model)[-1])
    store = await Store.open(config.database_path)
    assert await store.facts.facts(ANN) == []
    await store.close()


async def test_a_card_number_never_reaches_the_database_or_the_model(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "my card is 4111 1111 1111 1111, I live in Berlin")
        await telegram.wait_for_sent(ANN, 1)
        await wait_until(lambda: extraction_requests(model))
    everything_sent = json.dumps(model.requests)
    assert "4111" not in everything_sent
    assert "Berlin" in everything_sent
    assert "4111" not in await dump_database(config.database_path)


async def test_pending_extraction_survives_a_restart(telegram, model, config):
    model.reply = extractor_reply({"I'm a nurse at the city hospital": [
        {"category": "career", "key": "employer", "value": "the city hospital"}]})
    async with running_bot(replace(config, memory_extract_delay_s=60)):
        telegram.push_text(ANN, "I'm a nurse at the city hospital")
        await telegram.wait_for_sent(ANN, 1)
    assert extraction_requests(model) == []  # stopped before the idle delay
    async with running_bot(replace(config, memory_extract_delay_s=0.2)):
        await wait_until_stored(config, ANN, "employer")


async def test_a_failed_extraction_stores_nothing_and_is_tried_again(telegram, model, config):
    answers = iter(["this is not json at all", json.dumps({"facts": [], "relations": []})])
    real = extractor_reply({"I play the cello in an amateur orchestra": [
        {"category": "interests", "key": "plays:cello", "value": "the cello, in an amateur orchestra"}]})

    def reply(body):
        if "response_format" in body and next(answers, None) == "this is not json at all":
            return "this is not json at all"
        return real(body)

    model.reply = reply
    async with running_bot(config):
        telegram.push_text(ANN, "I play the cello in an amateur orchestra")
        await telegram.wait_for_sent(ANN, 1)
        await wait_until_stored(config, ANN, "plays:cello")
    assert len(extraction_requests(model)) >= 2


async def test_every_n_messages_extraction_runs_without_waiting_for_idle(telegram, model, config):
    async with running_bot(replace(config, memory_extract_delay_s=600, memory_extract_every=3)):
        for i in range(3):
            telegram.push_text(ANN, f"message {i}")
            await telegram.wait_for_sent(ANN, i + 1)
        await wait_until(lambda: extraction_requests(model))
    assert len(user_message_ids(extraction_requests(model)[0])) == 3


async def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def wait_until_stored(config, user_id: int, key: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while True:
        store = await Store.open(config.database_path)
        keys = {fact.key for fact in await store.facts.facts(user_id)}
        await store.close()
        if key in keys:
            return
        assert time.monotonic() < deadline, f"{key} not stored in time; have {keys}"
        await asyncio.sleep(0.1)


async def test_at_shutdown_passes_still_waiting_for_a_slot_give_up_and_run_after_restart(telegram, model, config):
    users = range(5001, 5009)  # 8 passes at once; 4 run at a time
    model.reply = extractor_reply({})
    model.delay = 0.5  # every pass takes a while: none ends before the others have asked for a slot
    async with running_bot(replace(config, memory_extract_delay_s=600, memory_extract_every=1)) as app:
        for user in users:
            telegram.push_text(user, "hello")
        for user in users:
            await telegram.wait_for_sent(user, 1)
        await wait_until(lambda: len(extraction_requests(model)) >= 4)
        app.bot_data.keeper.stopping.set()  # as SIGTERM does
    assert len(extraction_requests(model)) == 4  # the other 4 did not start; their messages stay unread
    model.delay = 0.0
    async with running_bot(config) as app:
        await wait_until(lambda: len(extraction_requests(model)) >= 8)
        store = app.bot_data.store
        for user in users:
            await wait_until_async(lambda u=user: store.facts.unread_count(u), expect=0)


async def wait_until_async(probe, expect, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while await probe() != expect:
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)
