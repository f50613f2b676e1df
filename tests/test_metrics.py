"""The metrics object (metrics.py), the kinds of model failure it counts, the token split, and /metrics' token check."""

from __future__ import annotations

import asyncio
import logging
import time

import httpx
import openai
import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from llm.client import ChatModel, ModelUnavailable, StreamBroken, TooLong, failure_kind, split_usage
from llm.errors import error_kind
from llm.tokens import estimate_tokens, message_tokens
from metrics import Metrics, PrometheusMetrics
from transport.web import bearer_allows

MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi"}]
REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


def samples(text: bytes | str) -> dict[tuple[str, frozenset], float]:
    """Return every sample of an exposition, by its name and labels: what a scraper reads."""
    text = text.decode() if isinstance(text, bytes) else text
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(found: dict, name: str, **labels: str) -> float:
    return found[(name, frozenset(labels.items()))]


async def scrape(metrics: Metrics) -> dict[tuple[str, frozenset], float]:
    return samples(await metrics.exposition())


def status_error(status: int) -> openai.APIStatusError:
    return openai.APIStatusError("failed", response=httpx.Response(status, request=REQUEST), body=None)


async def test_each_method_shows_in_the_exposition_under_its_name_and_labels():
    metrics = PrometheusMetrics(CollectorRegistry())
    for outcome in ("answered", "answered", "limited", "model_failure"):
        metrics.turn(outcome)
    metrics.tokens("gpt-4o-mini", 120, 30)
    metrics.tokens("gpt-4o-mini", 80, 10)
    metrics.tokens("small", 5, 1)
    metrics.model_error("gpt-4o-mini", "server_error", retried=True)
    metrics.model_error("gpt-4o-mini", "timeout", retried=False)
    metrics.reminder("sent", late=0.4)
    metrics.reminder("sent", late=90.0)
    metrics.reminder("missed")
    metrics.wrote_first("birthday")
    metrics.memory_written("rule", 3)
    metrics.memory_written("page")
    metrics.marked_wrong()
    metrics.memories_used(4)
    found = await scrape(metrics)
    assert value(found, "companion_turns_total", outcome="answered") == 2
    assert value(found, "companion_turns_total", outcome="limited") == 1
    assert value(found, "companion_turns_total", outcome="forget") == 0  # every fixed value shows from the start
    assert value(found, "companion_model_tokens_total", model="gpt-4o-mini", kind="prompt") == 200
    assert value(found, "companion_model_tokens_total", model="gpt-4o-mini", kind="completion") == 40
    assert value(found, "companion_model_tokens_total", model="small", kind="prompt") == 5
    assert value(found, "companion_model_retries_total", model="gpt-4o-mini", kind="server_error") == 1
    assert value(found, "companion_model_errors_total", model="gpt-4o-mini", kind="timeout") == 1
    assert ("companion_model_errors_total", frozenset({("model", "gpt-4o-mini"), ("kind", "server_error")})) \
        not in found
    assert value(found, "companion_reminders_total", outcome="sent") == 2
    assert value(found, "companion_reminders_total", outcome="missed") == 1
    assert value(found, "companion_reminder_lateness_seconds_count") == 2  # the missed one has no lateness
    assert value(found, "companion_reminder_lateness_seconds_bucket", le="0.5") == 1
    assert value(found, "companion_reminder_lateness_seconds_bucket", le="60.0") == 1
    assert value(found, "companion_reminder_lateness_seconds_sum") == pytest.approx(90.4)
    assert value(found, "companion_written_first_total", kind="birthday") == 1
    assert value(found, "companion_written_first_total", kind="checkin") == 0
    assert value(found, "companion_memory_writes_total", source="rule") == 3
    assert value(found, "companion_memory_writes_total", source="page") == 1
    assert value(found, "companion_memory_writes_total", source="llm") == 0
    assert value(found, "companion_marked_wrong_total") == 1
    assert value(found, "companion_memories_used_bucket", le="3.0") == 0
    assert value(found, "companion_memories_used_bucket", le="5.0") == 1


