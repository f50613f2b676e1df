"""Daily limits: the pure rules (memory/usage.py), their settings, the ledger (the usage meter), token counting in
the model client, and the texts of /usage and /stats."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import openai
import pytest

from config import ConfigError, load_config
from handlers.usage_commands import human_size, limit_line, of_limit, stats_text, time_left
from llm.client import ChatModel, ModelUnavailable, Tally
from llm.tokens import estimate_tokens, message_tokens
from memory.store.memory_store import Store
from memory.store.meter import Stats, UsageMeter
from memory.usage import Limits, Spent, day_start, next_reset, notice_claim, reached, voice_reached
from services.companion import Limited
from services.limits import limits_for

UTC = timezone.utc
MOSCOW = ZoneInfo("Europe/Moscow")
SANTIAGO = ZoneInfo("America/Santiago")  # skips midnight when summer time starts
TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi there"}]


# ----- the rules -----

@pytest.mark.parametrize(
    ("spent", "limits", "expected"),
    [
        (Spent(messages=2), Limits(messages=2), None),  # the n-th message is answered
        (Spent(messages=3), Limits(messages=2), "messages"),  # the n+1-th is not
        (Spent(messages=10_000, tokens=10**9), Limits(), None),  # 0: no limit
        (Spent(tokens=99), Limits(tokens=100), None),
        (Spent(tokens=100), Limits(tokens=100), "tokens"),  # the message that crossed it was answered
        (Spent(messages=5, tokens=500), Limits(messages=2, tokens=100), "messages"),
        (Spent(voice_seconds=10_000), Limits(voice_seconds=1), None),  # voice never stops typing
    ],
)
def test_which_limit_is_reached(spent, limits, expected):
    assert reached(spent, limits) == expected


def test_voice_is_used_up_once_the_seconds_reach_the_limit():
    assert not voice_reached(Spent(voice_seconds=59.5), Limits(voice_seconds=60))
    assert voice_reached(Spent(voice_seconds=60), Limits(voice_seconds=60))
    assert not voice_reached(Spent(voice_seconds=10**6), Limits(messages=3))


def test_limits_are_true_only_when_one_is_set():
    assert not Limits() and Limits(tokens=1) and Limits(voice_seconds=1)


def test_the_day_starts_at_midnight_in_the_users_zone_not_in_utc():
    now = datetime(2026, 11, 30, 22, 30, tzinfo=UTC)  # 01:30 on Dec 1 in Moscow
    assert day_start(now, MOSCOW) == datetime(2026, 11, 30, 21, 0, tzinfo=UTC)
    assert day_start(now, ZoneInfo("UTC")) == datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
    assert day_start(now, ZoneInfo("Pacific/Kiritimati")) == datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # UTC+14
    assert day_start(now, ZoneInfo("Asia/Kathmandu")).astimezone(ZoneInfo("Asia/Kathmandu")).time().minute == 0


def test_next_reset_is_the_next_local_midnight_even_at_midnight_itself():
    assert next_reset(datetime(2026, 11, 30, 20, 59, 59, tzinfo=UTC), MOSCOW) == datetime(2026, 12, 1, tzinfo=MOSCOW)
    assert next_reset(datetime(2026, 11, 30, 21, 0, tzinfo=UTC), MOSCOW) == datetime(2026, 12, 2, tzinfo=MOSCOW)


def test_a_day_whose_midnight_is_skipped_starts_at_its_first_moment():
    # Chile moves its clocks from 00:00 to 01:00 on 2026-09-06: that day has no midnight.
    noon = datetime(2026, 9, 6, 12, 0, tzinfo=SANTIAGO)
    start = day_start(noon, SANTIAGO)
    assert start <= noon and start.astimezone(SANTIAGO).date() == noon.date()
    assert (start - timedelta(seconds=1)).astimezone(SANTIAGO).date() == datetime(2026, 9, 5).date()
    assert next_reset(datetime(2026, 9, 5, 23, 0, tzinfo=SANTIAGO), SANTIAGO).astimezone(UTC) == start


def test_a_limit_is_told_once_a_day_each():
    assert notice_claim(None, "2026-11-30", "messages") == "2026-11-30 messages"
    assert notice_claim("2026-11-30 messages", "2026-11-30", "messages") is None
    assert notice_claim("2026-11-30 messages", "2026-11-30", "voice_seconds") == "2026-11-30 messages,voice_seconds"
    assert notice_claim("2026-11-30 messages,voice_seconds", "2026-11-30", "voice_seconds") is None
    assert notice_claim("2026-11-30 messages,voice_seconds", "2026-12-01", "messages") == "2026-12-01 messages"
    assert notice_claim("garbage", "2026-12-01", "tokens") == "2026-12-01 tokens"
    assert notice_claim("", "2026-12-01", "tokens") == "2026-12-01 tokens"


# ----- settings -----

def test_limits_and_admins_are_read_from_the_environment():
    config = load_config({
        "TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-x", "DAILY_MESSAGE_LIMIT": "50",
        "DAILY_TOKEN_LIMIT": "200000", "DAILY_VOICE_SECONDS": "600", "ADMIN_USER_IDS": " 7, 42 ",
        "ALLOWED_USER_IDS": "9",
    })
    assert (config.daily_message_limit, config.daily_token_limit, config.daily_voice_seconds) == (50, 200_000, 600)
    assert config.admin_user_ids == frozenset({7, 42})
    assert limits_for(config, 9) == Limits(50, 200_000, 600) and limits_for(config, 42) == Limits()
    assert config.allows(42) and config.allows(9) and not config.allows(8)  # admins may always talk


def test_without_settings_there_are_no_limits_and_no_admins():
    config = load_config({"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-x"})
    assert limits_for(config, 1) == Limits() and config.admin_user_ids == frozenset()


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [("DAILY_MESSAGE_LIMIT", "-1", "between"), ("DAILY_TOKEN_LIMIT", "lots", "whole number"),
     ("DAILY_VOICE_SECONDS", "1.5", "whole number"), ("ADMIN_USER_IDS", "7,@boss", "ADMIN_USER_IDS")],
)
def test_a_bad_limit_setting_is_one_clear_error(name, value, says):
    with pytest.raises(ConfigError, match=says) as error:
        load_config({"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-x", name: value})
    assert name in str(error.value)


# ----- token counting in the model client -----

def test_a_tally_takes_the_servers_total_or_estimates_it():
    tally = Tally()
    tally.add({"total_tokens": 42}, MESSAGES, "hello")
    assert (tally.tokens, tally.estimated) == (42, False)
    tally.add(None, MESSAGES, "hello")
    assert tally.tokens == 42 + message_tokens(MESSAGES) + 2 and tally.estimated
    tally.add({"total_tokens": None}, [{"role": "user", "content": [
        {"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:"}}]}], "")
    assert tally.tokens == 42 + message_tokens(MESSAGES) + 2 + 2 + 1


@pytest.fixture
async def chat(model):
    client = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
    yield ChatModel(client, "gpt-4o-mini", attempt_timeout=0.5, budget=1.0, backoff=0.02)
    await client.close()


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize("reported", [True, False])
async def test_the_client_counts_the_tokens_of_every_answer(model, chat, streamed, reported):
    model.report_usage = reported
    tally = Tally()
    answer = await chat.complete(MESSAGES, on_text=(lambda _text: None) if streamed else None, tally=tally)
    await chat.complete(MESSAGES, tally=tally)
    by_double = 2 * (len("be kind") // 4 + 1 + len("hi there") // 4 + 1 + len(answer) // 4 + 1)
    if reported:
        assert (tally.tokens, tally.estimated) == (by_double, False)
    else:
        assert tally.estimated and tally.tokens == 2 * (message_tokens(MESSAGES) + estimate_tokens(answer))
    if streamed:
        assert model.requests[0]["stream_options"] == {"include_usage": True}


async def test_a_failed_request_is_reported_once_and_a_failing_report_is_only_logged(model, chat, caplog):
    failures = []

    async def count() -> None:
        failures.append(1)

    chat.on_failure = count
    model.fail_always(500)
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    model.fail_next(401)
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    assert len(failures) == 2

    async def broken() -> None:
        raise RuntimeError("database is locked")

    chat.on_failure = broken
    with caplog.at_level(logging.WARNING), pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    assert "could not count a model failure: RuntimeError" in caplog.text


# ----- the ledger -----



NOON = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def meter(store):
    """The usage meter over the test's database (SQLite, and PostgreSQL, as `store` is)."""
    return UsageMeter(store.backend)


