"""Extraction prompts that fit the server: replies shortened, batches cut to the budget, halved when the server
finds them too long, and answers cut by their cap salvaged; one INFO line a pass."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import openai
import pytest

from config import SHARED_SLOT_EXTRACT_TOKENS, Config
from llm.answers import close_json
from llm.client import ChatModel
from llm.server import ServerFeatures
from memory.extract.extractor import (
    REPLY_CONTEXT_CHARS,
    LLMExtractor,
    build_extraction_messages,
    fit_batch,
    prompt_tokens,
    shorten_reply,
)
from memory.extract.extractor_answer import parse_cut_answer
from memory.extract.keeper import CONCURRENT_EXTRACTIONS, KeeperSettings, MemoryKeeper
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from prompts import load_prompt
from tests.timeouts import scaled

INSTRUCTIONS = load_prompt("extract_facts.md")

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
CONFIG = Config(telegram_token="1:x", openai_api_key="k", memory_extract_delay_s=0)
SETTINGS = CONFIG.subset(KeeperSettings)


def keeper_repositories(store: Store) -> tuple:
    """Return the repositories a MemoryKeeper takes, over the store's database: claims, facts, scopes, topics, users."""
    repos = store
    return repos.claims, repos.facts, repos.scopes, repos.topics, repos.users


def said(message_id: int, text: str, role: str = "user") -> dict:
    return {"id": message_id, "role": role, "content": text, "at": T0}


def fact(key: str, value: str, message_id: int) -> dict:
    return {"category": "other", "key": key, "value": value, "importance": 5, "confidence": 0.9,
            "source_message_id": message_id, "when": None}


# ----- the prompt -----

def test_the_companions_replies_enter_the_prompt_shortened_and_the_users_words_whole():
    long_reply, long_words = "Once upon a time " * 100, "I went to the sea " * 100
    _, prompt = build_extraction_messages(INSTRUCTIONS, [said(1, long_words), said(2, long_reply, "assistant")], [])
    assert long_words.strip() in prompt["content"]
    [reply_line] = [line for line in prompt["content"].splitlines() if line.startswith("[assistant")]
    assert len(reply_line) < REPLY_CONTEXT_CHARS + 40 and reply_line.endswith("…")
    assert shorten_reply("short") == "short"
    assert shorten_reply("x" * 500).endswith("x…")  # no space to cut at: cut where the limit is


def test_a_batch_is_cut_to_the_budget_from_its_first_message():
    batch = [said(i, f"message number {i} " * 40) for i in range(1, 11)]
    budget = prompt_tokens(build_extraction_messages(INSTRUCTIONS, batch[:4], [])) + 5
    assert [m["id"] for m in fit_batch(INSTRUCTIONS, batch, [], None, None, budget)] == [1, 2, 3, 4]
    assert fit_batch(INSTRUCTIONS, batch, [], None, None, 10**6) == batch


def test_a_first_message_too_long_alone_goes_alone_shortened_to_fit():
    huge = said(1, "word " * 20_000)
    budget = prompt_tokens(build_extraction_messages(INSTRUCTIONS, [said(1, "")], [])) + 500
    [kept] = fit_batch(INSTRUCTIONS, [huge, said(2, "hi")], [], None, None, budget)
    assert kept["id"] == 1 and kept["content"].endswith("…") and len(kept["content"]) < 2100
    assert prompt_tokens(build_extraction_messages(INSTRUCTIONS, [kept], [])) <= budget


def test_the_companions_words_before_a_long_message_are_passed_over():
    batch = [said(1, "How was the trip?", "assistant"), said(2, "It was long. " * 5000)]
    budget = prompt_tokens(build_extraction_messages(INSTRUCTIONS, batch[:1], [])) + 100
    [kept] = fit_batch(INSTRUCTIONS, batch, [], None, None, budget)
    assert kept["id"] == 2 and kept["role"] == "user"


def test_the_budget_is_lowered_by_a_context_window_once_known():
    extractor = LLMExtractor(ChatModel(openai.AsyncOpenAI(api_key="k"), "m", features=ServerFeatures()),
                             INSTRUCTIONS, max_prompt_tokens=6000, max_answer_tokens=3072)
    assert extractor.prompt_budget() == 6000
    extractor.model.features.context_tokens = 8192
    assert extractor.prompt_budget() == 8192 - 3072 - 64
    extractor.model.features.context_tokens = 2048
    assert extractor.prompt_budget() == 1024  # the floor: an extraction prompt is no smaller


