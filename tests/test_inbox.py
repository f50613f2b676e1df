"""The inbox of updates: what it keeps (secrets masked), and which updates it lets through to the handlers."""

import asyncio
import json
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from telegram import Bot, Update

from transport.inbox import Inbox, inbox_entry, masked
from transport.transport_store import TransportStore

CARD = "4111 1111 1111 1111"


def update_json(update_id: int, text: str) -> dict:
    return {"update_id": update_id, "message": {
        "message_id": 5, "date": 1764417600, "text": text,
        "chat": {"id": 7, "type": "private"}, "from": {"id": 7, "is_bot": False, "first_name": "Ann"}}}


def app_stub() -> SimpleNamespace:
    """What Inbox.replay needs of the Application."""
    return SimpleNamespace(bot=Bot("1:" + "x" * 35), update_queue=asyncio.Queue())


@pytest.fixture
async def inbox(store):
    return Inbox(await TransportStore.open(store.backend))


def test_masked_hides_secrets_in_every_text_and_caption_and_nothing_else():
    data = {"message": {"text": f"card {CARD}", "caption": f"pay {CARD}", "chat": {"title": CARD},
                        "reply_to_message": {"text": CARD}, "entities": [{"type": "bold", "text": CARD}]}}
    out = json.dumps(masked(data))
    assert out.count(CARD) == 1 and '"title": "4111' in out
    assert masked([1, "x", None]) == [1, "x", None]


def test_an_inbox_entry_round_trips_to_the_same_update_with_the_secret_masked():
    update_id, payload, key = inbox_entry(masked(update_json(42, f"my card is {CARD}")))
    assert key == 7
    again = Update.de_json(json.loads(payload), None)
    assert update_id == 42 and again.message.chat.id == 7 and again.message.from_user.first_name == "Ann"
    assert CARD not in payload and again.message.text.startswith("my card is ")


async def test_a_new_update_is_handled_once_and_a_redelivered_copy_is_skipped(inbox):
    await inbox.record([update_json(1, "hi"), update_json(2, "hi")])
    assert await inbox.should_handle(1)
    await inbox.handled(1)
    await inbox.record([update_json(1, "hi")])  # Telegram sends it again
    assert not await inbox.should_handle(1)
    assert await inbox.should_handle(2)  # recorded, not handled yet


async def test_after_a_restart_the_unhandled_are_replayed_in_order_and_their_redelivery_skipped(inbox):
    await inbox.record([update_json(3, "third"), update_json(1, "first"), update_json(2, "second")])
    await inbox.handled(2)
    app = app_stub()
    restarted = Inbox(inbox.store)
    assert await restarted.replay(app) == 2
    replayed = [app.update_queue.get_nowait() for _ in range(2)]
    assert [(u.update_id, u.message.text) for u in replayed] == [(1, "first"), (3, "third")]
    await restarted.record([update_json(1, "first")])  # Telegram redelivers what it was never told arrived
    assert await restarted.should_handle(1)  # the replayed copy goes through...
    await restarted.handled(1)
    assert not await restarted.should_handle(1)  # ...the redelivered one does not
    assert not await restarted.should_handle(2)


async def test_an_unreadable_payload_is_skipped_at_replay(inbox):
    entries = [(9, "{not json", 7), (10, json.dumps(update_json(10, "ok")), 7)]
    assert await inbox.store.record_updates(entries, datetime.now(timezone.utc)) == {9, 10}
    app = app_stub()
    assert await inbox.replay(app) == 1
    assert app.update_queue.get_nowait().update_id == 10


def test_an_unreadable_update_becomes_a_bare_one_with_its_id():
    from transport.inbox import readable

    assert readable(update_json(5, "hi"), None).message.text == "hi"
    bare = readable({"update_id": 6, "poll": {"id": "1"}}, None)
    assert bare.update_id == 6 and bare.poll is None and bare.effective_user is None


async def test_under_the_users_lock_one_query_says_what_came_before_and_whether_this_one_was_handled(inbox):
    await inbox.record([update_json(1, "first"), update_json(2, "second"), update_json(3, "third")])
    await inbox.handled(2)
    earlier, handled = await inbox.earlier(7, 3, app_stub().bot)
    assert [update.update_id for update in earlier] == [1] and handled is False
    assert (await inbox.earlier(7, 2, app_stub().bot))[1] is True
    asked = []
    later = Inbox(inbox.store)  # ids it recorded itself would go through unasked on SQLite anyway
    later.store.was_handled = lambda update_id: asked.append(update_id)  # what was said is not asked again
    assert not await later.should_handle(2, True) and await later.should_handle(3, False) and asked == []