async def say(store: Store, user_id: int, at: datetime, update_id: int | None = None):
    return await store.turns.begin_turn(user_id=user_id, first_name="A", language_code="en", text="hi", now=at,
                                  update_id=update_id, history_limit=20)


async def test_each_message_is_counted_once_even_when_its_update_comes_again(store, meter):
    await say(store, 1, NOON, update_id=10)
    await say(store, 1, NOON, update_id=10)  # redelivered after a crash
    await say(store, 1, NOON + timedelta(minutes=1), update_id=11)
    assert await meter.spent_since(1, NOON - timedelta(hours=1)) == Spent(messages=2)
    assert await meter.spent_since(1, NOON + timedelta(seconds=30)) == Spent(messages=1)
    assert await meter.spent_since(2, NOON - timedelta(hours=1)) == Spent()


async def test_replies_extraction_and_voice_add_up_per_user(store, meter):
    turn = await say(store, 1, NOON)
    await store.turns.add_reply(1, "hello", NOON, 20, reply_to=turn.message_id, tokens=120)
    await meter.record_usage(1, NOON, tokens=300)
    await meter.record_usage(1, NOON, voice_seconds=12.5)
    await meter.record_usage(2, NOON, tokens=7)
    await meter.record_usage(1, NOON)  # nothing spent: no row
    assert await meter.spent_since(1, NOON) == Spent(messages=1, tokens=420, voice_seconds=12.5)


