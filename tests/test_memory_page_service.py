"""The memory page's service on both engines: a fact typed for a user the bot never met, edits, reminders,
isolation."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from config import Config
from memory.facts import Extraction, Fact
from services.forgetting import Forgetter
from services.memory_page import MemoryPage, PageSettings
from services.page_input import Refused
from services.why import Why
from tests.conftest import fetch

ANN, BOB = 1001, 1002
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)


@pytest.fixture
def page(store):
    config = Config(telegram_token="1:x", openai_api_key="k", timezone="Europe/Berlin")
    repos = store
    forgetter = Forgetter(repos.accounts, repos.facts, repos.forgetting, repos.reminders, repos.topics, repos.users,
                          lambda: NOW)
    why = Why(repos.facts, repos.reminders, repos.scopes, repos.topics, repos.turns, forgetter)
    return MemoryPage(repos.accounts, repos.facts, repos.reminders, repos.scopes, repos.topics, repos.users,
                      config.subset(PageSettings), lambda: NOW, forgetter, why)


async def test_a_fact_typed_for_a_new_user_gives_them_a_row_and_a_second_time_is_known(page, store):
    fact, new = await page.add(ANN, {"category": "interests", "value": "plays chess"})
    assert new and fact.id is not None and fact.value == "plays chess" and fact.importance == 8
    assert await fetch(store, "SELECT id FROM users WHERE id = ?", (ANN,)) == [(ANN,)]
    again, new = await page.add(ANN, {"category": "interests", "value": "Plays chess!"})
    assert not new and again.id == fact.id
    await store.users.meet_user(ANN, NOW)  # meeting them again changes nothing
    assert len(await store.facts.facts(ANN)) == 1


async def test_an_edit_keeps_history_and_plans_a_new_date(page, store):
    fact, _ = await page.add(ANN, {"category": "plans", "value": "dentist", "when": "2026-12-20T10:00"})
    edited = await page.edit(ANN, fact.id, {"value": "dentist, the new clinic", "when": "2026-12-21T09:00"})
    assert (edited.id, edited.value, edited.when) == (fact.id, "dentist, the new clinic", "2026-12-21T09:00")
    history = await fetch(store, "SELECT value, when_at FROM fact_history WHERE fact_id = ?", (fact.id,))
    assert history == [("dentist", "2026-12-20T10:00")]
    [(followup,)] = await fetch(store, "SELECT followup_at FROM facts WHERE id = ?", (fact.id,))
    assert followup is not None and followup > "2026-12-21"


async def test_another_users_fact_is_not_found_and_stays(page, store):
    await store.users.meet_user(BOB, NOW)
    await store.facts.save_facts(BOB, Extraction([Fact("pets", "pet:tom", "cat Tom")]), NOW, 100)
    [tom] = await store.facts.facts(BOB)
    for call in (page.edit(ANN, tom.id, {"value": "mine now"}), page.delete_fact(ANN, tom.id),
                 page.delete_topic(ANN, tom.id)):
        with pytest.raises(Refused) as refused:
            await call
        assert refused.value.code == "not_found"
    assert [fact.value for fact in await store.facts.facts(BOB)] == ["cat Tom"]


async def test_a_wish_is_deleted_but_not_edited(page, store):
    await store.users.meet_user(ANN, NOW)
    await store.facts.save_facts(ANN, Extraction([Fact("style", "style:emoji", "no emoji")]), NOW, 100)
    [wish] = await store.facts.facts(ANN)
    with pytest.raises(Refused, match="not_editable"):
        await page.edit(ANN, wish.id, {"value": "lots of emoji"})
    await page.delete_fact(ANN, wish.id)
    assert await store.facts.facts(ANN) == []


async def test_settings_forget_and_export(page, store):
    settings, facts = await page.change_settings(ANN, {"timezone": "Tokyo", "checkins": False})
    assert settings == {"timezone": "Asia/Tokyo", "checkins": "off"} and facts == []
    await page.add(ANN, {"category": "other", "value": "likes tea"})
    exported = json.loads(await page.export(ANN))
    assert exported["timezone"] == {"zone": "Asia/Tokyo", "source": "command"}
    assert [fact["value"] for fact in exported["facts"]] == ["likes tea"]
    assert await page.forget_all(ANN) == (0, 1)
    assert (await page.snapshot(ANN)).facts == [] and await store.users.settings(ANN) == {}


async def remind(store, user_id: int, task: str, due: datetime, rule: str | None = None):
    """Set a reminder in the user's private chat (meeting them first); return it."""
    await store.users.meet_user(user_id, NOW)
    reminder = await store.reminders.add_reminder(user_id, user_id, task, due, rule, "Europe/Moscow", NOW)
    assert reminder is not None
    return reminder


async def test_the_snapshot_has_the_users_active_reminders_soonest_first(page, store):
    weekly = await remind(store, ANN, "gym", NOW + 72 * HOUR, "week mon 08:00")
    once = await remind(store, ANN, "call mum", NOW + 2 * HOUR)
    dropped = await remind(store, ANN, "buy bread", NOW + HOUR)
    assert await store.reminders.cancel_reminder(ANN, dropped.id)
    await remind(store, BOB, "Bob's own", NOW + HOUR)
    assert (await page.snapshot(ANN)).reminders == [once, weekly]
    assert [reminder.task for reminder in (await page.snapshot(BOB)).reminders] == ["Bob's own"]


async def test_a_reminder_is_deleted_once_and_another_users_is_not_found(page, store):
    mine = await remind(store, ANN, "call mum", NOW + HOUR)
    bobs = await remind(store, BOB, "water the plants", NOW + HOUR, "day 09:00")
    await page.delete_reminder(ANN, mine.id)
    assert await store.reminders.reminders(ANN) == [] and (await store.reminders.reminder(ANN,
                                                                                          mine.id)).state == "cancelled"
    for user_id, reminder_id in ((ANN, mine.id), (ANN, bobs.id), (ANN, bobs.id + 1000), (BOB, mine.id)):
        with pytest.raises(Refused) as refused:
            await page.delete_reminder(user_id, reminder_id)
        assert refused.value.code == "not_found"
    assert await store.reminders.reminders(BOB) == [bobs]