BRIEF = load_prompt("extract_facts_brief.md")


def test_a_budget_the_full_instructions_would_nearly_fill_gets_the_brief_ones():
    def extractor(budget: int) -> LLMExtractor:
        return LLMExtractor(ChatModel(openai.AsyncOpenAI(api_key="k"), "m", features=ServerFeatures()),
                            INSTRUCTIONS, max_prompt_tokens=budget, brief=BRIEF)

    assert extractor(6000).instructions == INSTRUCTIONS
    assert extractor(SHARED_SLOT_EXTRACT_TOKENS).instructions == BRIEF
    small = extractor(SHARED_SLOT_EXTRACT_TOKENS)
    batch = small.fit([said(i, f"message number {i} " * 10) for i in range(1, 30)], [])
    assert 3 <= len(batch) < 29  # room for several messages beside the brief instructions, not for all
    assert prompt_tokens(build_extraction_messages(small.instructions, batch, [])) <= SHARED_SLOT_EXTRACT_TOKENS
    without = LLMExtractor(ChatModel(openai.AsyncOpenAI(api_key="k"), "m"), INSTRUCTIONS, max_prompt_tokens=1280)
    assert without.instructions == INSTRUCTIONS  # no brief ones given: the full ones, whatever the budget


def test_the_brief_instructions_ask_for_the_same_answer():
    system, _ = build_extraction_messages(BRIEF, [said(1, "hi")], [])
    for placeholder in ("{categories}", "{single_valued}", "{relations}"):
        assert placeholder not in system["content"]
    for field in ('"facts"', '"relations"', '"topics"', '"changes"', "source_message_id", "context only",
                  "[user #ID]", "secrets"):
        assert field in system["content"]


# ----- answers cut by the cap -----

def test_a_cut_answer_keeps_its_whole_facts():
    whole = json.dumps({"facts": [fact("city", "Berlin", 1), fact("pet:rex", "dog {Rex] \"the\" best", 1)],
                        "relations": [], "topics": "moving"})
    cut = whole[: whole.index('"relations"') - 20]
    extraction = parse_cut_answer("Sure! " + cut, {1})
    assert [f.key for f in extraction.facts] == ["city"]
    assert [f.key for f in parse_cut_answer(whole, {1}).facts] == ["city", "pet:rex"]


@pytest.mark.parametrize("raw", ["", "no json here", '{"facts": [{"category": "oth', '{"facts": [', "}{"])
def test_a_cut_answer_without_a_whole_item_gives_nothing(raw):
    assert parse_cut_answer(raw, {1}).facts == []


def test_closing_cut_json():
    assert close_json('[{"a": 1}, {"b": "x]') == '[{"a": 1}]'
    assert close_json('{"facts": [{"a": "\\"}"}, {"b"') == '{"facts": [{"a": "\\"}"}]}'
    assert close_json('{"a": [1, 2]}') == '{"a": [1, 2]}'
    assert close_json('{"a": ]') is None


# ----- the keeper, against the double -----

@pytest.fixture
async def store(tmp_path):
    opened = await Store.open(tmp_path / "bot.db")
    yield opened
    await opened.close()


@pytest.fixture
async def chat(model):
    client = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
    yield ChatModel(client, "gpt-4o-mini", attempt_timeout=2.0, budget=3.0, backoff=0.02)
    await client.close()


def facts_for_every_message(body: dict) -> str:
    """Extraction answers: one fact `said:<id>` for each of the user's messages in the prompt."""
    ids = [int(i) for i in re.findall(r"\[user #(\d+)\]", body["messages"][-1]["content"])]
    return json.dumps({"facts": [fact(f"said:{i}", f"message {i}", i) for i in ids], "relations": [],
                       "topics": None})


async def tell(store: Store, count: int, words: str = "I like the sea and long walks on the beach") -> None:
    for number in range(count):
        now = T0 + timedelta(seconds=number)
        await store.turns.begin_turn(user_id=1, first_name="A", language_code="en", text=f"{words} {number}", now=now,
                               update_id=number + 1, history_limit=100)
        await store.turns.add_reply(1, "That sounds lovely. " * 30, now, 100)