async def test_the_limit_notice_is_claimed_once_a_day_and_limit(store):
    await say(store, 1, NOON)
    assert await store.users.claim_limit_notice(1, "2026-11-30", "messages")
    assert not await store.users.claim_limit_notice(1, "2026-11-30", "messages")
    assert await store.users.claim_limit_notice(1, "2026-11-30", "voice_seconds")
    assert await store.users.claim_limit_notice(1, "2026-12-01", "messages")
    assert not await store.users.claim_limit_notice(99, "2026-11-30", "messages")  # never met


async def test_forget_leaves_the_days_totals_but_not_whose_they_were(store, meter):
    await say(store, 1, NOON)
    await meter.record_usage(1, NOON, tokens=50)
    await store.accounts.forget_user(1)
    assert await meter.spent_since(1, NOON) == Spent()
    stats = await meter.stats(NOON, NOON - timedelta(hours=12))
    assert stats.today == Spent(messages=1, tokens=50) and stats.heaviest == [] and stats.users == 0


async def test_a_pass_paid_after_its_user_was_forgotten_is_nobodys(store, meter):
    await say(store, 1, NOON)
    await meter.record_usage(1, NOON, tokens=40, while_stored=True)
    await store.accounts.forget_user(1)  # meanwhile an extraction pass was waiting for the model
    await meter.record_usage(1, NOON, tokens=2_861, while_stored=True)
    assert await meter.spent_since(1, NOON) == Spent()
    assert (await meter.stats(NOON, NOON - timedelta(hours=12))).today == Spent(messages=1, tokens=2_901)


