"""End to end: a reasoning model's thinking never reaches the user, a draft, the session or the extractor."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.harness import make_config, running_bot
from tests.test_e2e_memory import chat_requests, extraction_requests, extractor_reply, wait_until, wait_until_stored
from tests.test_e2e_streaming import stored_replies

ANN = 1001
ANSWER = " ".join(f"word{i}" for i in range(40))  # 269 characters: 68 pieces of 4, 20 ms apart ≈ 1.4 s
THOUGHT = "The user says hello. Secret plan: greet them back, then ask about their day, warmly."  # ≈ 0.4 s


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_interval_s=0.2, memory_extract_delay_s=0.3,
                       memory_retry_s=0.3)


@pytest.fixture
def thinking_model(model):
    """A model that thinks THOUGHT, then writes ANSWER, in 4-character pieces every 20 ms (tags split apart)."""
    model.reply = lambda body: ANSWER if "response_format" not in body else json.dumps({"facts": []})
    model.thinking = THOUGHT
    model.stream_first_delay, model.stream_chunk_chars, model.stream_chunk_interval = 0.05, 4, 0.02
    return model


def typing_between(telegram, start: float, end: float) -> int:
    return sum(1 for (method, _), at in zip(telegram.calls, telegram.call_times, strict=True)
               if method == "sendChatAction" and start <= at <= end)


@pytest.mark.parametrize("form", ["tags", "reasoning_content", "reasoning"])
async def test_a_thinking_stream_shows_drafts_only_of_the_answer_and_only_after_the_thinking(
    telegram, thinking_model, config, form
):
    thinking_model.thinking_form = form
    thinking_model.stream_first_delay = 1.0  # the model thinks past a second, when typing shows
    async with running_bot(config):
        pushed = time.monotonic()
        telegram.push_text(ANN, "hello")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)  # any draft still on its way would land now
        telegram.push_text(ANN, "and now?")
        await telegram.wait_for_sent(ANN, 2)
    assert reply["visible_text"] == ANSWER
    drafts = telegram.drafts_to(ANN)
    assert len(drafts) >= 2
    assert all(ANSWER.startswith(draft["visible_text"]) for draft in drafts)
    assert not any("Secret plan" in draft["visible_text"] or "think" in draft["visible_text"] for draft in drafts)
    thought_until = thinking_model.answer_started_at[0]
    assert drafts[0]["at"] >= thought_until  # the first draft came only once the model had stopped thinking
    assert typing_between(telegram, pushed, thought_until) >= 1  # meanwhile, "typing…"
    # The session the next turn sends holds the answer, never the thinking.
    history = chat_requests(thinking_model)[1]["messages"]
    assert {"role": "assistant", "content": ANSWER} in history
    assert "Secret plan" not in json.dumps(history)


async def test_an_extraction_answer_after_its_thinking_is_read_and_its_facts_stored(telegram, model, config):
    model.reply = extractor_reply({"I spent the weekend fixing my old Volvo": [
        {"category": "interests", "key": "car:volvo", "value": "old Volvo they fix themselves"}]})
    # A draft answer in the thinking: read as the answer, it would store nothing.
    model.thinking = 'First try: ```json\n{"facts": [], "relations": []}\n``` No: the Volvo is a durable fact.'
    async with running_bot(config):
        telegram.push_text(ANN, "I spent the weekend fixing my old Volvo")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        await wait_until(lambda: extraction_requests(model))
        await wait_until_stored(config, ANN, "car:volvo")
    assert reply["visible_text"] == "echo: I spent the weekend fixing my old Volvo"


async def test_a_reply_cut_off_while_thinking_gets_the_apology_and_stores_nothing(telegram, thinking_model, config):
    thinking_model.thinking = "hmm " * 4000  # past the cap, and past the room the cap gets for thinking
    thinking_model.stream_chunk_chars, thinking_model.stream_chunk_interval = 512, 0.0
    async with running_bot(config):
        telegram.push_text(ANN, "hello")
        [apology] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)
    assert "Sorry" in apology["visible_text"]
    assert telegram.drafts_to(ANN) == []
    # The first cut taught the bot that the model thinks: asked once more with room for it, then given up.
    assert [body["max_tokens"] for body in chat_requests(thinking_model)] == [1024, 2048]
    assert stored_replies(config) == []
