"""Spoken replies from a real engine: Piper 1.8.0 with en_US-joe-medium, behind OpenAI's speech endpoint.

The shim (tests/real_tts/shim.py) runs in the venv .ci/real_tts makes; the openai SDK asks it for speech through
its public API, as the bot does. What comes back must be a voice note Telegram plays: one valid Ogg/Opus stream
(tests/ogg_opus.py, written from the RFCs), whose length two independent decoders in that venv agree on (FFmpeg's
through PyAV, libsndfile's through soundfile). Skipped when the engine is not installed, except under CI=true.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import openai
import pytest
from openai import AsyncOpenAI

from tests.harness import ProcessedUpdates, make_config, running_bot
from tests.ogg_opus import read_ogg_opus
from tests.real_tts import PYTHON, REPLY_300, real_tts_server, require_real_tts

pytestmark = [pytest.mark.real_tts, pytest.mark.timeout(300)]
ANN = 1001
# Both decoders count the samples they give back, after pre-skip and any end trimming.
DECODE = """
import json, sys
import av, soundfile
with av.open(sys.argv[1]) as container:
    stream = container.streams.audio[0]
    ffmpeg = sum(frame.samples for frame in container.decode(stream)), stream.codec_context.name, stream.rate
info = soundfile.info(sys.argv[1])
print(json.dumps({"ffmpeg": ffmpeg, "libsndfile": [info.frames, info.format, info.subtype, info.samplerate]}))
"""


@pytest.fixture(scope="module")
def tts(tmp_path_factory):
    require_real_tts()
    with real_tts_server(tmp_path_factory.mktemp("real-tts") / "shim.log") as server:
        yield server


@pytest.fixture
async def client(tts):
    async with AsyncOpenAI(base_url=tts.base_url, api_key="x", max_retries=0, timeout=120) as sdk:
        yield sdk


async def test_a_300_character_reply_comes_back_as_a_voice_note_telegram_plays(tts, client, tmp_path,
                                                                               record_property):
    assert len(REPLY_300) == 300
    timings = []
    for _ in range(2):  # the first request after start-up, then one on a warm engine
        began = time.perf_counter()
        response = await client.audio.speech.create(model=tts.model, voice=tts.voice, input=REPLY_300,
                                                    response_format="opus")
        audio = response.content
        timings.append(time.perf_counter() - began)
    assert response.response.headers["content-type"] == "audio/ogg"
    stream = read_ogg_opus(audio)
    assert stream.channels == 1 and stream.input_sample_rate == 48000
    # 300 characters read aloud at 10–25 characters a second (Piper's joe: about 17).
    assert 12 < stream.duration_s < 30, stream.duration_s

    path = tmp_path / "reply.ogg"
    path.write_bytes(audio)
    decoded = json.loads(subprocess.run([str(PYTHON), "-c", DECODE, str(path)], capture_output=True, text=True,
                                        check=True, timeout=60).stdout)
    samples, codec, rate = decoded["ffmpeg"]
    assert (codec, rate) == ("opus", 48000)
    frames, container, subtype, sndfile_rate = decoded["libsndfile"]
    assert (container, subtype, sndfile_rate) == ("OGG", "OPUS", 48000)
    assert samples == frames == stream.final_granule - stream.pre_skip, (samples, frames, stream)
    record_property("time_to_audio_s", timings)
    print(f"\nreal TTS, Piper en_US-joe-medium: {len(REPLY_300)} characters → {stream.duration_s:.2f} s of Ogg/Opus "
          f"({len(audio)} bytes); time to the audio {timings[0]:.2f} s cold, {timings[1]:.2f} s warm")


async def test_the_bot_answers_a_voice_note_with_a_voice_note_the_real_engine_spoke(tts, telegram, model, tmp_path,
                                                                                    record_property):
    """Through the real Application: a voice note in, the transcript answered with a 300-character reply, which
    arrives as text and then as a voice note synthesised by Piper, sent to Telegram as valid Ogg/Opus."""
    model.transcript = "Good evening! What do you remember about my week?"
    model.reply = lambda body: REPLY_300
    config = make_config(telegram, model, tmp_path / "bot.db", stream_replies=False, proactive=False,
                         tts_model=tts.model, tts_voice=tts.voice, tts_base_url=tts.base_url, tts_api_key="x",
                         tts_timeout_s=120.0)
    voice_note = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()
    async with running_bot(config) as app:
        processed = ProcessedUpdates(app)
        began = time.monotonic()
        await processed.wait(telegram.push_message(ANN, {"voice": telegram.voice(3, content=voice_note)}))
        [spoken] = await telegram.wait_for_voice(ANN, 1, timeout=120)
        to_voice = time.monotonic() - began
    [text] = telegram.sent_to(ANN)
    assert text["visible_text"] == REPLY_300  # the words arrive as text first, whatever happens to playback
    stream = read_ogg_opus(spoken["content"])
    assert stream.channels == 1 and stream.input_sample_rate == 48000
    assert 12 < stream.duration_s < 30, stream.duration_s
    assert [request["input"] for request in model.speech_requests] == []  # the chat server was never asked to speak
    record_property("time_to_voice_note_s", round(to_voice, 3))
    print(f"\nthe bot, voice note in → Piper's voice note out: {to_voice:.2f} s, {stream.duration_s:.2f} s of audio")


async def test_wav_is_served_too(tts, client):
    response = await client.audio.speech.create(model="tts-1", voice="nova", input="Hello, Anna.",
                                                response_format="wav")
    audio = response.content
    assert response.response.headers["content-type"] == "audio/wav"
    assert audio[:4] == b"RIFF" and audio[8:16] == b"WAVEfmt " and len(audio) > 44 + 24000 // 2


async def test_an_input_over_4096_characters_is_refused_as_openai_refuses_it(client, tts):
    with pytest.raises(openai.BadRequestError) as refused:
        await client.audio.speech.create(model=tts.model, voice=tts.voice, input="a" * 4097, response_format="opus")
    assert refused.value.status_code == 400
    assert (refused.value.code, refused.value.param, refused.value.type) == (
        "string_above_max_length", "input", "invalid_request_error")


async def test_the_model_list_names_the_engine(client, tts):
    assert tts.model in [model.id async for model in client.models.list()]


# One test, not one per case: under pytest-xdist each worker that runs a test of this module starts its own shim.
MALFORMED = [
    ({"input": "Hi", "voice": "alloy"}, 400, "model"),
    ({"model": "tts-1", "voice": "alloy"}, 400, "input"),
    ({"model": "tts-1", "input": "Hi"}, 400, "voice"),
    ({"model": "tts-1", "input": "Hi", "voice": "robot"}, 400, "voice"),
    ({"model": "tts-1", "input": "Hi", "voice": "alloy", "response_format": "ogg"}, 400, "response_format"),
    ({"model": "tts-1", "input": "Hi", "voice": "alloy", "speed": 5}, 400, "speed"),
    ({"model": "tts-1", "input": "", "voice": "alloy"}, 400, "input"),
    ({"model": "no-such-model", "input": "Hi", "voice": "alloy"}, 404, None),
]


async def test_malformed_requests_get_openai_s_error_shape(tts):
    async with httpx.AsyncClient(base_url=tts.base_url, headers={"Authorization": "Bearer x"}) as http:
        for body, status, param in MALFORMED:
            response = await http.post("/audio/speech", json=body)
            assert response.status_code == status, body
            error = response.json()["error"]
            assert error["param"] == param and error["type"] == "invalid_request_error" and error["message"], body
        not_json = await http.post("/audio/speech", content=b"{", headers={"Content-Type": "application/json"})
        assert not_json.status_code == 400 and not_json.json()["error"]["type"] == "invalid_request_error"
        anonymous = await http.post("/audio/speech", json=MALFORMED[0][0], headers={"Authorization": ""})
        assert anonymous.status_code == 401
