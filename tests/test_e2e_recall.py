"""End to end: with many facts, only the relevant ones (and the core ones) reach system message zero."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

from memory.facts import Extraction, Fact
from memory.store.memory_store import Store
from tests.harness import make_config, running_bot

ANN, BOB = 1001, 1002
OLD = datetime(2026, 1, 1, tzinfo=timezone.utc)
FILLER = [("preferences", f"likes:{thing}", thing) for thing in
          ("opera", "chess", "sushi", "tennis", "gardening", "crosswords", "podcasts", "hiking")]


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", memory_prompt_facts=3, recall_top_k=2)


async def seed(config, user_id, facts, when):
    store = await Store.open(config.database_path)
    await store.turns.begin_turn(user_id=user_id, first_name="U", language_code="en", text="hi", now=when,
                           update_id=None, history_limit=20)
    for category, key, value, importance in facts:
        await store.facts.save_facts(user_id, Extraction([Fact(category, key, value, importance=importance)]), when,
                                     100)
    await store.close()


async def embedded(config, user_id) -> bool:
    store = await Store.open(config.database_path)
    missing = await store.facts.facts_to_embed(user_id, config.embedding_model)
    await store.close()
    return not missing


def chat_prompts(model):
    return [r["messages"][0]["content"] for r in model.requests if "response_format" not in r]


async def ann_with_a_forgotten_dog(config):
    # The dog is the least important and oldest fact: importance order alone would never pick it.
    await seed(config, ANN, [("pets", "pet:rex", "dog Rex, a beagle", 2)], OLD)
    await seed(config, ANN, [(c, k, v, 5) for c, k, v in FILLER], OLD + timedelta(days=30))


async def test_the_relevant_fact_is_recalled_and_the_prompt_stays_small(telegram, model, config):
    await ann_with_a_forgotten_dog(config)
    async with running_bot(config):
        telegram.push_text(ANN, "the beagle coughed all night, should I call a vet?")
        await telegram.wait_for_sent(ANN, 1)
    # Her 9 facts had no vector: they rode along with the message, in the recall's one call.
    [request] = model.embedding_requests
    assert len(request["input"]) == 10 and await embedded(config, ANN)
    prompt = chat_prompts(model)[-1]
    assert "dog Rex, a beagle" in prompt.split("## Recalled for this message")[1]
    # The MEMORY_PROMPT_FACTS (3) most important, and the dog recalled beyond them (RECALL_TOP_K at most): 4 of 9.
    assert sum(line.startswith("- likes:") or line.startswith("- pet:") for line in prompt.splitlines()) == 4


async def test_an_embedding_failure_falls_back_to_importance_and_the_turn_completes(telegram, model, config):
    await ann_with_a_forgotten_dog(config)
    async with running_bot(config):
        model.fail_next(500, endpoint="embeddings", times=5)
        telegram.push_text(ANN, "the beagle coughed all night, should I call a vet?")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"].startswith("echo:")
    prompt = chat_prompts(model)[-1]
    assert "dog Rex" not in prompt and prompt.count("- likes:") == 3


async def test_with_few_facts_all_are_sent_and_no_embedding_is_asked_for_the_message(telegram, model, config):
    await seed(config, ANN, [("location", "city", "Kazan", 7)], OLD)
    async with running_bot(config):
        telegram.push_text(ANN, "what's the weather like?")
        await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.2)
    assert 'city: "Kazan"' in chat_prompts(model)[-1]
    assert model.embedding_requests == [] and not await embedded(config, ANN)  # no vector is needed yet


async def test_recall_reads_only_the_current_users_vectors(telegram, model, config):
    await ann_with_a_forgotten_dog(config)
    await seed(config, BOB, [("pets", "pet:rex", "Bob's dog Rex, a beagle", 9)] +
               [(c, k, f"Bob {v}", 5) for c, k, v in FILLER], OLD)
    async with running_bot(config):
        telegram.push_text(BOB, "my beagle Rex coughed too")  # Bob's facts get their vectors with his turn
        await telegram.wait_for_sent(BOB, 1)
        assert await embedded(config, BOB) and not await embedded(config, ANN)
        telegram.push_text(ANN, "the beagle coughed all night, should I call a vet?")
        await telegram.wait_for_sent(ANN, 1)
    prompt = chat_prompts(model)[-1]
    assert "Bob" not in prompt
    assert not any("Bob" in text for text in model.embedding_requests[-1]["input"])
    store = await Store.open(config.database_path)
    ann_ids = {fact.id for fact in await store.facts.facts(ANN)}
    assert {row[0] for row in await store.facts.fact_vectors(ANN, config.embedding_model)} == ann_ids
    await store.close()
