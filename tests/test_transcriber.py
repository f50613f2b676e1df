"""Transcription through the OpenAI double: what is sent, and how each failure is told apart."""

from pathlib import Path

import pytest

from llm.client import ChatModel
from services.transcriber import Transcriber, TranscriptionError

VOICE = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()


@pytest.fixture
def transcriber(client):
    model = ChatModel(client, "gpt-4o-mini", attempt_timeout=1.0, budget=2.0, backoff=0.02)
    return Transcriber(model, "whisper-1", timeout=1.0)


async def test_the_words_come_back_trimmed_and_the_language_goes_as_a_hint(transcriber, model):
    model.transcript = "  привет, меня зовут Анна \x00"
    assert await transcriber.transcribe(VOICE, "voice.ogg", "ru") == "привет, меня зовут Анна"
    [request] = model.transcription_requests
    assert (request["model"], request["filename"], request["language"]) == ("whisper-1", "voice.ogg", "ru")


async def test_no_language_hint_sends_none(transcriber, model):
    await transcriber.transcribe(VOICE, "voice.ogg", None)
    assert model.transcription_requests[0]["language"] is None


async def test_a_busy_server_is_retried(transcriber, model):
    model.fail_next(503, times=2, endpoint="transcriptions")
    assert await transcriber.transcribe(VOICE, "voice.ogg", "en") == "transcribed speech"
    assert len(model.transcription_requests) == 3


@pytest.mark.parametrize(
    ("status", "message"),
    [(404, None), (405, "Method Not Allowed"), (400, "this model does not support audio transcription")],
)
async def test_a_server_without_the_endpoint_is_asked_once(transcriber, model, status, message):
    model.fail_next(status, message=message, endpoint="transcriptions")
    for _ in range(2):
        with pytest.raises(TranscriptionError) as caught:
            await transcriber.transcribe(VOICE, "voice.ogg", "en")
        assert caught.value.reason == "voice_unsupported"
    assert len(model.transcription_requests) == 1 and not transcriber.available


async def test_ollama_s_plain_404_page(transcriber, model):
    model.transcriptions_supported = False
    with pytest.raises(TranscriptionError, match="404"):
        await transcriber.transcribe(VOICE, "voice.ogg", "en")
    assert not transcriber.available


@pytest.mark.parametrize(
    "audio", [VOICE[: len(VOICE) // 2], VOICE[:100] + bytes(200) + VOICE[300:], b"not audio at all"],
    ids=["truncated", "zeroed", "junk"],
)
async def test_a_damaged_file_is_unreadable_and_the_endpoint_stays_on(transcriber, model, audio):
    with pytest.raises(TranscriptionError) as caught:
        await transcriber.transcribe(audio, "voice.ogg", "en")
    assert caught.value.reason == "audio_unreadable" and transcriber.available


async def test_an_empty_file_is_not_sent(transcriber, model):
    with pytest.raises(TranscriptionError) as caught:
        await transcriber.transcribe(b"", "voice.ogg", "en")
    assert caught.value.reason == "audio_unreadable" and model.transcription_requests == []


async def test_a_hanging_server_fails_within_the_timeout(transcriber, model):
    model.hang_next(times=5, endpoint="transcriptions")
    with pytest.raises(TranscriptionError) as caught:
        await transcriber.transcribe(VOICE, "voice.ogg", "en")
    assert caught.value.reason == "voice_failed" and transcriber.available