async def test_a_label_value_outside_its_list_is_counted_as_other():
    metrics = PrometheusMetrics(CollectorRegistry())
    metrics.turn("user 123456")
    metrics.memory_written("somewhere", 2)
    metrics.reminder("exploded")
    metrics.model_error("m", "weird", retried=False)
    found = await scrape(metrics)
    assert value(found, "companion_turns_total", outcome="other") == 1
    assert value(found, "companion_memory_writes_total", source="other") == 2
    assert value(found, "companion_reminders_total", outcome="other") == 1
    assert value(found, "companion_model_errors_total", model="m", kind="other") == 1
    assert not any("123456" in str(labels) for _, labels in found)


async def test_first_words_are_observed_once_from_arrival_and_not_at_all_when_arrival_is_unknown():
    metrics = PrometheusMetrics(CollectorRegistry())
    shown = metrics.first_words(time.monotonic() - 1.2)
    shown()
    shown()  # the reply after its first draft: already observed
    metrics.first_words(None)()
    found = await scrape(metrics)
    assert value(found, "companion_first_words_seconds_count") == 1
    assert 1.2 <= value(found, "companion_first_words_seconds_sum") < 3.0
    assert value(found, "companion_first_words_seconds_bucket", le="1.0") == 0
    assert value(found, "companion_first_words_seconds_bucket", le="5.0") == 1


async def test_the_inbox_is_counted_at_each_scrape_and_a_failed_count_costs_nothing_else(caplog):
    waiting = [3]

    async def count() -> int:
        if not waiting:
            raise OSError("database away")
        return waiting[0]

    metrics = PrometheusMetrics(CollectorRegistry(), inbox_waiting=count)
    assert value(await scrape(metrics), "companion_inbox_waiting") == 3
    waiting[0] = 1
    assert value(await scrape(metrics), "companion_inbox_waiting") == 1
    waiting.clear()
    metrics.turn("answered")
    with caplog.at_level(logging.WARNING, logger="metrics"):
        found = await scrape(metrics)
    assert value(found, "companion_inbox_waiting") == 1  # the last count stands
    assert value(found, "companion_turns_total", outcome="answered") == 1
    assert "OSError" in caplog.text and "database away" not in caplog.text


async def test_two_bots_in_one_process_keep_their_metrics_apart():
    first, second = PrometheusMetrics(CollectorRegistry()), PrometheusMetrics(CollectorRegistry())
    first.turn("answered")
    assert value(await scrape(first), "companion_turns_total", outcome="answered") == 1
    assert value(await scrape(second), "companion_turns_total", outcome="answered") == 0


async def test_the_process_own_figures_come_along():
    found = await scrape(PrometheusMetrics(CollectorRegistry()))
    assert value(found, "process_resident_memory_bytes") > 0


async def test_metrics_off_record_nothing_and_serve_nothing():
    metrics = Metrics()
    metrics.turn("answered")
    metrics.tokens("m", 1, 1)
    metrics.first_words(0.0)()
    metrics.memory_written("rule", 2)
    metrics.marked_wrong()
    metrics.memories_used(3)
    assert await metrics.exposition() == b""
    assert not metrics.records and PrometheusMetrics(CollectorRegistry()).records


@pytest.mark.parametrize("header, allowed", [
    ("Bearer right-token-0123456789", True),
    ("bearer right-token-0123456789", True),  # the scheme is case-insensitive (RFC 7235)
    ("  Bearer   right-token-0123456789 ", True),
    ("Bearer right-token-012345678", False),  # a prefix of it
    ("Bearer right-token-01234567890", False),
    ("Bearer wrong-token-0123456789", False),
    ("Basic right-token-0123456789", False),
    ("right-token-0123456789", False),
    ("Bearer", False),
    ("", False),
    ("Bearer ríght-token-0123456789", False),  # not ASCII, and not the token
    ("Bearer right-token-0123456789\udcff", False),  # a byte that is no UTF-8, as aiohttp reads it: no raise
    ("Bearer \udcc3\udca9", False),
])
def test_the_bearer_token_check(header, allowed):
    assert bearer_allows(header, "right-token-0123456789") is allowed


