"""End to end: the real Application on servers with real servers' quirks (the OpenAI double plays each). Every
one must leave replies answering, memory working, and one log line saying what was found out."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace
from pathlib import Path

import pytest

from handlers.texts import text
from memory.store.memory_store import Store
from tests.doubles.openai_api import message_text, roles_alternate
from tests.harness import ProcessedUpdates, make_config, running_bot
from tests.test_e2e_memory import wait_until, wait_until_stored

ANN, GROUP = 1001, -100500
JPEG = (Path(__file__).parent / "fixtures" / "photo.jpg").read_bytes()
VOLVO = "I spent the weekend fixing my old Volvo"
EXTRACTOR = "You extract long-term memory"


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=0.3, memory_retry_s=0.3)


def is_extraction(body: dict) -> bool:
    return EXTRACTOR in body["messages"][0]["content"]


def companion(body: dict) -> str:
    """Chat turns get an echo of the user's turn; extraction finds a car for the Volvo message, in any format."""
    if not is_extraction(body):
        return "echo: " + message_text([m for m in body["messages"] if m["role"] == "user"][-1]["content"])
    prompt = body["messages"][-1]["content"]
    found = re.search(rf"\[user #(\d+)\] {VOLVO}", prompt)
    facts = [{"category": "interests", "key": "likes:cars", "value": "old Volvo", "importance": 5,
              "confidence": 0.9, "source_message_id": int(found.group(1)), "when": None}] if found else []
    return json.dumps({"facts": facts, "relations": [], "topics": None})


def lines(caplog, words: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if words in record.getMessage()]


async def say(telegram, processed, words: str, **kwargs) -> str:
    """Send `words` from Ann and return the last thing the bot sent back in that chat."""
    await processed.wait(telegram.push_text(ANN, words, **kwargs))
    return telegram.sent_to(kwargs.get("chat_id", ANN))[-1]["visible_text"]


@pytest.mark.parametrize("status", [500, 400])
async def test_a_server_refusing_json_schema_still_learns_and_says_how_once(telegram, model, config, caplog, status):
    caplog.set_level(logging.INFO)
    model.reject_json_schema, model.json_schema_status, model.reply = True, status, companion
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        assert await say(telegram, processed, VOLVO) == f"echo: {VOLVO}"
        await wait_until_stored(config, ANN, "likes:cars")
        assert await say(telegram, processed, "and then I went for a drive") == "echo: and then I went for a drive"
        await wait_until(lambda: len([b for b in model.requests if is_extraction(b)]) == 3)
    formats = [(b.get("response_format") or {}).get("type") for b in model.requests if is_extraction(b)]
    assert formats == ["json_schema", "json_object", "json_object"]  # one refusal, then straight to what works
    assert len(lines(caplog, "structured output: json_object with the schema")) == 1
    assert len(lines(caplog, "memory: learned 1 facts from 1 messages")) == 1


async def test_a_server_without_stream_options_streams_replies_and_says_so_once(telegram, model, config, caplog):
    caplog.set_level(logging.INFO)
    model.stream_options_supported, model.reply = False, companion
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        assert await say(telegram, processed, "hello") == "echo: hello"
        assert await say(telegram, processed, "again") == "echo: again"
    streamed = [b for b in model.requests if b.get("stream")]
    assert [("stream_options" in b) for b in streamed] == [True, False, False]
    assert len(lines(caplog, "streamed usage: not asked for")) == 1


async def test_after_a_failed_turn_a_strict_template_still_gets_alternating_turns(telegram, model, config):
    model.strict_roles, model.reply = True, companion
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        model.fail_always(503)
        assert await say(telegram, processed, "are you there?") == text("model_down", "en")
        model.recover()
        # Two of Ann's messages stand in a row now: both go as one turn, streamed and unstreamed alike.
        assert await say(telegram, processed, VOLVO) == f"echo: are you there?\n\n{VOLVO}"
        group = await say(telegram, processed, f"@{telegram.bot_username} hi all", chat_id=GROUP, chat_type="group")
        assert group.startswith("echo: ")
        await wait_until_stored(config, ANN, "likes:cars")  # extraction's [system, user] is fine too
    assert all(roles_alternate(body["messages"]) for body in model.requests)


async def test_a_small_context_window_halves_the_extraction_batch_and_loses_nothing(telegram, model, config, caplog):
    caplog.set_level(logging.INFO)
    model.reply = companion
    model.context_window = 5000
    config = replace(config, memory_extract_delay_s=3600, memory_extract_every=12, extract_max_tokens=500)
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        for number in range(11):
            story = f"Here is a long story, part {number}: " + "we walked along the river. " * 25
            await say(telegram, processed, story)
        assert await say(telegram, processed, VOLVO) == f"echo: {VOLVO}"
        await wait_until_stored(config, ANN, "likes:cars", timeout=20)
        await wait_until(lambda: lines(caplog, "memory: learned"))
    assert lines(caplog, "reading half as many") or lines(caplog, "context window: 5000 tokens")
    assert "from 12 messages" in lines(caplog, "memory: learned")[0]
    store = await Store.open(config.database_path)
    assert await store.facts.unread_count(ANN) == 0
    await store.close()


async def test_a_server_without_embeddings_is_asked_once_and_recall_goes_by_importance(telegram, model, config, caplog):
    model.embeddings_status, model.reply = 500, companion
    config = replace(config, embeddings="openai", memory_prompt_facts=1)  # more facts than fit: recall is asked
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await say(telegram, processed, "My name is Ann and I live in Berlin. I have a dog named Rex.")
        for words in ("how are you?", "tell me something", "and now?"):
            assert await say(telegram, processed, words) == f"echo: {words}"
    assert len(model.embedding_requests) == 1  # found missing, then left alone
    assert len(lines(caplog, "embeddings: the server has no usable endpoint")) == 1
    assert not lines(caplog, "recall fell back")
    assert 'Their name: "Ann"' in model.requests[-1]["messages"][0]["content"]  # memory still in the prompt


async def test_a_server_that_drops_images_is_found_out_and_photos_are_answered_from_the_caption(
    telegram, model, config, caplog
):
    model.drop_images, model.reply = True, companion
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        for caption in ("my garden", "and my house"):
            await processed.wait(telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG),
                                                             "caption": caption}))
        assert await say(telegram, processed, VOLVO) == f"echo: {VOLVO}"
        await wait_until_stored(config, ANN, "likes:cars")
    first, second, _ = telegram.sent_to(ANN)
    assert text("photo_unseen", "en") in first["visible_text"] and text("photo_unseen", "en") in second["visible_text"]
    assert len(telegram.downloads) == 1  # the second photo was not even fetched
    assert len(lines(caplog, "images: the chat model does not see them")) == 1
