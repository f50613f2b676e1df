"""Whatever JSON arrives at the webhook with the right secret, the answer is 200 or 400, never 500.

The real bot runs in webhook mode (serve_webhook, as bot.py runs it) against the Bot API and OpenAI doubles;
one bot serves all of a test's examples (pytest-asyncio runs the async `@given` test on the fixture's event
loop, see tests/test_hostile_input.py). An update the bot answers 200 is written to the inbox and queued: the
test waits until the Application has processed it (handled, or skipped as unreadable) and requires it marked
handled. 400 is only for a body whose update_id the inbox cannot keep. Each refused or skipped update logs
one WARNING of the bot's own, without a traceback. After the last example an ordinary update is answered.
"""

from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
import pytest
from aiohttp.log import server_logger
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from telegram.ext import Application

from bot import build_application, serve_webhook
from tests.harness import ProcessedUpdates, make_config, wait_healthy
from tests.pg import free_port
from tests.timeouts import scaled
from tests.webhook_bots import text_update

ANN = 1001
SECRET = "s3cret-token-for-property_0123"
HOOK = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
LAST = 3_999_999_999  # the ordinary update after the barrage; no generated id reaches it

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                    max_leaves=20)
ABSURD = st.sampled_from([2**63 - 1, 2**63, 2**70, -1, -(2**63) - 1, 0, 1.5, float("inf"), "5", True, None])
VALID = st.integers(min_value=1, max_value=2**31)
IDS = st.one_of(VALID, ABSURD, st.integers(), JSON)
ANN_USER = {"id": ANN, "is_bot": False, "first_name": "Ann"}
USER = st.one_of(st.just(ANN_USER), st.fixed_dictionaries(
    {"id": IDS, "is_bot": st.one_of(st.booleans(), JSON), "first_name": st.one_of(st.text(max_size=10), JSON)}))
CHAT = st.one_of(st.just({"id": ANN, "type": "private", "first_name": "Ann"}), st.fixed_dictionaries(
    {"id": IDS, "type": st.one_of(st.sampled_from(["private", "group", "channel"]), JSON)}))
# Mostly the shape of a message with a field or two of garbage, so that the library gets far into reading it.
MESSAGE = st.one_of(JSON, st.fixed_dictionaries(
    {"message_id": IDS, "date": st.one_of(st.integers(min_value=0, max_value=2**31), st.integers(), st.floats(), JSON),
     "chat": st.one_of(CHAT, CHAT, JSON)},
    optional={"from": st.one_of(USER, USER, JSON), "text": st.one_of(st.text(max_size=30), JSON), "entities": JSON,
              "reply_to_message": JSON, "photo": JSON, "voice": JSON, "caption": JSON},
))
UPDATE = st.fixed_dictionaries(  # an id the inbox keeps (the absurd ones are in NAMED and in ANY_JSON)
    {"update_id": VALID},
    optional={"message": st.one_of(MESSAGE, MESSAGE, JSON), "edited_message": MESSAGE, "poll": JSON,
              "my_chat_member": JSON,
              "callback_query": st.one_of(JSON, st.fixed_dictionaries({"id": JSON, "from": USER, "data": JSON}))},
)
ANY_JSON = st.one_of(JSON, st.fixed_dictionaries({"update_id": IDS}, optional={"message": JSON, "poll": JSON}))

