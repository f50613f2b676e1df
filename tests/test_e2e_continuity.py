"""End to end: each conversation keeps a topic line, and a later conversation's system message zero recalls it.

The real Application and its JobQueue run the LLM extraction pass; a fake clock moves the time between the
user's messages, and the OpenAI double answers extraction calls with a topic line built from the user's
own lines (rewriting the line so far when the pass continues a conversation).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import datetime, timedelta

import pytest

from tests.harness import make_config, running_bot
from tests.test_e2e_memory import chat_requests, extraction_requests, system_zero
from tests.test_e2e_privacy import buttons_of
from tests.test_e2e_proactive import MOSCOW, FakeClock
from tests.timeouts import scaled

ANN = 1001
BLOCK = "## Last time you talked"


@pytest.fixture
def config(telegram, model, tmp_path):
    # Two messages of session: the first conversation leaves it once the user comes back.
    return make_config(telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", history_limit=2,
                       conversation_gap_minutes=60, memory_extract_delay_s=0.2, stream_replies=False)


@pytest.fixture
def clock():
    return FakeClock(datetime(2026, 11, 27, 12, 0, tzinfo=MOSCOW))


def topic_writer(body: dict) -> str:
    """Chat turns get an echo; an extraction call gets the line so far and the start of each user line."""
    if "response_format" not in body:
        return "echo: " + body["messages"][-1]["content"]
    prompt = body["messages"][-1]["content"]
    so_far = re.search(r"^Topics of this conversation so far: (.*)$", prompt, re.M).group(1)
    said = "; ".join(line.split(",")[0] for line in re.findall(r"^\[user #\d+\] (.*)$", prompt, re.M))
    topics = f"{json.loads(so_far)}; {said}" if so_far.startswith('"') else said
    return json.dumps({"facts": [], "relations": [], "topics": topics})


async def until(probe, timeout: float = 10.0):
    deadline = time.monotonic() + scaled(timeout)
    while not (result := await probe()):
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)
    return result


async def say(telegram, text: str, count: int, app) -> dict:
    """Send `text` and return the reply once the turn has ended (the idle delay counts from then)."""
    update_id = telegram.push_text(ANN, text, language_code="ru")
    reply = (await telegram.wait_for_sent(ANN, count))[-1]
    await until(lambda: app.bot_data.transport.was_handled(update_id))
    return reply


async def test_a_later_conversation_recalls_the_earlier_one_and_the_same_one_does_not(
    telegram, model, config, clock
):
    model.reply = topic_writer
    async with running_bot(config, clock=clock) as app:
        store = app.bot_data.store
        await say(telegram, "Завтра экзамен по химии, очень волнуюсь", 1, app)
        # No time passes before the second message: any would make the user idle on the fake clock, and a sweep
        # could read the first message alone before the second arrives.
        await say(telegram, "Ещё ездила смотреть квартиру на Лесной, понравилась", 2, app)
        clock.now += timedelta(minutes=5)  # idle: the first pass reads both messages
        [first] = await until(lambda: store.topics.topics(ANN))
        clock.now += timedelta(minutes=30)  # still the same conversation (the gap is 60 minutes)
        await say(telegram, "Кстати, что почитать посоветуешь?", 3, app)
        clock.now += timedelta(minutes=5)
        await until(lambda: _unread_is_zero(store))
        [merged] = await store.topics.topics(ANN)
        clock.now += timedelta(days=3)
        await say(telegram, "Привет, я вернулась", 4, app)
        clock.now += timedelta(minutes=10)
        await say(telegram, "Как дела?", 5, app)
    prompts = [system_zero(request) for request in chat_requests(model)]
    assert first.text == "Завтра экзамен по химии; Ещё ездила смотреть квартиру на Лесной"
    assert merged.id == first.id and merged.text == first.text + "; Кстати" and merged.started_at == first.started_at
    assert all(BLOCK not in prompt for prompt in prompts[:3])  # the same conversation never repeats itself
    for prompt in prompts[3:]:  # the whole next conversation carries it
        assert f'{BLOCK}\n' in prompt and f'- 3 days ago: "{merged.text}"' in prompt
    second = extraction_requests(model)[1]["messages"][-1]["content"]
    assert f"Topics of this conversation so far: {json.dumps(first.text, ensure_ascii=False)}" in second


async def _unread_is_zero(store) -> bool:
    return await store.facts.unread_count(ANN) == 0


async def test_a_line_is_deleted_by_its_button_and_forget_takes_them_all(telegram, model, config, clock):
    model.reply = topic_writer
    async with running_bot(config, clock=clock) as app:
        store = app.bot_data.store
        await say(telegram, "Поругалась с сестрой из-за дачи", 1, app)
        clock.now += timedelta(minutes=5)
        await until(lambda: store.topics.topics(ANN))
        clock.now += timedelta(days=1)
        await say(telegram, "Собеседование в пятницу, готовлюсь", 2, app)
        clock.now += timedelta(minutes=5)
        await until(lambda: _lines(store, 2))
        page = await say(telegram, "/profile", 3, app)
        [(label, data)] = [(label, data) for label, data in buttons_of(page) if "сестрой" in label]
        telegram.push_callback(ANN, data, page["message_id"])
        [edited] = await telegram.wait_for_call("editMessageText", 1)
        left = [topic.text for topic in await store.topics.topics(ANN)]
        clock.now += timedelta(days=1)
        await say(telegram, "Привет", 4, app)
        ask = await say(telegram, "/forget", 5, app)
        telegram.push_callback(ANN, "forget:all", ask["message_id"])
        await telegram.wait_for_call("editMessageText", 2)
        gone = await store.topics.topics(ANN)
    assert "О чём мы говорили недавно:" in page["visible_text"] and "сестрой" in page["visible_text"]
    assert "сестрой" not in edited["text"] and left == ["Собеседование в пятницу"]
    last = system_zero(chat_requests(model)[-1])
    assert "Собеседование в пятницу" in last and "сестрой" not in last
    assert gone == []


async def _lines(store, count: int) -> bool:
    return len(await store.topics.topics(ANN)) == count


async def test_with_memory_off_no_line_is_written(telegram, model, config, clock):
    model.reply = topic_writer
    async with running_bot(config, clock=clock) as app:
        store = app.bot_data.store
        await say(telegram, "/memory off", 1, app)
        await say(telegram, "Завтра экзамен по химии", 2, app)
        clock.now += timedelta(minutes=5)
        await until(lambda: _unread_is_zero(store))
        lines = await store.topics.topics(ANN)
    assert lines == [] and extraction_requests(model) == []
