"""End to end: daily limits (messages, tokens, voice seconds) on the user's own clock, /usage, and /stats for
admins only, through the real Application against the doubles."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from tests.harness import ProcessedUpdates, make_config, running_bot
from tests.test_e2e_media import VOICE
from tests.test_e2e_memory import chat_requests, extraction_requests, extractor_reply, wait_until, wait_until_stored
from tests.test_e2e_proactive import FakeClock

ANN, BOB = 1001, 1002
GROUP = -5005
MOSCOW = ZoneInfo("Europe/Moscow")
LIMIT_LINE = "That's all the messages I can answer today"


@pytest.fixture
def clock():
    return FakeClock(datetime(2026, 11, 30, 21, 0, tzinfo=MOSCOW))


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(
        telegram, model, tmp_path / "bot.db", timezone="Europe/Moscow", stream_replies=False, proactive=False,
        memory_extract_delay_s=0.2, memory_retry_s=0.2, daily_message_limit=2,
    )


async def say(telegram, processed, user_id: int, text: str, **kwargs) -> None:
    await processed.wait(telegram.push_text(user_id, text, **kwargs))


async def stored_contents(config, user_id: int) -> list[str]:
    store = await Store.open(config.database_path)
    exported = await store.accounts.export_user(user_id)
    await store.close()
    return [m["content"] for m in exported["messages"] if m["role"] == "user"]


async def test_past_the_limit_one_line_a_day_no_model_call_nothing_lost_and_midnight_resets(
    telegram, model, config, clock
):
    model.reply = extractor_reply({"By the way, I live in Berlin now.": [
        {"category": "personal", "key": "city", "value": "Berlin"}]})
    async with running_bot(config, clock=clock) as app:
        processed = ProcessedUpdates(app)
        await say(telegram, processed, ANN, "hello")
        await say(telegram, processed, ANN, "how are you")
        await say(telegram, processed, ANN, "By the way, I live in Berlin now.")
        await say(telegram, processed, ANN, "and one more thing")
        assert len(chat_requests(model)) == 2  # the model never saw the third or fourth
        sent = [m["visible_text"] for m in telegram.sent_to(ANN)]
        clock.set("2026-11-30T21:05:00")  # idle long enough for the extractor
        await wait_until(lambda: any("Berlin" in r["messages"][-1]["content"] for r in extraction_requests(model)))
        await wait_until_stored(config, ANN, "city")
        clock.set("2026-12-01T01:59:00")  # 23:59 in Berlin, which the extractor learned is theirs
        await say(telegram, processed, ANN, "still there?")
        clock.set("2026-12-01T02:00:30")  # just past midnight in Berlin
        await say(telegram, processed, ANN, "good morning")
    assert sent[:2] == ["echo: hello", "echo: how are you"]
    assert len(sent) == 3 and sent[2].startswith(LIMIT_LINE) and "in 3 h 0 min" in sent[2]
    # The unanswered messages and this one reach the model as one user turn (strict templates need turns).
    unanswered = "By the way, I live in Berlin now.\n\nand one more thing\n\nstill there?\n\ngood morning"
    assert [m["visible_text"] for m in telegram.sent_to(ANN)][3:] == [f"echo: {unanswered}"]
    # Kept in the session, read by the extractor, and in the next day's prompt.
    assert await stored_contents(config, ANN) == [
        "hello", "how are you", "By the way, I live in Berlin now.", "and one more thing", "still there?",
        "good morning"]
    history = [m["content"] for m in chat_requests(model)[-1]["messages"] if m["role"] == "user"]
    assert history[-1] == unanswered
    assert 'city: "Berlin"' in chat_requests(model)[-1]["messages"][0]["content"]


async def test_admins_are_exempt_and_others_are_limited_each_on_their_own(telegram, model, config):
    async with running_bot(replace(config, admin_user_ids=frozenset({ANN}))) as app:
        processed = ProcessedUpdates(app)
        for number in range(4):
            await say(telegram, processed, ANN, f"admin {number}")
        for number in range(3):
            await say(telegram, processed, BOB, f"bob {number}")
    assert [m["visible_text"] for m in telegram.sent_to(ANN)] == [f"echo: admin {n}" for n in range(4)]
    bob = [m["visible_text"] for m in telegram.sent_to(BOB)]
    assert bob[:2] == ["echo: bob 0", "echo: bob 1"] and bob[2].startswith(LIMIT_LINE) and len(bob) == 3


async def test_the_token_limit_counts_what_the_server_reports(telegram, model, config):
    limited = replace(config, daily_message_limit=0, daily_token_limit=10)
    async with running_bot(limited) as app:
        processed = ProcessedUpdates(app)
        await say(telegram, processed, ANN, "tell me a story")
        await say(telegram, processed, ANN, "and another")
        await say(telegram, processed, ANN, "/usage")
    first, second, usage = [m["visible_text"] for m in telegram.sent_to(ANN)]
    assert first == "echo: tell me a story" and len(chat_requests(model)) == 1
    assert second.startswith("I've used up today's allowance")
    store = await Store.open(limited.database_path)
    spent = await UsageMeter(store.backend).spent_since(ANN, datetime(2000, 1, 1, tzinfo=MOSCOW))
    await store.close()
    request = chat_requests(model)[0]
    reported = sum(len(m["content"]) // 4 + 1 for m in request["messages"]) + len(first) // 4 + 1
    assert spent.tokens == reported and spent.messages == 2
    assert f"tokens: {reported} of 10" in usage and "messages: 2\n" in usage


UNTRANSCRIBED = "[voice message, not transcribed: the daily limit]"


async def test_a_voice_note_past_the_voice_limit_is_kept_untranscribed_and_typing_still_works(
    telegram, model, config
):
    limited = replace(config, daily_message_limit=0, daily_voice_seconds=5)
    model.transcript = "I went hiking today"
    async with running_bot(limited) as app:
        processed = ProcessedUpdates(app)
        for _ in range(3):
            await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(6, content=VOICE)}))
        await say(telegram, processed, ANN, "typing instead")
    replies = [m["visible_text"] for m in telegram.sent_to(ANN)]
    assert len(model.transcription_requests) == 1  # the first note crossed the limit; the next were not sent
    assert replies[0] == "echo: I went hiking today"
    assert replies[1].startswith("I can't listen to more voice messages today")
    # The third note got no second line the same day; the untranscribed notes ride along with the typing.
    assert replies[2:] == ["echo: " + "\n\n".join([UNTRANSCRIBED, UNTRANSCRIBED, "typing instead"])]
    contents = await stored_contents(config, ANN)
    assert contents[0] == "I went hiking today" and contents[1] == contents[2] != contents[0]
    assert "not transcribed" in contents[1]


async def test_stats_answers_admins_in_private_only_and_is_an_unknown_command_to_anyone_else(
    telegram, model, config
):
    admin = replace(config, admin_user_ids=frozenset({ANN}), memory_extract_delay_s=3600)
    async with running_bot(admin) as app:
        processed = ProcessedUpdates(app)
        await say(telegram, processed, BOB, "hi there")
        await say(telegram, processed, BOB, "/stats")
        await say(telegram, processed, BOB, "/nosuchcommand")
        await processed.wait(telegram.push_text(ANN, "/stats", chat_id=GROUP, chat_type="group"))
        model.fail_next(500, times=20)
        await say(telegram, processed, ANN, "are you there")
        model.recover()
        await say(telegram, processed, ANN, "/stats")
    bob = [m["visible_text"] for m in telegram.sent_to(BOB)]
    assert bob[1] == bob[2]  # /stats reads to him like any unknown command
    assert "Users" not in bob[1] and "/help" in bob[1]
    group = [m["visible_text"] for m in telegram.sent_to(GROUP)]
    assert len(group) == 1 and "Users" not in group[0]
    stats = telegram.sent_to(ANN)[-1]["visible_text"]
    assert stats.startswith("Users: 2 (active today 2, in 7 days 2)")
    assert "Today (Europe/Moscow): 2 messages" in stats
    assert f"{BOB}: " in stats and "Facts stored: 0" in stats and "Model errors in 24 h: 1" in stats
