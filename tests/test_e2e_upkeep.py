"""End to end: a conversation goes before memory upkeep on a model server that takes one request at a time
(MODEL_CONCURRENCY), and memory upkeep may have a server of its own (EXTRACT_*, EMBEDDING_*)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import replace

import pytest

from config import SHARED_SLOT_EXTRACT_TOKENS, load_config
from tests.doubles.openai_api import OpenAIDouble
from tests.harness import make_config, running_bot
from tests.timeouts import scaled

ANN, BOB = 1001, 1002


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", embeddings="hashing", memory_extract_delay_s=0.2,
                       model_concurrency=1)


def is_extraction(body: dict) -> bool:
    return "facts" in json.dumps(body.get("response_format") or {}) or "Known facts about the user" in json.dumps(
        body["messages"])


async def wait_until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_turn_during_a_slow_extraction_is_answered_at_once_and_the_pass_comes_again(telegram, model,
                                                                                            config):
    started, passes = asyncio.Event(), []

    async def reply(body: dict) -> str:
        if not is_extraction(body):
            return "echo: " + body["messages"][-1]["content"]
        passes.append(body)
        if len(passes) == 1:  # the first pass takes "minutes", as a CPU server's does
            started.set()
            await asyncio.sleep(60)
        return json.dumps({"facts": [], "relations": [], "topics": "music"})

    model.reply = reply
    model.slots = 1  # like llama-cpp-python's server: one request at a time, the rest queue
    async with running_bot(config) as app:
        telegram.push_text(ANN, "I love jazz and I play the saxophone")
        await telegram.wait_for_sent(ANN, 1)
        await asyncio.wait_for(started.wait(), scaled(5))  # Ann fell idle: her pass holds the server's one slot
        began = time.monotonic()
        telegram.push_text(BOB, "hello, are you there?")
        [reply_to_bob] = await telegram.wait_for_sent(BOB, 1, timeout=5)
        waited = time.monotonic() - began
        store = app.bot_data.store
        await wait_until(lambda: _read_all(store, ANN))  # the pass came again and read Ann's message
    assert reply_to_bob["visible_text"] == "echo: hello, are you there?"
    assert waited < 2.0  # not behind the pass
    assert len(passes) >= 2


async def _read_all(store, user_id: int) -> bool:
    return await store.facts.unread_count(user_id) == 0


async def test_the_idle_delay_counts_from_the_delivered_reply(telegram, model, config):
    extractions: list[float] = []
    delivered: list[float] = []

    async def reply(body: dict) -> str:
        if is_extraction(body):
            extractions.append(time.monotonic())
            return json.dumps({"facts": [], "relations": []})
        await asyncio.sleep(0.6)  # a slow reply: longer than the idle delay
        return "echo: " + body["messages"][-1]["content"]

    model.reply = reply
    async with running_bot(replace(config, memory_extract_delay_s=0.4)):
        telegram.push_text(ANN, "I work as a nurse")
        await telegram.wait_for_sent(ANN, 1)
        delivered.append(time.monotonic())
        await wait_until(lambda: _true(extractions))
    assert extractions[0] - delivered[0] >= 0.3  # a pass began only once the reply had been out 0.4 s


async def _true(items: list) -> bool:
    return bool(items)


async def test_extraction_and_embeddings_can_have_a_server_of_their_own(telegram, model, tmp_path):
    upkeep = OpenAIDouble(api_key="sk-upkeep", model="small-model")
    await upkeep.start()
    try:
        upkeep.reply = lambda body: json.dumps({"facts": [], "relations": []})
        config = make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=0.2, model_concurrency=1,
                             extract_model="small-model", extract_base_url=upkeep.base_url,
                             extract_api_key="sk-upkeep", embedding_base_url=upkeep.base_url,
                             embedding_api_key="sk-upkeep")
        async with running_bot(config):
            telegram.push_text(ANN, "my name is Ann")
            await telegram.wait_for_sent(ANN, 1)
            await upkeep.wait_for_request(1)
        assert all(not is_extraction(body) for body in model.requests)  # the chat's server chats only
        assert [body["model"] for body in upkeep.requests] and all(
            body["model"] == "small-model" for body in upkeep.requests)
    finally:
        await upkeep.close()


def test_model_concurrency_is_read_as_written_and_left_to_start_up_unset():
    base = {"TELEGRAM_BOT_TOKEN": "123456:ABCdefGHIjkl-mno_pqr"}
    assert load_config({**base, "OPENAI_API_KEY": "sk-x"}).model_concurrency is None
    local = {**base, "OPENAI_BASE_URL": "http://localhost:8000/v1"}
    assert load_config(local).model_concurrency is None  # decided at start: tests/test_concurrency.py
    assert load_config({**local, "MODEL_CONCURRENCY": "4"}).model_concurrency == 4
    assert load_config({**local, "MODEL_CONCURRENCY": "0"}).model_concurrency == 0
    settings = load_config({**local, "EXTRACT_MODEL": "qwen3:0.6b", "EXTRACT_BASE_URL": "http://localhost:11434/v1",
                            "EMBEDDING_BASE_URL": "http://localhost:11434/v1", "EMBEDDING_API_KEY": "k"})
    assert (settings.extract_model, settings.extract_base_url, settings.extract_api_key) == (
        "qwen3:0.6b", "http://localhost:11434/v1", None)
    assert (settings.embedding_base_url, settings.embedding_api_key) == ("http://localhost:11434/v1", "k")


def test_extraction_sharing_a_limited_slot_keeps_its_prompts_short_by_default():
    base = {"TELEGRAM_BOT_TOKEN": "123456:ABCdefGHIjkl-mno_pqr"}
    local = {**base, "OPENAI_BASE_URL": "http://localhost:8000/v1"}
    assert load_config({**base, "OPENAI_API_KEY": "sk-x"}).extraction_prompt_tokens(None) == 6000
    assert load_config(local).extraction_prompt_tokens(1) == SHARED_SLOT_EXTRACT_TOKENS
    assert load_config({**local, "MODEL_CONCURRENCY": "0"}).extraction_prompt_tokens(None) == 6000
    own = load_config({**local, "EXTRACT_BASE_URL": "http://localhost:11434/v1"})
    assert own.extraction_prompt_tokens(1) == 6000
    assert load_config({**local, "EXTRACT_MAX_PROMPT_TOKENS": "4000"}).extraction_prompt_tokens(1) == 4000


async def test_a_llama_cpp_server_with_three_slots_gets_three_requests_at_once_and_the_log_says_so(
        telegram, model, tmp_path, caplog):
    model.props = {"total_slots": 3}
    release = asyncio.Event()
    in_flight, most = 0, 0

    async def held(body: dict) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await release.wait()
        in_flight -= 1
        return "done"

    model.reply = held
    users = range(3001, 3005)
    config = make_config(telegram, model, tmp_path / "bot.db", model_concurrency=None, model_attempt_timeout_s=30,
                         model_retry_budget_s=60)
    caplog.set_level(logging.INFO, logger="bot")
    async with running_bot(config):
        for user in users:
            telegram.push_text(user, f"hi from {user}")
        await model.wait_for_request(3)
        with pytest.raises(AssertionError, match="expected 4 chat requests"):
            await model.wait_for_request(4, timeout=1.0)  # the fourth waits for a slot
        release.set()
        for user in users:
            await telegram.wait_for_sent(user, 1)
    assert most == 3 and model.props_asked == 1
    assert "model concurrency: 3 (llama.cpp reports 3 slots)" in caplog.messages
