"""The inbox: every update is on disk before Telegram hears it arrived, so a crash loses none.

Polling acknowledges a batch of updates by asking for the next one, which python-telegram-bot does as soon
as the batch is queued, long before it is handled; so `InboxBot.get_updates` writes each batch to the
store before returning it. Webhook mode writes before answering 200. The update processor skips an update
the inbox marks handled and marks each one once its handlers ran; at start-up the unhandled are replayed.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime
from typing import Any, Callable, Sequence

from telegram import Update
from telegram.error import NetworkError, TimedOut
from telegram.ext import Application, ExtBot
from telegram.request import BaseRequest, RequestData

from clock import utc_now
from json_bytes import dumps
from memory.secrets.masking import mask_secrets
from memory.store.backends import database_errors
from transport.http import BotApiRequest
from transport.sending import Outage, unreachable
from transport.transport_store import TransportStore

log = logging.getLogger(__name__)
MAX_UPDATE_ID = 2**63 - 1  # the inbox keeps update_id in a 64-bit column; Telegram's are far below
# Arrival times kept at most: an update's goes when it is handled, so only a backlog this deep (or a leak) reaches
# it; past it the oldest go first, and their turns observe no first-words latency.
MAX_ARRIVALS = 10_000


def masked(data: Any) -> Any:
    """Return the update's JSON data with every text and caption passed through mask_secrets.

    This is where what the user writes is masked, once, as it arrives (polled or POSTed), before the library
    reads it: the inbox, the session, the model and the extractor all get the masked words. (What is said
    aloud is masked as its transcript comes back, in services/transcriber.py.)
    """
    if isinstance(data, dict):
        return {
            key: mask_secrets(value) if key in ("text", "caption") and isinstance(value, str) else masked(value)
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [masked(item) for item in data]
    return data


def update_key(data: dict) -> int | None:
    """Return whose update `data` is, as the update processor orders them: the chat a message was sent on
    behalf of, else the sender's id, else the chat's."""
    for value in data.values():
        if not isinstance(value, dict):
            continue
        for field in ("sender_chat", "from", "user", "chat"):
            found = value.get(field)
            if isinstance(found, dict) and isinstance(found.get("id"), int):
                return found["id"]
    return None


def inbox_entry(data: dict) -> tuple[int, str, int | None]:
    """Return (update_id, payload, user id) as the inbox keeps an update that arrived as `data` (masked
    already): its JSON and whose it is."""
    return int(data["update_id"]), json.dumps(data, ensure_ascii=False), update_key(data)


class Inbox:
    """The transport store's inbox, plus the ids this process knows are new (they need no look-up before handling)."""

    def __init__(self, store: TransportStore, clock: Callable[[], datetime] = utc_now) -> None:
        self.store = store
        self.clock = clock
        # Recorded for the first time, or replayed: certainly not handled yet, unless another machine on the
        # same database handled it (then the inbox is always asked).
        self._new: set[int] = set()
        self.shared = store.on_postgres
        # time.monotonic() when each update recorded for the first time arrived, until it is handled: the start of
        # its turn's first-words latency (metrics.py).
        self._arrived: dict[int, float] = {}

    async def record(self, updates: Sequence[dict]) -> None:
        """Write the updates down as they arrived (secrets masked), before Telegram is told they arrived."""
        entries = [inbox_entry(data) for data in updates]
        arrived = time.monotonic()
        new = await self.store.record_updates(entries, self.clock())
        self._new |= new
        for update_id in new:
            self._arrived[update_id] = arrived
        while len(self._arrived) > MAX_ARRIVALS:
            del self._arrived[next(iter(self._arrived))]

    def arrived(self, update_id: int) -> float | None:
        """Return time.monotonic() when the update reached this process, or None: replayed after a restart, handled
        already, or recorded by another machine."""
        return self._arrived.get(update_id)

    async def should_handle(self, update_id: int, handled: bool | None = None) -> bool:
        """False for an update whose handlers already ran (delivered again, or replayed and delivered).

        `handled`: what the inbox said of it just now, under the user's lock (None: ask it).
        """
        if update_id in self._new:
            self._new.discard(update_id)
            if not self.shared:
                return True
        if handled is None:
            handled = await self.store.was_handled(update_id)
        if handled:
            self._arrived.pop(update_id, None)
        return not handled

    async def handled(self, update_id: int) -> None:
        """Mark the update handled; its payload is dropped."""
        self._arrived.pop(update_id, None)
        await self.store.mark_handled(update_id, self.clock())

    async def earlier(self, key: int, update_id: int, bot: ExtBot) -> tuple[list[Update], bool]:
        """Return the user's unhandled updates older than `update_id` (another machine recorded them), oldest first,
        and whether `update_id` itself was handled."""
        payloads, handled = await self.store.earlier_unhandled(key, update_id)
        updates = [parsed(payload, bot) for payload in payloads]
        return [update for update in updates if update is not None], handled

    async def replay(self, app: Application, received_before: datetime | None = None) -> int:
        """Queue the updates recorded before a crash or stop but never handled; return how many.

        With `received_before`, only those older than that: on PostgreSQL a machine that died after
        answering Telegram leaves its updates to the others, which look for them now and then.
        """
        queued = 0
        for payload in await self.store.unhandled_updates(received_before):
            update = parsed(payload, app.bot)
            if update is None:
                continue
            self._new.add(update.update_id)
            await app.update_queue.put(update)
            queued += 1
        if queued:
            log.info("replaying %d update(s) received but not handled", queued)
        return queued


