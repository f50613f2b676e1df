"""The store's reminders: setting, listing, cancelling and moving them, and taking a due one to send exactly once."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from memory.reminder import Reminder
from memory.store.memory_store import Store
from memory.store.reminder_rows import DUE_REMINDERS, NEXT_DUE
from tests.conftest import fetch
from tests.timeouts import scaled

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
MINUTE, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)
GROUP = -1001234567890  # a supergroup's chat id: more than 32 bits
ZONE = "Europe/Moscow"


async def remind(store, task="позвонить маме", due=T0 + HOUR, rule=None, user_id=1, now=T0, chat_id=None,
                 asker=None):
    """Set a reminder (in the user's private chat unless `chat_id`) for a user the bot has met; return it."""
    await store.users.meet_user(user_id, T0)
    reminder = await store.reminders.add_reminder(user_id, chat_id or user_id, task, due, rule, ZONE, now, asker=asker)
    assert reminder is not None
    return reminder


# ----- setting and reading -----

async def test_a_reminder_reads_back_as_set_with_its_time_in_utc(store):
    local = datetime(2026, 12, 2, 9, 0, tzinfo=ZoneInfo(ZONE))  # 09:00 in Moscow is 06:00 UTC
    await store.users.meet_user(1, T0)
    made = await store.reminders.add_reminder(1, GROUP, "take the pills", local, "day 09:00", ZONE, T0, asker="Ann")
    assert made == Reminder(id=made.id, user_id=1, chat_id=GROUP, asker="Ann", task="take the pills",
                            due_at=datetime(2026, 12, 2, 6, 0, tzinfo=timezone.utc), rule="day 09:00", zone=ZONE,
                            created_at=T0, state="active", delivered_at=None, missed=0)
    assert made.due_at.utcoffset() == timedelta(0)
    assert await store.reminders.reminder(1, made.id) == made
    assert await store.reminders.reminders(1) == [made]
    [(stored,)] = await fetch(store, "SELECT due_at FROM reminders")
    assert stored == "2026-12-02T06:00:00+00:00"


async def test_reminders_list_soonest_first(store):
    later = await remind(store, "later", due=T0 + 3 * HOUR)
    soon = await remind(store, "soon", due=T0 + HOUR, now=T0 + MINUTE)
    middle = await remind(store, "middle", due=T0 + 2 * HOUR, now=T0 + 2 * MINUTE)
    assert [r.task for r in await store.reminders.reminders(1)] == ["soon", "middle", "later"]
    assert await store.reminders.cancel_reminder(1, middle.id)
    assert [r.task for r in await store.reminders.reminders(1)] == ["soon", "later"]
    assert later.id < soon.id < middle.id
    assert await store.reminders.reminders(2) == []


async def test_a_user_has_at_most_fifty_active_reminders(store):
    made = [await remind(store, f"task {i}", due=T0 + i * MINUTE) for i in range(50)]
    assert await store.reminders.add_reminder(1, 1, "one too many", T0 + HOUR, None, ZONE, T0) is None
    assert len(await store.reminders.reminders(1)) == 50
    assert await store.reminders.cancel_reminder(1, made[0].id)  # a cancelled one no longer counts
    assert await store.reminders.add_reminder(1, 1, "room again", T0 + HOUR, None, ZONE, T0) is not None
    assert await store.reminders.add_reminder(1, 1, "over a smaller limit", T0, None, ZONE, T0, limit=10) is None
    assert (await remind(store, "someone else's", user_id=2)).user_id == 2  # the limit is per user


async def test_users_never_see_or_change_each_others_reminders(store):
    ann = await remind(store, "Ann's", user_id=1)
    bob = await remind(store, "Bob's", user_id=2)
    assert await store.reminders.reminders(1) == [ann] and await store.reminders.reminders(2) == [bob]
    assert await store.reminders.reminder(2, ann.id) is None
    assert not await store.reminders.cancel_reminder(2, ann.id)
    assert not await store.reminders.move_reminder(2, ann.id, T0 + DAY)
    assert await store.reminders.reminder(1, ann.id) == ann


async def test_cancel_and_move_only_an_active_reminder(store):
    made = await remind(store)
    assert await store.reminders.move_reminder(1, made.id, T0 + DAY)
    assert (await store.reminders.reminder(1, made.id)).due_at == T0 + DAY
    assert await store.reminders.cancel_reminder(1, made.id)
    assert (await store.reminders.reminder(1, made.id)).state == "cancelled"  # kept, for /export
    assert await store.reminders.reminders(1) == []
    assert not await store.reminders.cancel_reminder(1, made.id)
    assert not await store.reminders.move_reminder(1, made.id, T0 + 2 * DAY)
    assert not await store.reminders.cancel_reminder(1, 999)
    assert await store.reminders.due_reminders(T0 + 10 * DAY, 10) == []


# ----- due, taken, sent -----

async def test_a_one_off_is_due_taken_once_and_done_when_sent(store):
    made = await remind(store, due=T0 + HOUR)
    assert await store.reminders.due_reminders(T0 + HOUR - MINUTE, 10) == []
    assert await store.reminders.due_reminders(T0 + HOUR, 10) == [made]
    assert await store.reminders.take_reminder(made, T0 + HOUR, T0 + HOUR + 5 * MINUTE)
    assert not await store.reminders.take_reminder(made, T0 + HOUR, T0 + HOUR + 5 * MINUTE)  # held
    assert await store.reminders.due_reminders(T0 + HOUR + MINUTE, 10) == []  # the sweep passes over a held one
    assert await store.reminders.finish_reminder(made, T0 + HOUR + MINUTE, None)
    done = await store.reminders.reminder(1, made.id)
    assert (done.state, done.delivered_at, done.due_at) == ("done", T0 + HOUR + MINUTE, T0 + HOUR)
    assert await store.reminders.reminders(1) == [] and await store.reminders.due_reminders(T0 + DAY, 10) == []
    assert not await store.reminders.finish_reminder(made, T0 + HOUR + 2 * MINUTE, None)  # never twice
    assert not await store.reminders.take_reminder(made, T0 + DAY, T0 + DAY + MINUTE)


async def test_a_recurring_one_moves_to_its_next_time_from_the_rule_not_from_delivery(store):
    made = await remind(store, "pills", due=T0, rule="day 12:00")
    assert await store.reminders.take_reminder(made, T0, T0 + 5 * MINUTE)
    sent_at = T0 + 3 * MINUTE  # Telegram was slow
    assert await store.reminders.finish_reminder(made, sent_at, T0 + DAY)
    after = await store.reminders.reminder(1, made.id)
    assert (after.state, after.due_at, after.delivered_at) == ("active", T0 + DAY, sent_at)
    assert await store.reminders.due_reminders(T0 + DAY - MINUTE, 10) == []
    assert await store.reminders.due_reminders(T0 + DAY, 10) == [after]  # the claim went with the send
    assert not await store.reminders.take_reminder(made, T0 + DAY,
                                                   T0 + DAY + MINUTE)  # as read yesterday: no longer due
    assert await store.reminders.take_reminder(after, T0 + DAY, T0 + DAY + MINUTE)


async def test_a_cancel_or_a_move_while_it_is_being_sent_wins(store):
    cancelled = await remind(store, "cancelled", due=T0)
    moved = await remind(store, "moved", due=T0, rule="day 12:00")
    for reminder in (cancelled, moved):
        assert await store.reminders.take_reminder(reminder, T0, T0 + 5 * MINUTE)
    assert await store.reminders.cancel_reminder(1, cancelled.id)
    assert await store.reminders.move_reminder(1, moved.id, T0 + 2 * HOUR)
    assert not await store.reminders.finish_reminder(cancelled, T0 + MINUTE, None)
    assert not await store.reminders.finish_reminder(moved, T0 + MINUTE, T0 + DAY)
    assert (await store.reminders.reminder(1, cancelled.id)).state == "cancelled"
    after = await store.reminders.reminder(1, moved.id)
    assert (after.state, after.due_at, after.delivered_at) == ("active", T0 + 2 * HOUR, None)
    assert await store.reminders.due_reminders(T0 + 2 * HOUR, 10) == [after]  # the move let go of the claim


async def test_an_expired_claim_is_taken_again(store):
    made = await remind(store, due=T0)
    assert await store.reminders.take_reminder(made, T0, T0 + 5 * MINUTE)  # and the machine died
    assert await store.reminders.due_reminders(T0 + 4 * MINUTE, 10) == []
    assert not await store.reminders.take_reminder(made, T0 + 4 * MINUTE, T0 + 9 * MINUTE)
    assert await store.reminders.due_reminders(T0 + 6 * MINUTE, 10) == [made]
    assert await store.reminders.take_reminder(made, T0 + 6 * MINUTE, T0 + 11 * MINUTE)


async def test_a_failed_send_is_released_until_its_retry_time(store):
    made = await remind(store, due=T0)
    assert await store.reminders.take_reminder(made, T0, T0 + 5 * MINUTE)
    await store.reminders.release_reminder(made, T0 + 2 * MINUTE)
    assert await store.reminders.due_reminders(T0 + MINUTE, 10) == []
    assert not await store.reminders.take_reminder(made, T0 + MINUTE, T0 + 6 * MINUTE)
    assert await store.reminders.due_reminders(T0 + 3 * MINUTE, 10) == [made]  # due_at as it was
    assert await store.reminders.take_reminder(made, T0 + 3 * MINUTE, T0 + 8 * MINUTE)
    await store.reminders.release_reminder(made)
    assert await store.reminders.due_reminders(T0 + 3 * MINUTE, 10) == [made]  # the next sweep may take it


async def test_due_reminders_come_longest_overdue_first_for_every_user_within_the_limit(store):
    await remind(store, "third", due=T0, user_id=1)
    await remind(store, "first", due=T0 - 2 * HOUR, user_id=2)
    await remind(store, "second", due=T0 - HOUR, user_id=3, chat_id=GROUP, asker="Cy")
    await remind(store, "not yet", due=T0 + MINUTE, user_id=1)
    assert [r.task for r in await store.reminders.due_reminders(T0, 10)] == ["first", "second", "third"]
    assert [r.task for r in await store.reminders.due_reminders(T0, 2)] == ["first", "second"]
    [group] = [r for r in await store.reminders.due_reminders(T0, 10) if r.user_id == 3]
    assert (group.chat_id, group.asker) == (GROUP, "Cy")


async def test_the_due_queries_use_the_partial_index(tmp_path):
    store = await Store.open(tmp_path / "bot.db")  # SQLite's plan; PostgreSQL plans by table size
    await remind(store)
    await store.close()
    with sqlite3.connect(tmp_path / "bot.db") as db:
        for query, params in ((DUE_REMINDERS, ("x", "x", 1)), (NEXT_DUE, ("x",))):
            plan = db.execute("EXPLAIN QUERY PLAN " + query, params).fetchall()
            assert "reminders_by_due" in " ".join(row[-1] for row in plan)
            assert "TEMP B-TREE" not in " ".join(row[-1] for row in plan)  # read in the index's order, not sorted


async def test_the_next_due_time_is_the_soonest_active_one_no_machine_holds(store):
    assert await store.reminders.next_reminder_due(T0) is None
    later = await remind(store, "later", due=T0 + 2 * HOUR)
    soon = await remind(store, "soon", due=T0 + HOUR, user_id=2)
    assert await store.reminders.next_reminder_due(T0) == T0 + HOUR
    assert await store.reminders.take_reminder(soon, T0 + HOUR, T0 + HOUR + 2 * MINUTE)  # held while it is sent
    assert await store.reminders.next_reminder_due(T0 + HOUR) == T0 + 2 * HOUR
    # The claim ran out: due, overdue.
    assert await store.reminders.next_reminder_due(T0 + HOUR + 3 * MINUTE) == T0 + HOUR
    assert await store.reminders.finish_reminder(soon, T0 + HOUR, None)
    assert await store.reminders.cancel_reminder(1, later.id)
    assert await store.reminders.next_reminder_due(T0) is None
    overdue = await remind(store, "missed", due=T0 - DAY, user_id=3)
    assert await store.reminders.next_reminder_due(T0) == overdue.due_at  # already waiting: in the past


# ----- missed while the bot was down -----

async def test_a_skipped_reminder_is_told_of_once(store):
    one_off = await remind(store, "позвонить маме", due=T0 - DAY)
    daily = await remind(store, "pills", due=T0 - 2 * DAY, rule="day 12:00")
    others = await remind(store, "Bob's", due=T0 - DAY, user_id=2)
    assert await store.reminders.skip_reminder(one_off, None)
    assert await store.reminders.skip_reminder(daily, T0 - DAY)
    assert not await store.reminders.skip_reminder(daily, T0)  # as read before: it moved on already
    assert await store.reminders.skip_reminder(await store.reminders.reminder(1, daily.id), T0 + DAY)
    assert await store.reminders.skip_reminder(others, None)
    skipped = await store.reminders.reminder(1, one_off.id)
    assert (skipped.state, skipped.missed) == ("missed", 1)
    later = await store.reminders.reminder(1, daily.id)
    assert (later.state, later.due_at, later.missed) == ("active", T0 + DAY, 2)
    assert [r.task for r in await store.reminders.reminders(1)] == ["pills"]
    assert await store.reminders.due_reminders(T0, 10) == []
    assert await store.reminders.take_missed(1) == ["позвонить маме", "pills"]
    assert await store.reminders.take_missed(1) == []  # told once
    assert (await store.reminders.reminder(1, one_off.id)).state == "done"
    after = await store.reminders.reminder(1, daily.id)
    assert (after.state, after.missed, after.due_at) == ("active", 0, T0 + DAY)
    assert (await store.reminders.reminder(2, others.id)).missed == 1  # another user's are left for them
    assert await store.reminders.take_missed(2) == ["Bob's"]


async def test_a_skip_after_a_cancel_changes_nothing(store):
    made = await remind(store, due=T0 - DAY)
    assert await store.reminders.cancel_reminder(1, made.id)
    assert not await store.reminders.skip_reminder(made, None)
    assert await store.reminders.take_missed(1) == []


# ----- forget, export, ids -----

async def test_forget_user_removes_their_reminders_and_only_theirs(store):
    await remind(store, "one", user_id=1)
    done = await remind(store, "two", due=T0, user_id=1)
    await store.reminders.finish_reminder(done, T0, None)
    kept = await remind(store, "Bob's", user_id=2)
    await store.accounts.forget_user(1)
    assert await fetch(store, "SELECT user_id FROM reminders") == [(2,)]
    assert await store.reminders.reminders(1) == [] and await store.reminders.reminder(1, done.id) is None
    assert await store.reminders.reminders(2) == [kept]
    assert await store.reminders.due_reminders(T0 + DAY, 10) == [kept]


async def test_a_users_row_deleted_takes_their_reminders_with_it(store):
    await remind(store, user_id=1)
    await fetch(store, "DELETE FROM users WHERE id = 1")
    assert await fetch(store, "SELECT COUNT(*) FROM reminders") == [(0,)]


async def test_ids_are_never_reused(store):
    first = await remind(store, "one")
    second = await remind(store, "two")
    await store.accounts.forget_user(1)
    again = await remind(store, "three")
    assert first.id < second.id < again.id


async def test_export_holds_active_and_past_reminders(store):
    daily = await remind(store, "pills", due=T0, rule="day 12:00", chat_id=GROUP, asker="Ann")
    await store.reminders.finish_reminder(daily, T0 + MINUTE, T0 + DAY)
    once = await remind(store, "позвонить маме", due=T0 + HOUR)
    await store.reminders.cancel_reminder(1, once.id)
    exported = (await store.accounts.export_user(1))["reminders"]
    assert exported == [
        {"task": "pills", "due_at": (T0 + DAY).isoformat(), "rule": "day 12:00", "zone": ZONE, "state": "active",
         "created_at": T0.isoformat(), "delivered_at": (T0 + MINUTE).isoformat()},
        {"task": "позвонить маме", "due_at": (T0 + HOUR).isoformat(), "rule": None, "zone": ZONE,
         "state": "cancelled", "created_at": T0.isoformat(), "delivered_at": None},
    ]
    assert (await store.accounts.export_user(2))["reminders"] == []


# ----- PostgreSQL only: several machines -----

async def test_two_machines_taking_one_reminder_at_once_only_one_gets_it(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        made = await remind(first, due=T0)
        taken = await asyncio.gather(*(machine.reminders.take_reminder(made, T0, T0 + 5 * MINUTE)
                                       for machine in (first, second) * 5))
        assert taken.count(True) == 1
    finally:
        await first.close()
        await second.close()


async def test_a_reminder_another_machine_is_taking_is_skipped_without_waiting(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        made = await remind(first, due=T0)
        async with first.backend.transaction() as db:  # the row is locked by a take in flight on the first machine
            await db.execute_fetchall("SELECT id FROM reminders WHERE id = ? FOR UPDATE", (made.id,))
            assert not await asyncio.wait_for(second.reminders.take_reminder(made, T0, T0 + 5 * MINUTE), scaled(5))
        assert await second.reminders.take_reminder(made, T0, T0 + 5 * MINUTE)
    finally:
        await first.close()
        await second.close()


async def test_two_machines_adding_at_once_keep_the_limit(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        for i in range(4):
            await remind(first, f"task {i}")
        added = await asyncio.gather(*(machine.reminders.add_reminder(1, 1, "one more", T0 + HOUR, None, ZONE, T0,
                                                                      limit=5)
                                       for machine in (first, second) * 3))
        assert sum(r is not None for r in added) == 1
        assert len(await second.reminders.reminders(1)) == 5
    finally:
        await first.close()
        await second.close()


# ----- a turn resumed after a crash, and a time asked about -----

async def test_a_turn_resumed_after_a_crash_gets_the_reminder_it_set_instead_of_a_second(store):
    await store.users.meet_user(1, T0)
    first = await store.reminders.add_reminder(1, 1, "позвонить маме", T0 + HOUR, None, ZONE, T0, update_id=77)
    again = await store.reminders.add_reminder(1, 1, "позвонить маме", T0 + HOUR, None, ZONE, T0 + MINUTE, update_id=77)
    assert first is not None and again == first
    other = await store.reminders.add_reminder(1, 1, "позвонить папе", T0 + HOUR, None, ZONE, T0, update_id=78)
    assert other is not None and other.id != first.id
    await store.users.meet_user(2, T0)  # another user's update of the same number is their own
    assert (await store.reminders.add_reminder(2, 2, "x", T0 + HOUR, None, ZONE, T0, update_id=77)).user_id == 2
    assert len(await store.reminders.reminders(1)) == 2


async def test_a_pending_reminder_waits_for_its_time_to_be_chosen_once(store):
    await store.users.meet_user(1, T0)
    pending = await store.reminders.add_reminder(1, 1, "выключить духовку", T0 + HOUR, None, ZONE, T0, state="pending")
    assert pending is not None and pending.state == "pending"
    assert await store.reminders.reminders(1) == [] and await store.reminders.due_reminders(T0 + DAY, 10) == []
    assert await store.reminders.activate_reminder(2, pending.id, T0 + 2 * HOUR) is None  # not theirs
    chosen = await store.reminders.activate_reminder(1, pending.id, T0 + 2 * HOUR)
    assert chosen is not None and chosen.state == "active" and chosen.due_at == T0 + 2 * HOUR
    assert await store.reminders.activate_reminder(1, pending.id, T0 + 3 * HOUR) is None  # chosen already
    assert await store.reminders.reminders(1) == [chosen]


async def test_a_pending_reminder_is_not_chosen_past_the_limit(store):
    for i in range(3):
        await remind(store, f"task {i}", due=T0 + i * MINUTE)
    pending = await store.reminders.add_reminder(1, 1, "one more", T0 + HOUR, None, ZONE, T0, limit=3, state="pending")
    assert pending is not None  # asking which time is no reminder yet
    assert await store.reminders.activate_reminder(1, pending.id, T0 + HOUR, limit=3) is None
