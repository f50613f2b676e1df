"""End to end: a start-up does no work per user (issue 42). Facts left without a vector (an embedding outage, a
change of model) are embedded when their user next talks, for that user only, and recall works for them."""

from __future__ import annotations

import asyncio
import shutil
import time
from datetime import datetime, timedelta, timezone

import pytest

from memory.facts import Extraction, Fact
from memory.store.memory_store import Store
from tests.harness import make_config, running_bot
from tests.timeouts import scaled

USERS = 1000
TALKER = 417
# The pet is the least important: with MEMORY_PROMPT_FACTS=2 only recall brings it into the prompt.
FACTS = [("location", "city", "Berlin", 7), ("career", "job_title", "nurse", 6), ("pets", "pet:murka", "cat Murka", 2)]
ABOUT_THE_PET = "Is Murka the cat ill?"  # the rules learn nothing from it
QUIET_S = 2.0  # the embedding backlog this replaces began 1 s after start


async def populate(path, users: int) -> None:
    """Fill a database through the real Store: each user one turn a month ago and 3 facts without a vector, read."""
    store = await Store.open(path)
    month_ago = datetime.now(timezone.utc) - timedelta(days=30)
    for user_id in range(1, users + 1):
        now = month_ago + timedelta(seconds=user_id)
        turn = await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="en", now=now,
                                      update_id=None, history_limit=20, text="I live in Berlin and work as a nurse.")
        facts = [Fact(category, key, value, importance=importance, source_message_id=turn.message_id)
                 for category, key, value, importance in FACTS]
        await store.facts.save_facts(user_id, Extraction(facts), now, 100, extracted_upto=turn.message_id)
    await store.close()


@pytest.fixture(scope="module")
def thousand_users(tmp_path_factory):
    path = tmp_path_factory.mktemp("start-up") / "users.db"
    asyncio.run(populate(path, USERS))
    return path


@pytest.fixture(params=["openai", "hashing"])
def config(request, telegram, model, tmp_path, thousand_users):
    database = tmp_path / "bot.db"
    shutil.copyfile(thousand_users, database)
    return make_config(telegram, model, database, embeddings=request.param, memory_prompt_facts=2, proactive=False)


async def vectors(app, user_id: int) -> list:
    """The user's stored vectors from the bot's embedding model."""
    return await app.bot_data.store.facts.fact_vectors(user_id, app.bot_data.companion.recaller.embedder.name)


async def users_with_vectors(app) -> set[int]:
    return {user_id for user_id in range(1, USERS + 1) if await vectors(app, user_id)}


async def wait_until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + scaled(timeout)
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def recalled(model) -> str:
    prompt = [r for r in model.requests if "response_format" not in r][-1]["messages"][0]["content"]
    return prompt.split("## Recalled for this message")[1] if "## Recalled for this message" in prompt else ""


async def test_start_up_embeds_nothing_and_the_user_who_talks_gets_vectors_and_recall(telegram, model, config):
    async with running_bot(config) as app:
        # Nothing can be awaited for work that must not happen: give it the time the old backlog took, and more.
        await asyncio.sleep(QUIET_S)
        assert model.embedding_requests == [] and await users_with_vectors(app) == set()

        telegram.push_text(TALKER, ABOUT_THE_PET)
        await telegram.wait_for_sent(TALKER, 1)
        if config.embeddings == "openai":  # the message and their 3 facts in the recall's one call, ranked at once
            [request] = model.embedding_requests
            assert request["input"][0] == ABOUT_THE_PET and len(request["input"]) == 1 + len(FACTS)
            assert "cat Murka" in recalled(model)
        else:  # an in-process model: the turn's upkeep embeds them; the next turn's recall uses them
            assert "cat Murka" not in recalled(model)  # this turn went by importance
            await wait_until(lambda: vectors(app, TALKER))
            telegram.push_text(TALKER, ABOUT_THE_PET)
            await telegram.wait_for_sent(TALKER, 2)
            assert model.embedding_requests == [] and "cat Murka" in recalled(model)
        assert await users_with_vectors(app) == {TALKER}
        assert len(await vectors(app, TALKER)) == len(FACTS)
        # The rules learned nothing from the message: the vectors came because the recall found facts without them.
        assert len(await app.bot_data.store.facts.facts(TALKER)) == len(FACTS)