# Bodies a hostile test sent (json.dumps cannot write 1e400 or a lone surrogate), with the answer each must get.
NAMED = [
    (b'{"update_id": 1e400}', 400), (b'{"update_id": %d}' % 2**70, 400), (b'{"update_id": -1}', 400),
    (b'{"update_id": "17"}', 400), (b'{"update_id": 17.0}', 400), (b'"an update"', 400), (b"[1, 2]", 400),
    (b"", 400), (b"\xff\xfe", 400), (b"[" * 100_000 + b"]" * 100_000, 400),
    (b'{"update_id": 21, "message": "a string"}', 200), (b'{"update_id": 22, "message": [1, "x"]}', 200),
    (b'{"update_id": 23, "message": 42}', 200), (b'{"update_id": 24, "callback_query": "x"}', 200),
    (b'{"update_id": 25, "message": {"message_id": 1, "date": 1e400, "chat": {"id": 1, "type": "private"}}}', 200),
    (b'{"update_id": 26, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"},'
     b' "from": {"id": %d, "is_bot": false, "first_name": "X"}, "text": "hi"}}' % 2**70, 200),
    (b'{"update_id": 27, "message": {"text": "\\ud800"}}', 200),
    (b'{"update_id": 28, "message": {"text": "\\u0000"}}', 200),
    (b'{"update_id": 29, "message": ' + b"[" * 200 + b"]" * 200 + b"}", 200),
    (b'{"update_id": 30, "message": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", 400),  # past what Python parses
    (b'{"update_id": 31, "poll": {"id": "1"}}', 200),
]


class Webhook:
    """Posts a body to the running bot's webhook: (status, the bot's own log records and the web server's meanwhile)."""

    def __init__(self, app: Application, http: aiohttp.ClientSession, port: int, caplog) -> None:
        self.app, self.http, self.port, self.caplog = app, http, port, caplog
        self.processed = ProcessedUpdates(app)

    async def __call__(self, body: bytes) -> tuple[int, list[logging.LogRecord]]:
        self.caplog.clear()
        async with self.http.post(f"http://127.0.0.1:{self.port}/tg/hook", data=body, headers=HOOK) as response:
            status = response.status
        if status == 200:
            update_id = json.loads(body)["update_id"]
            await self.processed.wait(update_id)
            assert await self.app.bot_data.transport.was_handled(update_id), "not marked handled"
        # The bot's own records and the server's faults (aiohttp's "Error handling request", on the logger aiohttp.log
        # names), not its access log's line about each request (a WARNING for a 4xx, as docs/behaviour.md says);
        # nor a library's notes that a loaded machine can bring (APScheduler's "missed by").
        ours = ("handlers", "transport", server_logger.name)
        return status, [r for r in self.caplog.records if r.name.startswith(ours)]


@pytest.fixture
async def webhook(telegram, model, tmp_path, caplog):
    """The running bot's webhook, to post bodies to (Webhook)."""
    caplog.set_level(logging.INFO)
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", webhook_url="https://bot.example.com/tg/hook",
                         webhook_secret=SECRET, port=port, allowed_user_ids=frozenset({ANN}), telegram_max_rate=0)
    telegram.push_text(ANN, "so the double knows this chat")
    app = await build_application(config)
    task = asyncio.create_task(serve_webhook(app, config))
    await telegram.wait_for_call("setWebhook")
    http = aiohttp.ClientSession()
    assert await wait_healthy(http, port)
    post = Webhook(app, http, port, caplog)
    try:
        yield post
        good, before = text_update(LAST, ANN, "still answering?", first_name="Ann"), len(telegram.sent_to(ANN))
        assert (await post(json.dumps(good).encode()))[0] == 200
        replies = await telegram.wait_for_sent(ANN, before + 1)
        assert replies[-1]["visible_text"] == "echo: still answering?"
    finally:
        await http.close()
        app.bot_data.stop_requested.set()
        await asyncio.wait_for(task, scaled(15))


def assert_quiet(records: list[logging.LogRecord], refused: bool) -> None:
    """No traceback and nothing at ERROR; one WARNING when the update was refused or skipped, else at most one."""
    assert all(r.exc_info is None and r.levelno < logging.ERROR for r in records), [r.getMessage() for r in records]
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 if refused else len(warnings) <= 1, warnings


async def test_the_named_bad_bodies_get_400_or_200_skipped_with_one_warning(webhook):
    for body, expected in NAMED:
        status, records = await webhook(body)
        assert status == expected, body[:80]
        assert_quiet(records, refused=True)


async def test_a_fault_in_the_handler_is_among_the_records_and_fails_the_quiet_check(webhook, monkeypatch):
    # What the checks above rely on: were the webhook's handler to raise, its traceback would be in the records
    # (logged by the server, not by the bot), and assert_quiet would fail.
    async def broken(updates: list) -> None:
        raise RuntimeError("a fault that is not the database's")

    monkeypatch.setattr(webhook.app.bot_data.inbox, "record", broken)
    status, records = await webhook(body_of({"update_id": 41}))
    monkeypatch.undo()
    assert status == 500
    assert any(r.levelno == logging.ERROR and r.exc_info and r.exc_info[0] is RuntimeError for r in records), records
    with pytest.raises(AssertionError):
        assert_quiet(records, refused=False)


SETTINGS = settings(deadline=None, derandomize=True, database=None,  # one bot for all examples, on purpose
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def body_of(data: object) -> bytes:
    return json.dumps(data).encode()  # NaN and Infinity as JavaScript writes them: Python's JSON reads them


@settings(SETTINGS, max_examples=100)
@given(data=ANY_JSON)
async def test_any_json_gets_200_or_400_never_500(webhook, data):
    status, records = await webhook(body_of(data))
    assert status in (200, 400), (status, data)
    assert_quiet(records, refused=status == 400)


@settings(SETTINGS, max_examples=100)
@given(update=UPDATE)
async def test_an_update_with_garbage_fields_gets_200_and_is_handled_or_skipped(webhook, update):
    status, records = await webhook(body_of(update))
    assert status == 200, update
    assert_quiet(records, refused=False)
