"""The store's schedule of messages written first: due items, moving them, claiming them at most once."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from memory.facts import Extraction, Fact
from memory.store.memory_store import Store
from memory.store.outreach_rows import DUE_QUERY
from tests.harness import session

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)


async def talk(store, user_id=1, now=T0, private=True, checkin_after=HOUR, text="hi"):
    return await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="ru", text=text, now=now,
                                  update_id=None, history_limit=20, private=private, checkin_at=now + checkin_after)


async def plan(store, user_id=1, due=T0 + HOUR, key="plan:exam", when="2026-12-01"):
    fact = Fact("plans", key, "экзамен", when=when)
    await store.facts.save_facts(user_id, Extraction([fact]), T0, 100, plan=lambda _fact: due)
    return next(f for f in await store.facts.facts(user_id) if f.key == key)


async def test_a_private_message_arms_a_check_in_and_a_group_message_does_not(store):
    await talk(store, 1)
    await talk(store, 2, private=False)
    assert await store.outreach.due_items(T0 + HOUR / 2, 10) == []
    [due] = await store.outreach.due_items(T0 + HOUR, 10)
    assert (due.kind, due.user_id, due.due_at, due.language_code) == ("checkin", 1, T0 + HOUR, "ru")
    assert due.proactive_day is None and due.proactive_count == 0


async def test_each_message_moves_the_check_in_on(store):
    await talk(store, 1)
    await talk(store, 1, now=T0 + HOUR / 2)
    assert await store.outreach.due_items(T0 + HOUR, 10) == []
    assert [item.due_at for item in await store.outreach.due_items(T0 + 2 * HOUR, 10)] == [T0 + HOUR * 1.5]


async def test_a_dated_fact_is_due_with_its_value_and_city(store):
    await talk(store, 1)
    await store.facts.save_facts(1, Extraction([Fact("location", "city", "Казань")]), T0, 100)
    fact = await plan(store)
    items = await store.outreach.due_items(T0 + HOUR, 10)
    followup = next(item for item in items if item.kind == "followup")
    assert (followup.fact_id, followup.fact_value, followup.when, followup.city) == (
        fact.id, "экзамен", "2026-12-01", "Казань")
    assert fact.when == "2026-12-01"


async def test_a_birthday_is_its_own_kind(store):
    await talk(store, 1, checkin_after=HOUR * 100)
    birthday = Fact("personal", "birthday", "12 мая", when="1990-05-12")
    await store.facts.save_facts(1, Extraction([birthday]), T0, 100, plan=lambda _fact: T0)
    assert [item.kind for item in await store.outreach.due_items(T0, 10)] == ["birthday"]


async def test_the_longest_overdue_come_first_and_the_limit_holds(store):
    for user_id in (1, 2, 3):
        await talk(store, user_id, now=T0 - timedelta(minutes=user_id))
    items = await store.outreach.due_items(T0 + HOUR, 2)
    assert [item.user_id for item in items] == [3, 2]


async def test_moving_an_item_and_dropping_one(store):
    await talk(store, 1)
    fact = await plan(store)
    items = await store.outreach.due_items(T0 + HOUR, 10)
    checkin = next(item for item in items if item.kind == "checkin")
    followup = next(item for item in items if item.kind == "followup")
    await store.outreach.move_items([(checkin, T0 + 5 * HOUR), (followup, None)])
    assert await store.outreach.due_items(T0 + 4 * HOUR, 10) == []
    [later] = await store.outreach.due_items(T0 + 5 * HOUR, 10)
    assert later.kind == "checkin" and later.due_at == T0 + 5 * HOUR
    assert fact.id is not None


async def test_a_move_does_not_undo_what_the_user_did_meanwhile(store):
    await talk(store, 1)
    [checkin] = await store.outreach.due_items(T0 + HOUR, 10)
    await talk(store, 1, now=T0 + HOUR)  # they wrote: the check-in moved on by itself
    await store.outreach.move_items([(checkin, None)])
    [still] = await store.outreach.due_items(T0 + 2 * HOUR, 10)
    assert still.due_at == T0 + 2 * HOUR


async def test_a_claim_is_once_and_puts_the_message_in_the_session(store):
    await talk(store, 1)
    [checkin] = await store.outreach.due_items(T0 + HOUR, 10)
    message_id = await store.outreach.claim_item(checkin, "Как прошёл экзамен?", T0 + HOUR, "2026-11-30", None, 20)
    assert message_id is not None
    assert await store.outreach.claim_item(checkin, "again", T0 + HOUR, "2026-11-30", None, 20) is None
    assert (await session(store, 1, 20))[-1] == {"role": "assistant", "content": "Как прошёл экзамен?"}
    exported = await store.accounts.export_user(1)
    assert exported["messages"][-1]["kind"] == "checkin"
    assert await store.outreach.due_items(T0 + 100 * HOUR, 10) == []  # never two unanswered check-ins


async def test_a_claim_counts_the_day_and_cancels_the_pending_check_in(store):
    await talk(store, 1, checkin_after=HOUR * 2)
    await plan(store, due=T0 + HOUR)
    [followup] = await store.outreach.due_items(T0 + HOUR, 10)
    assert await store.outreach.claim_item(followup, "Ну как?", T0 + HOUR, "2026-11-30", None, 20)
    await talk(store, 2)
    [other] = await store.outreach.due_items(T0 + 10 * HOUR, 10)
    assert other.user_id == 2  # user 1's check-in waits for their next message
    await talk(store, 1, now=T0 + 3 * HOUR)
    again = next(item for item in await store.outreach.due_items(T0 + 10 * HOUR, 10) if item.user_id == 1)
    assert (again.proactive_day, again.proactive_count) == ("2026-11-30", 1)


async def test_a_claim_fails_when_the_user_wrote_after_the_sweep_read_it(store):
    await talk(store, 1)
    [checkin] = await store.outreach.due_items(T0 + HOUR, 10)
    await talk(store, 1, now=T0 + HOUR)
    assert await store.outreach.claim_item(checkin, "Привет!", T0 + HOUR, "2026-11-30", None, 20) is None
    assert [m["content"] for m in await session(store, 1, 20)] == ["hi", "hi"]


async def test_a_recurring_claim_sets_the_next_due_time(store):
    await talk(store, 1, checkin_after=HOUR * 1000)
    await plan(store, key="birthday", due=T0)
    [birthday] = await store.outreach.due_items(T0, 10)
    next_year = T0 + timedelta(days=365)
    assert await store.outreach.claim_item(birthday, "С днём рождения!", T0, "2026-11-30", next_year, 20)
    assert await store.outreach.due_items(next_year - HOUR, 10) == []
    assert [item.due_at for item in await store.outreach.due_items(next_year, 10)] == [next_year]


async def test_a_blocked_user_is_skipped_until_they_write_and_the_unsent_text_goes(store):
    await talk(store, 1)
    await plan(store)
    [checkin, _] = sorted(await store.outreach.due_items(T0 + HOUR, 10), key=lambda item: item.kind)
    message_id = await store.outreach.claim_item(checkin, "Привет, как Мурка?", T0 + HOUR, "2026-11-30", None, 20)
    await store.outreach.mark_blocked(1, message_id, T0 + HOUR)
    assert await store.outreach.due_items(T0 + 100 * HOUR, 10) == []
    assert [m["content"] for m in await session(store, 1, 20)] == ["hi"]
    await talk(store, 1, now=T0 + 2 * HOUR)
    kinds = sorted(item.kind for item in await store.outreach.due_items(T0 + 100 * HOUR, 10))
    assert kinds == ["checkin", "followup"]


async def test_forget_removes_the_schedule(store):
    await talk(store, 1)
    await plan(store)
    await store.accounts.forget_user(1)
    assert await store.outreach.due_items(T0 + 100 * HOUR, 10) == []


async def test_a_changed_date_replans_and_the_same_date_keeps_the_plan(store):
    await talk(store, 1, checkin_after=HOUR * 1000)
    await plan(store, due=T0 + HOUR, when="2026-12-01")
    await store.facts.save_facts(1, Extraction([Fact("plans", "plan:exam", "экзамен", when="2026-12-01")]), T0, 100,
                           plan=lambda _fact: T0 + 50 * HOUR)
    assert [item.due_at for item in await store.outreach.due_items(T0 + 100 * HOUR, 10)] == [T0 + HOUR]
    await store.facts.save_facts(1, Extraction([Fact("plans", "plan:exam", "экзамен", when="2026-12-03")]), T0, 100,
                           plan=lambda _fact: T0 + 50 * HOUR)
    [moved] = await store.outreach.due_items(T0 + 100 * HOUR, 10)
    assert (moved.due_at, moved.when) == (T0 + 50 * HOUR, "2026-12-03")


async def test_the_due_query_uses_the_partial_indexes(tmp_path):
    store = await Store.open(tmp_path / "bot.db")  # SQLite's plan; PostgreSQL plans by table size
    await talk(store, 1)
    await store.close()
    with sqlite3.connect(tmp_path / "bot.db") as db:
        plan_rows = db.execute("EXPLAIN QUERY PLAN " + DUE_QUERY, ("x", "x", 1)).fetchall()
    details = " ".join(row[-1] for row in plan_rows)
    assert "users_by_checkin" in details and "facts_by_followup" in details


async def test_a_blocked_first_message_leaves_the_user_as_never_written_to(store):
    await talk(store, 1)
    [checkin] = await store.outreach.due_items(T0 + HOUR, 10)
    message_id = await store.outreach.claim_item(checkin, "Как Мурка?", T0 + HOUR, "2026-11-30", None, 20)
    await store.outreach.mark_blocked(1, message_id, T0 + HOUR, first=True)
    await talk(store, 1, now=T0 + 2 * HOUR)
    [again] = await store.outreach.due_items(T0 + 3 * HOUR, 10)
    assert (again.proactive_day, again.proactive_count) == (None, 0)
