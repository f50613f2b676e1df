import asyncio
import logging
import time

import openai
import pytest

from llm.client import ChatModel, ModelUnavailable, backoff_delay, is_retryable
from transport.logs import RedactSecrets, WithholdUpdateData

MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi"}]


@pytest.fixture
def server(model):
    return model


@pytest.fixture
async def chat(server):
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    yield ChatModel(client, "gpt-4o-mini", attempt_timeout=0.5, budget=2.0, backoff=0.02)
    await client.close()


def test_backoff_doubles_with_a_little_jitter_and_is_capped():
    for attempt, base in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (10, 8.0)]:
        assert base <= backoff_delay(attempt, 1.0) <= base * 1.25


def test_backoff_honours_retry_after():
    assert backoff_delay(0, 1.0, retry_after=7.0) == 7.0
    assert backoff_delay(3, 1.0, retry_after=0.0) == 0.0


def test_what_is_retried():
    assert is_retryable(asyncio.TimeoutError())
    assert not is_retryable(ValueError("bug"))


async def test_a_completion(chat, server):
    assert await chat.complete(MESSAGES) == "echo: hi"
    assert server.requests[0]["messages"] == MESSAGES


async def test_5xx_and_429_are_retried_until_an_answer(chat, server):
    server.fail_next(500)
    server.fail_next(429, retry_after=0.1)
    server.fail_next(503)
    assert await chat.complete(MESSAGES) == "echo: hi"
    assert len(server.requests) == 4


async def test_a_hanging_request_times_out_and_is_retried(chat, server):
    server.hang_next()
    started = time.monotonic()
    assert await chat.complete(MESSAGES) == "echo: hi"
    assert 0.5 <= time.monotonic() - started < 1.5


async def test_an_outage_ends_within_the_budget(chat, server):
    server.fail_always(502)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    assert time.monotonic() - started <= 2.5
    assert len(server.requests) >= 3


async def test_a_bad_key_is_not_retried(server):
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-wrong", max_retries=0)
    with pytest.raises(ModelUnavailable, match="401"):
        await ChatModel(client, "m", backoff=0.01).complete(MESSAGES)
    await client.close()
    assert len(server.requests) == 1


async def test_once_stopping_no_new_attempt_starts(chat, server):
    server.fail_always(500)
    chat.stopping.set()
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    assert len(server.requests) == 1


@pytest.mark.parametrize("blank", ["", "   ", "\n\x00\x00 "])
async def test_an_empty_answer_is_not_passed_on(chat, server, blank):
    server.reply = lambda body: blank
    with pytest.raises(ModelUnavailable, match="empty"):
        await chat.complete(MESSAGES)


def test_secrets_are_redacted_from_log_records():
    url = "https://x/bot123:SECRET-TOKEN/getMe"
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, "POST %s", (url,), None)
    RedactSecrets("123:SECRET-TOKEN", "sk-abcdefghij").filter(record)
    assert record.getMessage() == "POST https://x/bot[redacted]/getMe"


def test_the_librarys_dump_of_unreadable_updates_is_dropped_the_inbox_warns_for_each():
    record = logging.LogRecord("telegram.ext.ExtBot", logging.CRITICAL, __file__, 1,
                               "Error while parsing updates! Received data was %r", ([{"text": "my secret"}],),
                               (ValueError, ValueError("x"), None))
    assert not WithholdUpdateData().filter(record)
    other = logging.LogRecord("telegram.ext.ExtBot", logging.WARNING, __file__, 1, "something else", (), None)
    assert WithholdUpdateData().filter(other)