@pytest.mark.parametrize("error, kind", [
    (openai.APITimeoutError(request=REQUEST), "timeout"),
    (asyncio.TimeoutError(), "timeout"),
    (openai.APIConnectionError(request=REQUEST), "connection"),
    (httpx.RemoteProtocolError("peer closed"), "connection"),
    (status_error(429), "rate_limited"),
    (status_error(500), "server_error"),
    (status_error(503), "server_error"),
    (status_error(401), "auth"),
    (status_error(403), "auth"),
    (status_error(400), "refused"),
    (status_error(422), "refused"),
    (status_error(404), "refused"),
    (openai.APIError("error event", request=REQUEST, body=None), "stream_broken"),
    (StreamBroken("cut"), "stream_broken"),
    (TooLong("past the context"), "too_long"),
    (ValueError("a bug"), "other"),
])
def test_each_failure_has_its_kind(error, kind):
    assert failure_kind(error) == kind


def test_error_kind_leaves_the_client_own_failures_as_other():
    assert error_kind(StreamBroken("cut")) == "other"  # llm/client.py's failure_kind names them


def test_usage_is_split_into_prompt_and_completion_and_estimated_where_missing():
    usage = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    assert split_usage(usage, MESSAGES, "hello") == (120, 30)
    assert split_usage(None, MESSAGES, "x" * 40) == (message_tokens(MESSAGES), estimate_tokens("x" * 40))
    assert split_usage(usage, MESSAGES, "hello") != split_usage(None, MESSAGES, "hello")
    assert split_usage({"prompt_tokens": -1, "completion_tokens": "30"}, MESSAGES, "x" * 40) == split_usage(
        None, MESSAGES, "x" * 40)  # what is no count is estimated


@pytest.fixture
async def chat(model):
    client = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
    metrics = PrometheusMetrics(CollectorRegistry())
    yield ChatModel(client, "gpt-4o-mini", attempt_timeout=0.5, budget=2.0, backoff=0.02, metrics=metrics), metrics
    await client.close()


async def test_the_chat_model_counts_the_tokens_the_server_reports(chat, model):
    chat_model, metrics = chat
    await chat_model.complete(MESSAGES)
    await chat_model.complete(MESSAGES, on_text=lambda text: None)  # streamed: the usage comes in the last chunk
    found = await scrape(metrics)
    assert len(model.usages) == 2
    assert value(found, "companion_model_tokens_total", model="gpt-4o-mini", kind="prompt") == \
        sum(usage["prompt_tokens"] for usage in model.usages)
    assert value(found, "companion_model_tokens_total", model="gpt-4o-mini", kind="completion") == \
        sum(usage["completion_tokens"] for usage in model.usages)


async def test_the_chat_model_counts_retries_and_the_failure_it_gives_up_on(chat, model):
    chat_model, metrics = chat
    model.fail_next(503)
    assert await chat_model.complete(MESSAGES) == "echo: hi"
    model.fail_next(400, message="bad request")
    with pytest.raises(ModelUnavailable):
        await chat_model.complete(MESSAGES)
    found = await scrape(metrics)
    assert value(found, "companion_model_retries_total", model="gpt-4o-mini", kind="server_error") == 1
    assert value(found, "companion_model_errors_total", model="gpt-4o-mini", kind="refused") == 1
    assert ("companion_model_errors_total", frozenset({("model", "gpt-4o-mini"), ("kind", "server_error")})) \
        not in found


def test_a_bot_without_metrics_never_loads_the_client():
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import sys, bot\nfrom metrics import Metrics\nMetrics().memories_used(3)\n"
             "print('prometheus_client' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout.strip() == "False"  # about 1.5 MiB resident a bot with METRICS=off does not pay
