"""Background work with two machines on one PostgreSQL database: a user's extraction pass and a message
written first are each taken by one machine; the other leaves them alone (one model call, one message)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from config import Config
from memory.extract.keeper import KeeperSettings, MemoryKeeper
from memory.facts import Extraction, Fact
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from prompts.character_card import Persona, Personas
from services.outreach import Outreach, OutreachSettings

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
CONFIG = Config(telegram_token="1:x", openai_api_key="k", memory_extract_delay_s=0, proactive_daily_max=5,
                quiet_hours=None, checkin_after_hours=1)


def keeper_repositories(store: Store) -> tuple:
    """Return the repositories a MemoryKeeper takes, over the store's database: claims, facts, scopes, topics, users."""
    repos = store
    return repos.claims, repos.facts, repos.scopes, repos.topics, repos.users


class SlowExtractor:
    """Finds one fact, after a moment, and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def fit(self, batch, known, zone=None, topics_so_far=None, budget=None) -> list[dict]:
        return batch

    async def extract(self, batch, known, zone=None, topics_so_far=None, tally=None) -> Extraction:
        self.calls += 1
        await asyncio.sleep(0.3)
        return Extraction([Fact("personal", "city", "Oslo")])


class SlowModel:
    """Writes a message first, after a moment, and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages, on_text=None, tally=None, **options) -> str:
        self.calls += 1
        await asyncio.sleep(0.3)
        return "How did the Oslo trip go? You mentioned it last time."


async def two_machines(pg_url):
    return await Store.open(pg_url), await Store.open(pg_url)


async def test_one_users_extraction_pass_is_taken_by_one_machine(pg_url):
    first, second = await two_machines(pg_url)
    extractor = SlowExtractor()
    try:
        await first.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="I moved to Oslo", now=T0,
                               update_id=1, history_limit=20)
        settings = CONFIG.subset(KeeperSettings)
        keepers = [MemoryKeeper(*keeper_repositories(store), extractor, settings,
                                clock=lambda: T0 + timedelta(minutes=1), meter=UsageMeter(store.backend))
                   for store in (first, second)]
        results = await asyncio.gather(*(keeper.extract_quietly(1) for keeper in keepers))
        assert extractor.calls == 1 and sorted(len(saved) for saved in results) == [0, 1]
        assert [fact.value for fact in await second.facts.facts(1)] == ["Oslo"]
        assert await second.facts.unread_count(1) == 0
        # The claim went with the pass: a later message is extracted by whichever machine looks.
        await first.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="and I got a dog", now=T0,
                               update_id=2, history_limit=20)
        await keepers[1].extract_quietly(1)
        assert extractor.calls == 2
    finally:
        await first.close()
        await second.close()


async def test_a_message_written_first_is_written_and_sent_by_one_machine(pg_url):
    first, second = await two_machines(pg_url)
    model, sent = SlowModel(), []

    async def send(user_id, text, first_ever, language_code) -> str:
        sent.append((user_id, text))
        return "sent"

    try:
        await first.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="off to Oslo", now=T0,
                               update_id=1, history_limit=20, checkin_at=T0 + timedelta(hours=1))
        machines = []
        for store in (first, second):
            repos = store
            machines.append(Outreach(repos.claims, repos.facts, repos.outreach, repos.topics, model,
                                     CONFIG.subset(OutreachSettings), Personas(Persona("", "persona"), "rules"), send,
                                     clock=lambda: T0 + timedelta(hours=2), meter=UsageMeter(store.backend)))
        counts = await asyncio.gather(*(outreach.sweep() for outreach in machines))
        assert sorted(counts) == [0, 1] and model.calls == 1 and len(sent) == 1
        assert await first.outreach.due_items(T0 + timedelta(days=30), 10) == []  # nothing left to send twice later
    finally:
        await first.close()
        await second.close()
