"""End to end: spoken replies (/voice, voice notes after the text, the fallbacks, the seconds counted) through the
real Application against the doubles."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from services.ogg_audio import opus_seconds
from tests.doubles import OpenAIDouble
from tests.harness import ProcessedUpdates, make_config, running_bot

ANN, GROUP = 1001, -100500
VOICE = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()
SPOKEN = opus_seconds(VOICE)  # what the speech double answers, each time


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_replies=False, proactive=False,
                       tts_model="tts-1", tts_voice="nova", tts_timeout_s=1.0)


def voice_seconds(path: Path, user_id: int) -> float:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COALESCE(SUM(voice_seconds), 0) FROM usage WHERE user_id = ?",
                          (user_id,)).fetchone()[0]


def chat_actions(telegram, action: str) -> list[dict]:
    return [p for m, p in telegram.calls if m == "sendChatAction" and p.get("action") == action]


def buttons(sent: dict) -> list[tuple[str, str]]:
    rows = sent["reply_markup"]["inline_keyboard"]
    return [(button["text"], button["callback_data"]) for row in rows for button in row]


async def test_voice_shows_the_choice_with_buttons_and_each_choice_is_kept(telegram, model, config):
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice"))
        [status] = telegram.sent_to(ANN)
        assert "Spoken replies: when you speak" in status["visible_text"]
        assert buttons(status) == [("off, text only", "vc:off"), ("every reply", "vc:on"),
                                   ("✓ when you speak (voice answers voice)", "vc:auto")]
        await processed.wait(telegram.push_callback(ANN, "vc:on", status["message_id"]))
        shown = telegram.message(ANN, status["message_id"])
        assert shown is not None and "Spoken replies: every reply" in shown["text"]
        await processed.wait(telegram.push_text(ANN, "hello"))
        [spoken] = await telegram.wait_for_voice(ANN, 1)
        await processed.wait(telegram.push_text(ANN, "/voice off"))
        assert "Spoken replies: off, text only" in telegram.sent_to(ANN)[-1]["visible_text"]
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)}))
        await processed.wait(telegram.push_text(ANN, "/voice голос", language_code="ru"))
        assert "Ответы голосом: когда ты говоришь" in telegram.sent_to(ANN)[-1]["visible_text"]
        await processed.wait(telegram.push_text(ANN, "/voice loudly"))
        assert "/voice on" in telegram.sent_to(ANN)[-1]["visible_text"]
        await processed.wait(telegram.push_text(ANN, "My name is Anna."))  # typed: no voice while "when I speak"
        await processed.wait(telegram.push_text(ANN, "/profile"))
        profile = telegram.sent_to(ANN)[-1]["visible_text"]
        assert "Spoken replies: when you speak (voice answers voice) (/voice)" in profile
    assert spoken["content"] == VOICE
    assert [r["input"] for r in model.speech_requests] == ["echo: hello"]  # off: the voice note got text only
    assert model.speech_requests[0]["voice"] == "nova" and model.speech_requests[0]["response_format"] == "opus"


async def test_a_voice_note_is_answered_by_voice_and_text_by_text_when_i_speak(telegram, model, config, caplog):
    caplog.set_level(logging.WARNING)
    model.transcript = "How are **you** today?"
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)}))
        await processed.wait(telegram.push_text(ANN, "and in text?"))
    texts = [m["visible_text"] for m in telegram.sent_to(ANN)]
    assert texts == ["echo: How are you today?", "echo: and in text?"]  # the text always comes (bold, as HTML)
    [spoken] = telegram.voices_to(ANN)
    assert spoken["content"][:4] == b"OggS" and "caption" not in spoken
    [said] = model.speech_requests
    assert said["input"] == "echo: How are you today?"  # no stars read aloud
    assert said["model"] == "tts-1"
    assert chat_actions(telegram, "record_voice")  # "recording voice…" while it was made
    assert spoken["message_id"] > telegram.sent_to(ANN)[0]["message_id"]  # after the text it speaks
    assert voice_seconds(config.database_path, ANN) == pytest.approx(3.0 + SPOKEN)  # heard, then spoken
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_streamed_reply_stays_as_its_text_and_the_voice_follows(telegram, model, config):
    streamed = replace(config, stream_replies=True)
    async with running_bot(streamed) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        await processed.wait(telegram.push_text(ANN, "tell me something"))
    assert telegram.sent_to(ANN)[-1]["visible_text"] == "echo: tell me something"
    [spoken] = telegram.voices_to(ANN)
    assert spoken["message_id"] == telegram.sent_to(ANN)[-1]["message_id"] + 1


@pytest.mark.parametrize("failure", ["fails", "hangs"])
async def test_a_speech_failure_leaves_the_text_with_one_warning_and_no_apology(
    telegram, model, config, caplog, failure
):
    caplog.set_level(logging.INFO)
    if failure == "fails":
        model.fail_next(500, times=100, endpoint="speech")
    else:
        model.hang_next(times=100, endpoint="speech")
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        await processed.wait(telegram.push_text(ANN, "are you there?"), timeout=10)
    assert [m["visible_text"] for m in telegram.sent_to(ANN)][1:] == ["echo: are you there?"]  # nothing else said
    assert telegram.voices_to(ANN) == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "not synthesised" in warnings[0].getMessage()
    assert ("HTTP 500" if failure == "fails" else "timed out") in warnings[0].getMessage()
    assert "sk-test" not in caplog.text
    assert voice_seconds(config.database_path, ANN) == 0


async def test_a_server_without_the_speech_endpoint_is_asked_once(telegram, model, config, caplog):
    caplog.set_level(logging.WARNING)
    model.speech_supported = False
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        for words in ("one", "two", "three"):
            await processed.wait(telegram.push_text(ANN, words))
        await processed.wait(telegram.push_text(ANN, "/voice"))
    assert len(model.speech_requests) == 1
    assert [m["visible_text"] for m in telegram.sent_to(ANN)][1:4] == ["echo: one", "echo: two", "echo: three"]
    assert "cannot speak right now" in telegram.sent_to(ANN)[-1]["visible_text"]
    [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "no audio.speech endpoint" in warning.getMessage()


async def test_a_long_reply_is_spoken_in_several_notes_in_order(telegram, model, config):
    sentences = [f"Sentence {i} of a long story, told with care and many words." for i in range(150)]
    model.reply = lambda body: " ".join(sentences)  # ~9,000 characters: three parts
    async with running_bot(replace(config, reply_max_tokens=8000)) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        await processed.wait(telegram.push_text(ANN, "tell me a story"), timeout=15)
    inputs = [r["input"] for r in model.speech_requests]
    assert len(inputs) == 3 and all(len(part) <= 4096 for part in inputs)
    assert " ".join(inputs) == " ".join(sentences)  # every word, in order, cut at sentence ends
    assert len(telegram.voices_to(ANN)) == 3
    assert voice_seconds(config.database_path, ANN) == pytest.approx(3 * SPOKEN)


async def test_spoken_seconds_count_toward_the_daily_voice_limit(telegram, model, config):
    limited = replace(config, daily_voice_seconds=5)
    async with running_bot(limited) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        for words in ("one", "two", "three"):
            await processed.wait(telegram.push_text(ANN, words))
    assert [r["input"] for r in model.speech_requests] == ["echo: one", "echo: two"]  # the second crossed it
    assert len(telegram.voices_to(ANN)) == 2
    assert [m["visible_text"] for m in telegram.sent_to(ANN)][1:] == ["echo: one", "echo: two", "echo: three"]
    assert voice_seconds(limited.database_path, ANN) == pytest.approx(2 * SPOKEN)


async def test_groups_get_text_only(telegram, model, config):
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)}, chat_id=GROUP,
                                                   chat_type="group", reply_to_bot=True))
        await processed.wait(telegram.push_text(ANN, "/voice", chat_id=GROUP, chat_type="group"))
    assert model.speech_requests == [] and telegram.voices_to(GROUP) == []
    assert "only in our private chat" in telegram.sent_to(GROUP)[-1]["visible_text"]


async def test_without_tts_model_voice_explains_and_nothing_is_spoken(telegram, model, config):
    plain = replace(config, tts_model="")
    async with running_bot(plain) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_text(ANN, "/voice on"))
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)}))
    [explained, answered] = [m["visible_text"] for m in telegram.sent_to(ANN)]
    assert "not configured" in explained and "TTS_MODEL" in explained
    assert answered == "echo: transcribed speech"
    assert model.speech_requests == [] and telegram.voices_to(ANN) == []


async def test_tts_base_url_and_key_name_a_speech_server_of_its_own(telegram, model, config):
    speech = OpenAIDouble(api_key="sk-speech")
    await speech.start()
    try:
        own = replace(config, tts_base_url=speech.base_url, tts_api_key="sk-speech")
        async with running_bot(own) as app:
            processed = ProcessedUpdates(app)
            await processed.wait(telegram.push_text(ANN, "/voice on"))
            await processed.wait(telegram.push_text(ANN, "hello"))
    finally:
        await speech.close()
    assert [r["input"] for r in speech.speech_requests] == ["echo: hello"]
    assert model.speech_requests == []  # the chat server was not asked
    assert len(telegram.voices_to(ANN)) == 1


async def test_a_user_who_forbids_voice_messages_keeps_the_text_and_hears_no_apology(telegram, model, config, caplog):
    caplog.set_level(logging.WARNING)
    telegram.fail_next("sendVoice", 400, "Bad Request: VOICE_MESSAGES_FORBIDDEN")  # their privacy settings
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)}))
        await processed.wait(telegram.push_text(ANN, "still there?"))
    assert [m["visible_text"] for m in telegram.sent_to(ANN)] == ["echo: transcribed speech", "echo: still there?"]
    assert telegram.voices_to(ANN) == []
    [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "did not take a spoken reply" in warning.getMessage()