async def test_a_batch_past_the_servers_context_is_halved_until_it_fits_and_nothing_is_lost(
    store, chat, model, caplog
):
    caplog.set_level(logging.INFO)
    model.reply = facts_for_every_message
    await tell(store, 8)
    prompt = build_extraction_messages(INSTRUCTIONS, await store.facts.pending_messages(1, 30), [])
    model.context_window = prompt_tokens(prompt) // 2 + 1000  # about half the batch fits beside the cap
    keeper = MemoryKeeper(
        *keeper_repositories(store), LLMExtractor(chat, INSTRUCTIONS, max_answer_tokens=200), SETTINGS,
        clock=lambda: T0,
        meter=UsageMeter(store.backend))
    saved = await keeper.extract_quietly(1)
    assert len({f.key for f in saved}) == 8 and all(f.key.startswith("said:") for f in saved)
    assert await store.facts.unread_count(1) == 0
    assert messages_of(caplog, "reading half as many")
    [line] = messages_of(caplog, "memory: learned")
    assert line.startswith("memory: learned 8 facts from 8 messages (") and " tokens, " in line


async def test_one_message_whose_answer_runs_past_the_cap_keeps_its_whole_facts(store, chat, model):
    def long_answer(body: dict) -> str:
        [message_id] = [int(i) for i in re.findall(r"\[user #(\d+)\]", body["messages"][-1]["content"])]
        facts = [fact(f"likes:thing_{n}", f"thing {n}", message_id) for n in range(30)]
        return json.dumps({"facts": facts, "relations": [], "topics": None})

    model.reply = long_answer
    await tell(store, 1, "I like so many things")
    keeper = MemoryKeeper(
        *keeper_repositories(store), LLMExtractor(chat, INSTRUCTIONS, max_answer_tokens=120), SETTINGS,
        clock=lambda: T0,
        meter=UsageMeter(store.backend))
    saved = await keeper.extract_quietly(1)
    assert 0 < len(saved) < 30 and await store.facts.unread_count(1) == 0


async def test_a_failed_pass_is_one_model_error_not_one_per_retry_or_format(store, chat, model, caplog):
    failures = []

    async def count() -> None:
        failures.append(1)

    chat.on_failure = count
    model.fail_always(500)
    await tell(store, 2)
    extractor = LLMExtractor(chat, INSTRUCTIONS, timeout=0.5)
    keeper = MemoryKeeper(
        *keeper_repositories(store), extractor, replace(CONFIG, memory_retry_s=0).subset(KeeperSettings), lambda: T0,
        meter=UsageMeter(store.backend))
    assert await keeper.extract_quietly(1) == []
    assert len(model.requests) >= 6 and failures == [1]  # three formats tried, retried, counted once
    [line] = messages_of(caplog, "fact extraction failed")
    assert "HTTP 500: The server had an error" in line
    assert await store.facts.unread_count(1) == 2


def messages_of(caplog, words: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if words in record.getMessage()]


async def test_at_shutdown_a_pass_waiting_on_a_slow_server_is_given_up_and_nothing_is_lost(store, chat, model):
    model.delay = 30  # a slow local server, minutes from an answer
    await tell(store, 2)
    keeper = MemoryKeeper(
        *keeper_repositories(store), LLMExtractor(chat, INSTRUCTIONS, timeout=60), SETTINGS, clock=lambda: T0,
        meter=UsageMeter(store.backend))
    running = asyncio.ensure_future(keeper.extract_quietly(1))
    await model.wait_for_request()
    keeper.stopping.set()
    assert await asyncio.wait_for(running, scaled(2)) == []
    assert await store.facts.unread_count(1) == 2


async def test_a_sweep_works_through_every_due_user_a_few_at_a_time_without_a_task_each():
    class DueStore:  # 2,000 users due at once, as after a restart with a backlog
        on_postgres = False

        async def users_due_for_extraction(self, idle_since):
            return list(range(1, 2_001))

    due = DueStore()  # the keeper reads only due users (facts) and whether to claim first (claims)
    keeper = MemoryKeeper(due, due, due, due, due, None, SETTINGS, clock=lambda: T0, meter=None)  # type: ignore[arg-type]
    done, running, most, tasks = [], set(), [0], [0]

    async def extract(user_id):
        running.add(user_id)
        most[0], tasks[0] = max(most[0], len(running)), max(tasks[0], len(asyncio.all_tasks()))
        await asyncio.sleep(0)
        running.discard(user_id)
        done.append(user_id)
        return []

    keeper.extract_quietly = extract
    await keeper.sweep()
    assert done == list(range(1, 2_001))  # each once, in the order they became due
    assert most[0] == CONCURRENT_EXTRACTIONS
    assert tasks[0] <= CONCURRENT_EXTRACTIONS + 2  # the workers, the test, the loop's own: not one per user
