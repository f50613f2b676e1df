"""Spoken replies' service (services/speech.py) against the OpenAI double and a real store: what is asked of the
speech server, how each failure ends, each user's choice, and the seconds counted."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path

import pytest

from llm.gate import Gate
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from services.limits import LimitSettings
from services.ogg_audio import opus_seconds
from services.speech import SpeechSettings, SpokenReplies, Synthesizer

VOICE = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
ANN = 1001


@pytest.fixture
def synthesizer(client):
    return Synthesizer(client, Gate(None), SpeechSettings("tts-1", "alloy", tts_timeout_s=1.0, model_backoff_s=0.02))


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(tmp_path / "bot.db")
    yield store
    await store.close()


def spoken_replies(store, synthesizer, voice_seconds: int = 0, max_chars: int = 4096) -> SpokenReplies:
    limits = LimitSettings(frozenset(), 0, 0, voice_seconds, "UTC")
    return SpokenReplies(store.users, store.facts, synthesizer, limits, lambda: NOW, meter=UsageMeter(store.backend),
                         max_chars=max_chars)


async def test_the_text_goes_as_asked_and_opus_comes_back(synthesizer, model):
    assert await synthesizer.synthesize("Hello there.") == VOICE
    [request] = model.speech_requests
    assert request == {"model": "tts-1", "voice": "alloy", "input": "Hello there.", "response_format": "opus"}


async def test_nothing_to_say_asks_nothing(synthesizer, model):
    assert await synthesizer.synthesize("  \n") is None
    assert model.speech_requests == []


async def test_a_busy_server_is_retried_within_the_budget(synthesizer, model, caplog):
    caplog.set_level(logging.WARNING)
    model.fail_next(503, times=2, endpoint="speech")
    assert await synthesizer.synthesize("Hi") == VOICE
    assert len(model.speech_requests) == 3 and not caplog.records


async def test_a_refusal_is_one_warning_and_not_retried(synthesizer, model, caplog):
    caplog.set_level(logging.WARNING)
    model.fail_next(400, message="Invalid 'voice'.", endpoint="speech")
    assert await synthesizer.synthesize("Hi") is None
    assert len(model.speech_requests) == 1 and synthesizer.available  # the next reply may fare better
    [warning] = caplog.records
    assert "HTTP 400" in warning.getMessage() and "the text reply stands" in warning.getMessage()


@pytest.mark.parametrize("status", [404, 405])
async def test_a_server_without_the_endpoint_is_asked_once(synthesizer, model, caplog, status):
    caplog.set_level(logging.WARNING)
    model.fail_next(status, endpoint="speech")
    assert await synthesizer.synthesize("Hi") is None
    assert await synthesizer.synthesize("Hi again") is None
    assert len(model.speech_requests) == 1 and not synthesizer.available
    [warning] = caplog.records
    assert f"HTTP {status}" in warning.getMessage() and "TTS_MODEL=" in warning.getMessage()


async def test_audio_that_is_not_opus_turns_speech_off(synthesizer, model, caplog):
    caplog.set_level(logging.WARNING)
    model.speech_audio = b"ID3" + bytes(300)  # a server that ignores response_format
    assert await synthesizer.synthesize("Hi") is None
    assert not synthesizer.available
    [warning] = caplog.records
    assert "not Ogg/Opus" in warning.getMessage()


async def test_the_default_choice_is_when_i_speak_and_choices_are_kept(store, synthesizer):
    spoken = spoken_replies(store, synthesizer)
    assert await spoken.choice(ANN) == "auto"
    assert [await spoken.wanted(ANN, spoke) for spoke in (True, False)] == [True, False]
    await spoken.choose(ANN, "on")
    assert await spoken.choice(ANN) == "on"
    assert [await spoken.wanted(ANN, spoke) for spoke in (True, False)] == [True, True]
    await spoken.choose(ANN, "off")
    assert [await spoken.wanted(ANN, spoke) for spoke in (True, False)] == [False, False]
    with pytest.raises(ValueError):
        await spoken.choose(ANN, "loud")
    await store.users.set_setting(ANN, "voice", "garbled", NOW)  # a value from elsewhere: the default
    assert await spoken.choice(ANN) == "auto"


async def test_no_reply_is_wanted_aloud_once_the_server_cannot_speak(store, synthesizer):
    spoken = spoken_replies(store, synthesizer)
    await spoken.choose(ANN, "on")
    synthesizer.available = False
    assert not spoken.available and not await spoken.wanted(ANN, True)


async def test_each_part_is_spoken_in_order_and_its_seconds_counted(store, synthesizer, model):
    spoken = spoken_replies(store, synthesizer, max_chars=30)
    reply = "**First** sentence here. Second one, [linked](https://x.dev). Third 🎉!"
    notes = [audio async for audio in spoken.voice_notes(ANN, reply)]
    assert notes == [VOICE, VOICE]
    assert [r["input"] for r in model.speech_requests] == ["First sentence here.", "Second one, linked. Third!"]
    spent = await UsageMeter(store.backend).spent_since(ANN, datetime(2000, 1, 1, tzinfo=timezone.utc))
    assert spent.voice_seconds == pytest.approx(2 * (opus_seconds(VOICE) or 0))


async def test_a_failed_part_ends_the_notes_and_counts_nothing_more(store, synthesizer, model):
    spoken = spoken_replies(store, synthesizer, max_chars=10)
    model.fail_next(400, endpoint="speech")
    assert [audio async for audio in spoken.voice_notes(ANN, "One two. Three four. Five six.")] == []
    assert len(model.speech_requests) == 1
    spent = await UsageMeter(store.backend).spent_since(ANN, datetime(2000, 1, 1, tzinfo=timezone.utc))
    assert spent.voice_seconds == 0


async def test_spent_seconds_of_voice_stop_spoken_replies_for_the_day(store, synthesizer):
    spoken = spoken_replies(store, synthesizer, voice_seconds=5)
    await spoken.choose(ANN, "on")
    assert await spoken.wanted(ANN, False)
    await UsageMeter(store.backend).record_usage(ANN, NOW, voice_seconds=5.0)
    assert not await spoken.wanted(ANN, False)
    unlimited = spoken_replies(store, synthesizer)
    assert await unlimited.wanted(ANN, False)
