"""The per-user update processor: one user's updates in order, and a user's waiting updates hold no slot."""

from __future__ import annotations

import asyncio

from telegram import Update

from transport.ordering import PerUserUpdateProcessor
from transport.sending import Outage


class Inbox:
    """An inbox on one machine that has handled nothing yet, noting what is marked handled."""

    shared = False

    def __init__(self) -> None:
        self.marked: list[int] = []

    async def should_handle(self, update_id: int, handled: bool | None = None) -> bool:
        return update_id not in self.marked

    async def handled(self, update_id: int) -> None:
        self.marked.append(update_id)


def update(update_id: int, user: int) -> Update:
    """Return a private text message of `user` as Telegram sends it."""
    return Update.de_json({"update_id": update_id, "message": {
        "message_id": update_id, "date": 0, "text": "hi", "chat": {"id": user, "type": "private"},
        "from": {"id": user, "is_bot": False, "first_name": "U"}}}, None)


async def test_a_users_waiting_updates_hold_no_slot_so_another_user_goes_first():
    inbox = Inbox()
    processor = PerUserUpdateProcessor(1, Outage(60.0), inbox, None, None)  # one slot
    release = asyncio.Event()
    finished: list[int] = []

    async def work(update_id: int, wait: bool) -> None:
        if wait:
            await release.wait()
        finished.append(update_id)

    first = asyncio.create_task(processor.process_update(update(1, 10), work(1, True)))
    await asyncio.sleep(0)
    second_of_same_user = asyncio.create_task(processor.process_update(update(2, 10), work(2, False)))
    other_user = asyncio.create_task(processor.process_update(update(3, 20), work(3, False)))
    for _ in range(5):
        await asyncio.sleep(0)
    assert finished == []  # the one slot is the first update's
    release.set()
    await asyncio.gather(first, second_of_same_user, other_user)
    # The user's second update waited for their lock without a slot: the other user's, waiting for the slot, was next.
    assert finished == [1, 3, 2]
    assert sorted(inbox.marked) == [1, 2, 3]


async def test_one_users_updates_run_one_at_a_time_in_order():
    processor = PerUserUpdateProcessor(8, Outage(60.0), Inbox(), None, None)
    running: list[int] = []
    finished: list[int] = []

    async def work(update_id: int) -> None:
        running.append(update_id)
        assert len(running) == 1  # never two of one user's at once
        await asyncio.sleep(0.001 * (5 - update_id))  # the earlier, the slower
        running.remove(update_id)
        finished.append(update_id)

    await asyncio.gather(*(processor.process_update(update(n, 10), work(n)) for n in range(1, 5)))
    assert finished == [1, 2, 3, 4]