def parsed(payload: str, bot: ExtBot) -> Update | None:
    """Return the update an inbox payload holds, or None (logged) when it cannot be read."""
    try:
        return Update.de_json(json.loads(payload), bot)
    except Exception as error:  # noqa: BLE001 - an unreadable payload is skipped, never replayed forever
        log.warning("skipped an unreadable update in the inbox (%s)", type(error).__name__)
        return None


class PollRequest(BotApiRequest):
    """getUpdates' transport (one connection): each answer's updates are masked before python-telegram-bot reads
    them, and kept as Telegram sent them, so that the inbox records that, not a re-serialised copy."""

    __slots__ = ("batch",)

    def __init__(self) -> None:
        super().__init__(connection_pool_size=1)  # python-telegram-bot's own for polling
        self.batch: list[Any] = []  # the last getUpdates answer's updates, masked

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: Any = BaseRequest.DEFAULT_NONE, write_timeout: Any = BaseRequest.DEFAULT_NONE,
                         connect_timeout: Any = BaseRequest.DEFAULT_NONE,
                         pool_timeout: Any = BaseRequest.DEFAULT_NONE) -> tuple[int, bytes]:
        """Return the status and body of one getUpdates request, its updates masked (and kept in `batch`).

        python-telegram-bot reads the body again from the bytes returned; a batch is a few updates, so the second
        parse costs little, and it is the library's public way in (its `post` is final)."""
        status, payload = await super().do_request(url, method, request_data, read_timeout, write_timeout,
                                                   connect_timeout, pool_timeout)
        if status != 200:
            return status, payload
        answer = self.parse_json_payload(payload)
        if not isinstance(answer.get("result"), list):
            return status, payload
        answer["result"] = masked(answer["result"])
        self.batch = list(answer["result"])
        return status, dumps(answer)


class InboxBot(ExtBot):
    """The bot, with each batch of polled updates written to the inbox before it is returned."""

    __slots__ = ("_inbox", "_poll", "_polling")

    def __init__(self, inbox: Inbox, poll: PollRequest, **kwargs: Any) -> None:
        """`inbox`: where polled updates are recorded; `poll`: the transport getUpdates goes through; the rest are
        ExtBot's arguments."""
        super().__init__(get_updates_request=poll, **kwargs)
        # python-telegram-bot freezes the bot's public attributes once it is built; these names are its own.
        self._inbox = inbox
        self._poll = poll
        self._polling = PollingOutage(0.0)

    @property
    def polling(self) -> PollingOutage:
        """getUpdates failing: logged once, when it starts and ends."""
        return self._polling

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """Fetch updates and record them; if they cannot be recorded, Telegram is not told they arrived."""
        self._poll.batch = []
        try:
            updates = await super().get_updates(*args, **kwargs)
        except NetworkError as error:
            if unreachable(error) and not isinstance(error, TimedOut):  # a timeout is retried at once, unlogged
                self._polling.failed(error)
            raise
        except Exception:  # noqa: BLE001 - whatever the library's parse raised, the batch is read one by one
            # python-telegram-bot could not read one of the batch (a field it requires is missing, a string where
            # an object belongs). Left alone, its polling loop would ask for the same batch forever and hear
            # nothing else.
            self._poll.batch = [data for data in self._poll.batch if keepable(data)]
            updates = tuple(readable(data, self) for data in self._poll.batch)
        self._polling.ended()
        if updates:
            try:
                await self._inbox.record(self._poll.batch)
            except database_errors() as error:
                # Raised as a network error, the polling loop retries with the same offset.
                raise NetworkError(f"could not record updates in the database: {error}") from error
        return updates


class PollingOutage(Outage):
    """getUpdates failing: python-telegram-bot backs off (up to 30 s) and tries again; this says so once."""

    STARTED = "Telegram does not answer getUpdates ({error}); polling backs off and keeps trying"
    ENDED = "Telegram answers getUpdates again after {seconds:.0f} s ({failures} failed meanwhile)"


def readable(data: dict, bot: ExtBot) -> Update:
    """Return the update, or an empty one with its id (so that polling moves past it, and the inbox marks it
    handled) if it cannot be read."""
    return read_update(data, bot) or Update(update_id=int(data["update_id"]))


def read_update(data: dict, bot: ExtBot) -> Update | None:
    """Return the update python-telegram-bot reads from `data`, or None when it cannot: one warning, no
    traceback, nothing of its content."""
    try:
        return Update.de_json(data, bot)
    except Exception as error:  # noqa: BLE001 - any shape the library cannot read is skipped the same way
        log.warning("update %s could not be read and is skipped (%s)", data.get("update_id"), type(error).__name__)
        return None


def update_id_of(data: Any) -> int | None:
    """Return the update_id of an update's JSON when it is an object with an id the inbox can keep (a whole
    number from 0 to 2**63 - 1: not 1e400, 2**70, -1 or "5"); None otherwise."""
    update_id = data.get("update_id") if isinstance(data, dict) else None
    if isinstance(update_id, bool) or not isinstance(update_id, int) or not 0 <= update_id <= MAX_UPDATE_ID:
        return None
    return update_id


def keepable(data: Any) -> bool:
    """True for a polled update the inbox can keep; another is dropped with a warning (Telegram sends none)."""
    if update_id_of(data) is not None:
        return True
    log.warning("an update without a usable update_id is skipped")
    return False
