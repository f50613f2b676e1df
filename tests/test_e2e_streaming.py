"""End to end: replies stream as drafts in private chats, then arrive exactly once as a message."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from dataclasses import replace

import pytest

from tests.harness import make_config, running_bot

ANN, GROUP = 1001, -100500
ANSWER = " ".join(f"word{i}" for i in range(80))  # 557 characters: 140 pieces of 4, 20 ms apart ≈ 2.8 s


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_interval_s=0.2)


@pytest.fixture
def slow_model(model):
    """A model that writes ANSWER in 4-character pieces every 20 ms after a 100 ms wait."""
    model.reply = lambda body: ANSWER
    model.stream_first_delay, model.stream_chunk_chars, model.stream_chunk_interval = 0.1, 4, 0.02
    return model


def stored_replies(config) -> list[str]:
    with sqlite3.connect(config.database_path) as db:
        return [row[0] for row in db.execute("SELECT content FROM messages WHERE role = 'assistant'")]


async def test_drafts_grow_then_exactly_one_final_message(telegram, slow_model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "tell me something")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)  # any draft still on its way would land now
    drafts = telegram.drafts_to(ANN)
    assert len(drafts) >= 3
    assert len(telegram.sent_to(ANN)) == 1 and reply["visible_text"] == ANSWER
    assert all(d["at"] < reply["at"] for d in drafts)  # no draft after the message
    texts = [d["visible_text"] for d in drafts]
    assert all(len(a) < len(b) for a, b in zip(texts, texts[1:], strict=False))  # each draft shows more
    assert all(ANSWER.startswith(t) for t in texts)
    assert len({d["draft_id"] for d in drafts}) == 1 and drafts[0]["draft_id"] != 0
    assert slow_model.requests[0]["stream"] is True


async def test_a_reply_complete_within_moments_goes_straight_out_without_a_draft(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "quick one")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)
    assert reply["visible_text"] == "echo: quick one"
    assert model.requests[0]["stream"] is True
    assert [m for m, _ in telegram.calls if m == "sendMessageDraft"] == []


async def test_draft_calls_stay_within_reply_seconds_over_interval_plus_one(telegram, slow_model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "tell me something")
        await telegram.wait_for_sent(ANN, 1)
    drafts = telegram.drafts_to(ANN)
    calls = [p for method, p in telegram.calls if method == "sendMessageDraft"]
    streamed = drafts[-1]["at"] - drafts[0]["at"]
    assert len(calls) == len(drafts)
    assert len(calls) <= streamed / config.stream_interval_s + 1
    gaps = [b["at"] - a["at"] for a, b in zip(drafts, drafts[1:], strict=False)]
    assert min(gaps) >= config.stream_interval_s * 0.9


async def test_later_drafts_come_further_apart_up_to_twice_the_interval(telegram, slow_model, config):
    """Gaps of 1, 1.5, 2, 2, … intervals (transport/streaming.py): a person reading the drafts always has
    more unread text than the next gap takes, and a reply costs fewer requests (issue 42)."""
    async with running_bot(config):
        telegram.push_text(ANN, "tell me something")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    drafts = telegram.drafts_to(ANN)
    gaps = [b["at"] - a["at"] for a, b in zip(drafts, drafts[1:], strict=False)]
    interval = config.stream_interval_s
    assert len(gaps) >= 3 and reply["at"] - drafts[-1]["at"] > 0
    assert all(gap >= interval * min(2.0, 1 + 0.5 * number) * 0.9 for number, gap in enumerate(gaps)), gaps
    assert max(gaps) <= interval * 2 + 0.5 + 0.3  # never longer than the longest gap and one read's wait


async def test_a_group_gets_typing_and_no_drafts(telegram, slow_model, config):
    slow_model.delay = 1.2  # the answer's first words after 1.2 s: typing shows once it has taken a second
    async with running_bot(config):
        telegram.push_text(ANN, f"@{telegram.bot_username} hi all", chat_id=GROUP, chat_type="group")
        await telegram.wait_for_sent(GROUP, 1)
    assert telegram.drafts == []
    # Streamed all the same, shown to nobody: a long answer is waited for piece by piece, not whole in one timeout.
    assert slow_model.requests[0]["stream"] is True
    assert any(method == "sendChatAction" for method, _ in telegram.calls)


async def test_streaming_off_sends_no_drafts(telegram, slow_model, config):
    async with running_bot(replace(config, stream_replies=False)):
        telegram.push_text(ANN, "hi")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert telegram.drafts == [] and reply["visible_text"] == ANSWER


async def test_a_bot_api_server_without_drafts_turns_streaming_off_and_the_reply_arrives_once(
    telegram, slow_model, config, caplog
):
    telegram.refuse_drafts()
    caplog.set_level(logging.WARNING)
    async with running_bot(config):
        telegram.push_text(ANN, "first")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "second")
        await telegram.wait_for_sent(ANN, 2)
        await asyncio.sleep(0.3)
    assert [m["visible_text"] for m in telegram.sent_to(ANN)] == [ANSWER, ANSWER]
    assert len([m for m, _ in telegram.calls if m == "sendMessageDraft"]) == 1  # tried once per process
    assert len([r for r in caplog.records if "sendMessageDraft" in r.getMessage()]) == 1
    assert "stream" not in slow_model.requests[1]


async def test_a_stream_cut_halfway_is_retried_and_only_the_whole_answer_is_sent_and_stored(
    telegram, slow_model, config
):
    slow_model.cut_stream_next(after_chunks=20)
    async with running_bot(config):
        telegram.push_text(ANN, "tell me")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert len(slow_model.requests) == 2
    assert reply["visible_text"] == ANSWER and len(telegram.sent_to(ANN)) == 1
    assert stored_replies(config) == [ANSWER]


async def test_a_stream_that_ends_without_finishing_is_retried(telegram, slow_model, config):
    slow_model.cut_stream_next(after_chunks=10, mode="eof")
    async with running_bot(config):
        telegram.push_text(ANN, "tell me")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert len(slow_model.requests) == 2 and reply["visible_text"] == ANSWER


async def test_streams_that_keep_breaking_end_in_the_apology_and_store_no_partial_reply(
    telegram, slow_model, config
):
    slow_model.cut_stream_next(after_chunks=5, times=100)
    async with running_bot(config):
        telegram.push_text(ANN, "tell me")
        [apology] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)
    assert "Sorry" in apology["visible_text"] and len(telegram.sent_to(ANN)) == 1
    assert all(d["at"] < apology["at"] for d in telegram.drafts_to(ANN))
    assert stored_replies(config) == []
    assert len(slow_model.requests) >= 2


async def test_a_stream_that_stalls_is_given_up_after_the_attempt_timeout(telegram, slow_model, config):
    slow_model.stream_chunk_interval = 5.0  # one piece, then silence longer than the 2 s attempt timeout
    async with running_bot(replace(config, model_retry_budget_s=2.5)):
        telegram.push_text(ANN, "tell me")
        [apology] = await telegram.wait_for_sent(ANN, 1, timeout=15)
    assert "Sorry" in apology["visible_text"]
    assert stored_replies(config) == []


async def test_typing_shows_while_the_model_is_silent_and_stops_once_a_draft_shows(telegram, slow_model, config):
    slow_model.stream_first_delay = 1.6  # nothing for 1.6 s, then 2.8 s of writing
    async with running_bot(replace(config, typing_interval_s=0.2)):
        telegram.push_text(ANN, "think first")
        await telegram.wait_for_sent(ANN, 1)
    drafts = telegram.drafts_to(ANN)
    typing = [at for (method, _), at in zip(telegram.calls, telegram.call_times, strict=True)
              if method == "sendChatAction"]
    assert len(typing) >= 2 and len(drafts) >= 3
    assert typing[-1] <= drafts[0]["at"] + 0.05  # none while the drafts show the reply being written