async def test_old_usage_is_pruned(meter):
    await meter.record_usage(1, NOON - timedelta(days=3), tokens=5)
    await meter.record_usage(1, NOON, tokens=6)
    assert await meter.prune_usage(NOON - timedelta(days=2)) == 1
    assert await meter.spent_since(1, NOON - timedelta(days=9)) == Spent(tokens=6)


async def test_stats_count_users_activity_heaviest_facts_size_and_errors(store, meter):
    start = datetime(2026, 11, 30, tzinfo=UTC)
    await say(store, 1, start - timedelta(days=3))  # active this week, not today
    await say(store, 9, start - timedelta(days=9))  # neither
    for user_id, tokens in ((2, 500), (3, 900), (4, 100), (5, 700), (6, 300), (7, 200)):
        await say(store, user_id, NOON)
        await meter.record_usage(user_id, NOON, tokens=tokens)
    await meter.record_usage(3, start - timedelta(hours=1), tokens=10_000)  # yesterday: not today's
    await meter.record_usage(None, NOON - timedelta(hours=23), model_errors=1)
    await meter.record_usage(2, NOON - timedelta(hours=25), model_errors=1)  # more than 24 h ago
    stats = await meter.stats(NOON, start)
    assert (stats.users, stats.active_today, stats.active_week) == (8, 6, 7)
    assert stats.today == Spent(messages=6, tokens=2700)
    assert [user_id for user_id, _ in stats.heaviest] == [3, 5, 2, 6, 7]
    assert stats.heaviest[0][1] == Spent(messages=1, tokens=900)
    assert stats.model_errors == 1 and stats.facts == 0 and stats.database_bytes > 0


# ----- what the user and the admin read -----

@pytest.mark.parametrize(
    ("seconds", "en", "ru"),
    [(1, "1 min", "1 мин"), (59, "1 min", "1 мин"), (61, "2 min", "2 мин"), (3 * 3600, "3 h 0 min", "3 ч 0 мин"),
     (86_399, "24 h 0 min", "24 ч 0 мин"), (0, "1 min", "1 мин"), (-5, "1 min", "1 мин")],
)
def test_time_left_rounds_up_to_a_minute(seconds, en, ru):
    later = NOON + timedelta(seconds=seconds)
    assert time_left(NOON, later, "en") == en and time_left(NOON, later, "ru") == ru


def test_the_limit_line_names_the_limit_and_the_time_left():
    limited = Limited("tokens", datetime(2026, 12, 1, tzinfo=MOSCOW), True)
    line = limit_line(limited, datetime(2026, 11, 30, 22, 15, tzinfo=MOSCOW), "ru")
    assert line.startswith("На сегодня лимит") and "через 1 ч 45 мин" in line
    voice = limit_line(Limited("voice_seconds", limited.resets_at, True), NOON, "en")
    assert voice.startswith("I can't listen to more voice messages")


def test_usage_numbers_show_the_limit_only_where_there_is_one():
    assert of_limit(12, 50, "en") == "12 of 50" and of_limit(12, 0, "en") == "12"
    assert of_limit(7.9, 60, "ru") == "7 из 60"


def test_sizes_and_stats_read_plainly():
    assert human_size(0) == "0 KiB" and human_size(1500) == "2 KiB" and human_size(3_565_158) == "3.4 MiB"
    stats = Stats(users=3, active_today=1, active_week=2, today=Spent(4, 900, 30.7), heaviest=[(42, Spent(4, 900))],
                  facts=17, database_bytes=2048, model_errors=0)
    text = stats_text(stats, "UTC", "en")
    assert text.splitlines()[0] == "Users: 3 (active today 1, in 7 days 2)"
    assert "Today (UTC): 4 messages, 900 tokens, 30 s of voice" in text and "42: 900 tokens, 4 messages" in text
    assert "Facts stored: 17" in text and "Database: 2 KiB" in text
    assert "пока никого" in stats_text(Stats(0, 0, 0, Spent()), "Europe/Moscow", "ru")
