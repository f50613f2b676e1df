"""Strict local double of the OpenAI HTTP API (chat, embeddings, transcriptions, speech, models)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import inspect
import json
import math
import re
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePosixPath
from typing import Any

from aiohttp import web

from tests.timeouts import scaled

ROLES = ("system", "user", "assistant")
IMAGE_TOKENS = 255  # OpenAI's count for a 512 px tile at high detail: 85 + 170
ALTERNATION_ERROR = "Conversation roles must alternate user/assistant/user/assistant/..."
JSON_SCHEMA_500 = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                   "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}")
RESPONSE_FORMATS = ("text", "json_object", "json_schema")
REASONING_FIELDS = ("reasoning_content", "reasoning")
AUDIO_FORMATS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"]
TRANSCRIPT_FORMATS = ("json", "text")
IMAGE_DETAILS = ("auto", "low", "high")
SPEECH_FORMATS = {"mp3": "audio/mpeg", "opus": "audio/ogg", "aac": "audio/aac", "flac": "audio/flac",
                  "wav": "audio/wav", "pcm": "audio/pcm"}
SPEECH_MAX_INPUT = 4096  # characters, as OpenAI's audio.speech takes
# What the double speaks: a real Ogg/Opus recording (3.5 s) for `opus`; for other formats, their magic bytes.
SPOKEN_OPUS = (Path(__file__).resolve().parent.parent / "fixtures" / "voice.ogg").read_bytes()
SPOKEN_OTHER = {"mp3": b"ID3\x04" + bytes(200), "aac": b"\xff\xf1" + bytes(200), "flac": b"fLaC" + bytes(200),
                "wav": b"RIFF" + bytes(4) + b"WAVEfmt " + bytes(200), "pcm": bytes(400)}
CUT_MODES = ("abort", "eof", "error", "error_event")
STREAM_ERROR_MESSAGE = "The server had an error while processing your request. Sorry about that!"
DATA_URL_RE = re.compile(r"data:image/(jpeg|png|webp|gif);base64,(.*)", re.DOTALL)
DEFAULT_ERRORS = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided"),
    403: ("invalid_request_error", "unsupported_country_region_territory",
          "Country, region, or territory not supported"),
    404: ("invalid_request_error", "model_not_found", "The model does not exist."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests"),
    500: ("server_error", None,
          "The server had an error while processing your request. Sorry about that!"),
    502: ("server_error", None, "Bad gateway."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


def _ogg_crc_table() -> list[int]:
    """The 256 entries of Ogg's CRC-32 table (polynomial 0x04C11DB7, not reflected)."""
    table = []
    for index in range(256):
        crc = index << 24
        for _ in range(8):
            crc = (crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return table


OGG_CRC_TABLE = _ogg_crc_table()


def ogg_crc(data: bytes) -> int:
    """Ogg page checksum of data (initial value 0, no final xor)."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ OGG_CRC_TABLE[(crc >> 24) ^ byte]
    return crc


def ogg_pages(data: bytes) -> list[bytes] | None:
    """Bodies of the Ogg pages that make up data exactly, or None if any page is broken."""
    bodies, offset = [], 0
    while offset < len(data):
        header = data[offset:offset + 27]
        if len(header) < 27 or header[:4] != b"OggS" or header[4] != 0:
            return None
        table = data[offset + 27:offset + 27 + header[26]]
        end = offset + 27 + header[26] + sum(table)
        if len(table) < header[26] or end > len(data):
            return None
        page = data[offset:end]
        if ogg_crc(page[:22] + bytes(4) + page[26:]) != struct.unpack_from("<I", page, 22)[0]:
            return None
        bodies.append(page[27 + header[26]:])
        offset = end
    return bodies or None


def audio_looks_valid(extension: str, data: bytes) -> bool:
    """Whether data looks like the container its file extension names."""
    if extension in ("ogg", "oga"):
        pages = ogg_pages(data)
        return pages is not None and (b"OpusHead" in pages[0] or b"vorbis" in pages[0])
    if extension in ("mp3", "mpeg", "mpga"):
        return data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] >= 0xE0)
    checks = {"mp4": data[4:8] == b"ftyp", "m4a": data[4:8] == b"ftyp",
              "wav": data[:4] == b"RIFF" and data[8:12] == b"WAVE",
              "flac": data[:4] == b"fLaC", "webm": data[:4] == b"\x1a\x45\xdf\xa3"}
    return checks.get(extension, False)


def image_looks_valid(kind: str, data: bytes) -> bool:
    """Whether data starts (and for JPEG ends) with the magic bytes of image/<kind>."""
    if kind == "jpeg":
        return data[:3] == b"\xff\xd8\xff" and data[-2:] == b"\xff\xd9"
    if kind == "png":
        return data[:8] == b"\x89PNG\r\n\x1a\n"
    if kind == "gif":
        return data[:6] in (b"GIF87a", b"GIF89a")
    return data[:4] == b"RIFF" and data[8:12] == b"WEBP"


def data_url_image(url: str) -> bytes | None:
    """The image bytes of a data:image/<jpeg|png|webp|gif>;base64 URL, or None if invalid."""
    match = DATA_URL_RE.fullmatch(url)
    if match is None:
        return None
    try:
        data = base64.b64decode(match.group(2), validate=True)
    except binascii.Error:
        return None
    return data if image_looks_valid(match.group(1), data) else None


def image_parts(body: dict) -> list[dict]:
    """Every image_url content part of a chat request body, in message order."""
    return [part for message in body.get("messages") or [] if isinstance(message, dict)
            and isinstance(message.get("content"), list) for part in message["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"]


class OpenAIError(Exception):
    """An error answer in OpenAI's {"error": {...}} shape."""

    def __init__(self, status: int, message: str | None = None, *, param: str | None = None,
                 code: str | None = None, retry_after: float | None = None) -> None:
        kind, default_code, default_message = DEFAULT_ERRORS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None, "Error."))
        super().__init__(message or default_message)
        self.status, self.kind, self.param = status, kind, param
        self.message = message or default_message
        self.code = code if code is not None else default_code
        self.retry_after = retry_after

    def response(self) -> web.Response:
        """The HTTP response for this error."""
        body = {"error": {"message": self.message, "type": self.kind, "param": self.param,
                          "code": self.code}}
        headers = {"retry-after": f"{self.retry_after:g}"} if self.retry_after is not None else None
        return web.json_response(body, status=self.status, headers=headers)


def count_tokens(text: str) -> int:
    """Approximate token count used in usage blocks: len(text) // 4 + 1."""
    return len(text) // 4 + 1


def message_text(content: Any) -> str:
    """Text of a message content: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def trigram_embedding(text: str, dim: int = 64) -> list[float]:
    """Deterministic unit vector from signed hashes of the lower-cased text's character trigrams."""
    padded = f"  {text.lower()} "
    vector = [0.0] * dim
    for i in range(len(padded) - 2):
        digest = hashlib.blake2b(padded[i:i + 3].encode("utf-8"), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        vector[number % dim] += 1.0 if number >> 63 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        return [1.0] + [0.0] * (dim - 1)
    return [v / norm for v in vector]


def roles_alternate(messages: list[dict]) -> bool:
    """Whether a strict chat template takes the messages: one optional system message first, then user and
    assistant turns by turns, starting with the user."""
    turns = messages[1:] if messages and messages[0].get("role") == "system" else messages
    return bool(turns) and all(
        message.get("role") == ("user" if index % 2 == 0 else "assistant") for index, message in enumerate(turns))


def echo_reply(body: dict) -> str:
    """Default reply: 'echo: ' plus the last user message's text."""
    users = [m for m in body["messages"] if m.get("role") == "user"]
    return "echo: " + (message_text(users[-1].get("content")) if users else "")


class OpenAIDouble:
    """OpenAI API double: records requests, answers with `reply`, injects failures and delays.

    Transcriptions answer `transcript` (a str, or a function of the request record);
    `transcriptions_supported = False` answers them 404 like Ollama (still recorded). Speech (`audio.speech`)
    answers `speech_audio` (a real Ogg/Opus file) for `opus`, recorded in speech_requests; `speech_supported =
    False` answers 404 like Ollama; fail_next/hang_next with endpoint="speech" make it fail or hang.
    `reject_images = True` plays a text-only model; `report_usage = False` leaves out token usage.
    Streams are paced by stream_first_delay,
    stream_chunk_chars and stream_chunk_interval, and can be cut with cut_stream_next.

    Real servers' quirks, each off by default (llama-cpp-python 0.3.36's server shows most of them):
    `json_schema_status` is the status a json_schema refusal gets (400 like OpenAI's older models, 500 with
    llama.cpp's validation text); `stream_options_supported = False` refuses stream_options (400, pydantic's
    "extra inputs" wording); `strict_roles = True` applies a Gemma-like template that demands one leading
    system message and alternating user/assistant turns from the user: 500 unstreamed, 200 and an empty
    event stream when streamed; `context_window` refuses prompts (counted as usage counts them) plus the
    requested cap past it, with llama.cpp's `context_length_exceeded`; `embeddings_status` answers every
    embeddings request with that error (500: llama.cpp without embeddings, 404: Ollama without the model);
    `drop_images = True` ignores image parts without a word, as a text-only template does. Image parts a
    model sees count IMAGE_TOKENS each in `usage.prompt_tokens`.
    """

    def __init__(self, api_key: str | None = "sk-test", *, model: str = "gpt-4o-mini",
                 embedding_dim: int = 64, reject_json_schema: bool = False) -> None:
        self.api_key = api_key
        self.model = model
        self.embedding_dim = embedding_dim
        self.reject_json_schema = reject_json_schema
        self.requests: list[dict] = []
        self.embedding_requests: list[dict] = []
        self.transcription_requests: list[dict] = []
        self.reply: Callable[[dict], str | Awaitable[str]] = echo_reply
        self.transcript: str | Callable[[dict], str] = "transcribed speech"
        self.transcriptions_supported = True
        self.speech_requests: list[dict] = []
        self.speech_supported = True
        self.speech_audio = SPOKEN_OPUS
        self.report_usage = True  # False: answers carry no `usage`, like some local servers
        self.usages: list[dict] = []  # each chat completion's `usage` as it was sent (none where none was)
        self.reject_images = False
        self.json_schema_status = 400
        self.stream_options_supported = True
        self.strict_roles = False
        self.context_window: int | None = None
        self.embeddings_status: int | None = None
        self.drop_images = False
        self.model_fields: dict = {}  # more fields of the model list's entry: {"max_model_len": 4096} like vLLM
        self.delay = 0.0
        # A reasoning model: `thinking` (a str, or a function of the request body) comes before the answer
        # and spends its cap first, in `thinking_form`: "tags" (<think>…</think> in the content: llama.cpp
        # with --reasoning-format none, Ollama before 0.9), "unopened" (only </think>: the template opened
        # it, as DeepSeek-R1 distills' do), "reasoning_content" (llama.cpp, vLLM before 0.11, DeepSeek),
        # "reasoning" (Ollama, OpenRouter, newer vLLM) or "hidden" (OpenAI's o-series: only counted, in
        # usage.completion_tokens_details.reasoning_tokens).
        self.thinking: str | Callable[[dict], str] | None = None
        self.thinking_form = "tags"
        self.answer_started_at: list[float] = []  # time.monotonic() of each stream's first answer piece
        # Requests served at once, like a local server's slots (llama.cpp, Ollama with one): the rest queue; a
        # client that closes its connection frees its slot (aiohttp cancels the handler). None: no limit.
        self.slots: int | None = None
        self._slots: asyncio.Semaphore | None = None
        # llama.cpp's `GET /props` (at the root, beside /v1), e.g. {"total_slots": 3}; None: 404, as other servers.
        self.props: dict | None = None
        self.props_asked = 0  # GET /props received, whether it was served or not
        self.stream_first_delay = 0.0
        self.stream_chunk_chars = 16
        self.stream_chunk_interval = 0.0
        self._cuts: deque[tuple[int, str]] = deque()
        self._failures: dict[str, deque] = {"chat": deque(), "embeddings": deque(),
                                            "transcriptions": deque(), "speech": deque(), "models": deque()}
        self._hangs = {"chat": 0, "embeddings": 0, "transcriptions": 0, "speech": 0}
        self._outage: int | None = None
        self._empty_streams = 0
        self._counter = 0
        self._closed = asyncio.Event()
        self._arrived = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    async def start(self) -> None:
        """Start serving on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0,
                                     access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def close(self) -> None:
        """Release hanging or delayed requests and stop the server."""
        self._closed.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        """Value for AsyncOpenAI(base_url=...)."""
        return f"http://127.0.0.1:{self._port}/v1"

    def fail_next(self, status: int, *, times: int = 1, message: str | None = None,
                  retry_after: float | None = None, endpoint: str = "chat") -> None:
        """Answer the next `times` requests to endpoint with an error.

        endpoint is 'chat', 'embeddings', 'transcriptions', 'speech' or 'models'.
        """
        self._failures[endpoint].extend(
            OpenAIError(status, message, retry_after=retry_after) for _ in range(times))

    def fail_always(self, status: int) -> None:
        """Start an outage: every authorised request is answered with status."""
        self._outage = status

    def recover(self) -> None:
        """End the outage started by fail_always (queued fail_next errors stay)."""
        self._outage = None

    def empty_stream_next(self, times: int = 1) -> None:
        """Answer the next `times` streamed chat requests 200 with an event stream that holds nothing at all."""
        self._empty_streams += times

    def hang_next(self, times: int = 1, *, endpoint: str = "chat") -> None:
        """Make the next requests never answer, until the client disconnects or close()."""
        self._hangs[endpoint] += times

    def cut_stream_next(self, after_chunks: int, *, times: int = 1, mode: str = "abort") -> None:
        """Cut the next `times` streamed answers after after_chunks content chunks (reasoning ones count too).

        mode "abort" closes the TCP connection inside the chunked body: the openai SDK raises
        openai.APIConnectionError (caused by httpx's RemoteProtocolError, "incomplete chunked
        read") while the AsyncStream is iterated. mode "eof" ends the body cleanly with neither
        the finish_reason chunk nor "data: [DONE]": the iteration just stops, no error. mode "error"
        sends an error event as OpenAI's API and vLLM do when generation fails mid-stream (`data:`
        {"error": {...}}, then [DONE]); "error_event" the same under `event: error`, as proxies that
        name their events do. The openai SDK raises openai.APIError with the error's message for both.
        Requests without stream=True are not affected and do not use up a cut.
        """
        if mode not in CUT_MODES:
            raise ValueError(f"mode must be one of {', '.join(CUT_MODES)}, not {mode!r}")
        if after_chunks < 0:
            raise ValueError("after_chunks must be >= 0")
        self._cuts.extend((after_chunks, mode) for _ in range(times))

    async def wait_for_request(self, count: int = 1, timeout: float = 10.0, *,
                               endpoint: str = "chat") -> list[dict]:
        """Wait until at least count requests to endpoint arrived; return them.

        endpoint is 'chat', 'embeddings', 'transcriptions' or 'speech'.
        """
        recorded = {"chat": self.requests, "embeddings": self.embedding_requests,
                    "transcriptions": self.transcription_requests, "speech": self.speech_requests}[endpoint]
        loop = asyncio.get_running_loop()
        timeout = scaled(timeout)
        deadline = loop.time() + timeout
        while len(recorded) < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"expected {count} {endpoint} requests within {timeout:g}s, "
                                     f"got {len(recorded)}")
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except TimeoutError:
                pass
        return list(recorded)

    def _record(self, recorded: list[dict], body: dict) -> None:
        recorded.append(body)
        self._arrived.set()
        self._arrived = asyncio.Event()

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._closed.wait(), seconds)
        except TimeoutError:
            pass

    def _next_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-double{self._counter:06d}"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        routes = {("POST", "/v1/chat/completions"): self._chat_completions,
                  ("POST", "/v1/embeddings"): self._embeddings,
                  ("POST", "/v1/audio/transcriptions"): self._transcriptions,
                  ("POST", "/v1/audio/speech"): self._speech,
                  ("GET", "/v1/models"): self._models,
                  ("GET", "/props"): self._props}
        try:
            route = routes.get((request.method, request.path))
            if route is None:
                self._authorise(request)
                error = OpenAIError(404, f"Invalid URL ({request.method} {request.path})")
                error.code = None
                raise error
            if self.slots is None or route in (self._models, self._props):
                return await route(request)
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.slots)
            async with self._slots:
                return await route(request)
        except OpenAIError as error:
            return error.response()

    def _authorise(self, request: web.Request) -> None:
        if self.api_key is None:
            return
        if request.headers.get("Authorization", "") != f"Bearer {self.api_key}":
            raise OpenAIError(401, "Incorrect API key provided")

    async def _gate(self, request: web.Request, endpoint: str) -> None:
        """Auth, outage, hang and injected failures, in that order."""
        self._authorise(request)
        if self._outage is not None:
            raise OpenAIError(self._outage)
        if self._hangs.get(endpoint):
            self._hangs[endpoint] -= 1
            await self._sleep(3600)
            raise OpenAIError(503, "The double is shutting down.")
        failures = self._failures.get(endpoint)
        if failures:
            raise failures.popleft()

    @staticmethod
    async def _body(request: web.Request) -> dict:
        try:
            body = json.loads(await request.read())
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise OpenAIError(400, "We could not parse the JSON body of your request. (HINT: "
                                   "This likely means you aren't using your HTTP library "
                                   "correctly.)")
        return body

    async def _models(self, request: web.Request) -> web.Response:
        await self._gate(request, "models")
        model = {"id": self.model, "object": "model", "created": 1700000000,
                 "owned_by": "openai-double", **self.model_fields}
        return web.json_response({"object": "list", "data": [model]})

    async def _props(self, request: web.Request) -> web.Response:
        self.props_asked += 1
        self._authorise(request)
        if self.props is None:
            error = OpenAIError(404, f"Invalid URL ({request.method} {request.path})")
            error.code = None
            raise error
        return web.json_response(self.props)

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        self._record(self.requests, body)
        await self._gate(request, "chat")
        self._validate_chat(body)
        prompt = sum(count_tokens(message_text(m["content"])) for m in body["messages"]) + IMAGE_TOKENS * len(
            [] if self.drop_images else image_parts(body))
        self._check_context(body, prompt)
        empty = bool(body.get("stream")) and self._empty_streams > 0
        self._empty_streams -= empty
        if empty or (self.strict_roles and not roles_alternate(body["messages"])):
            if body.get("stream"):  # llama.cpp: the template fails after the 200 is sent
                response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
                await response.prepare(request)
                await response.write_eof()
                return response
            raise OpenAIError(500, ALTERNATION_ERROR)
        if self.delay:
            await self._sleep(self.delay)
        content = self.reply(body)
        if inspect.isawaitable(content):
            content = await content
        if not isinstance(content, str):
            raise TypeError(f"OpenAIDouble.reply must return str, not {type(content).__name__}")
        finish = "stop"
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        reasoning, content, answer_at = self._with_thinking(body, content)
        spent = count_tokens(reasoning) if reasoning else 0
        if limit and spent + count_tokens(content) > limit:  # the thinking spends the cap first
            reasoning = reasoning[:limit * 4]
            content, finish = content[:max(0, limit * 4 - len(reasoning))], "length"
            spent = min(spent, limit)
        completion = min(spent + count_tokens(content), limit) if limit else spent + count_tokens(content)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion}
        if reasoning and self.thinking_form == "hidden":
            usage["completion_tokens_details"] = {"reasoning_tokens": spent}
        field = self.thinking_form if reasoning and self.thinking_form in REASONING_FIELDS else None
        head = {"id": self._next_id("chatcmpl"), "created": int(time.time()),
                "model": body["model"], "system_fingerprint": None}
        if body.get("stream"):
            return await self._stream(request, body, head, content, finish, usage,
                                      (field, reasoning) if field else None, answer_at)
        message = {"role": "assistant", "content": content, "refusal": None}
        if field:
            message[field] = reasoning
            if field == "reasoning_content" and not content:
                message["content"] = None  # vLLM: all thinking and no answer
        choices = [{"index": i, "finish_reason": finish, "logprobs": None, "message": message}
                   for i in range(body.get("n") or 1)]
        if self.report_usage:
            self.usages.append(usage)
        return web.json_response({**head, "object": "chat.completion", "choices": choices,
                                  **({"usage": usage} if self.report_usage else {})})

    def _with_thinking(self, body: dict, answer: str) -> tuple[str, str, int]:
        """The thinking sent apart from the content (or only counted), the content, and where the answer
        begins in it, for `thinking` in `thinking_form`."""
        thinking = self.thinking(body) if callable(self.thinking) else self.thinking
        if thinking is None:
            return "", answer, 0
        if not isinstance(thinking, str):
            raise TypeError(f"OpenAIDouble.thinking must give a str, not {type(thinking).__name__}")
        if self.thinking_form in ("tags", "unopened"):
            before = ("<think>\n" if self.thinking_form == "tags" else "") + thinking + "\n</think>\n\n"
            return "", before + answer, len(before)
        if self.thinking_form not in (*REASONING_FIELDS, "hidden"):
            raise ValueError(f"unknown thinking_form {self.thinking_form!r}")
        return thinking, answer, 0

    async def _stream(self, request: web.Request, body: dict, head: dict, content: str,
                      finish: str, usage: dict, reasoning: tuple[str, str] | None = None,
                      answer_at: int = 0) -> web.StreamResponse:
        """The answer as server-sent chat.completion.chunk events, paced, maybe cut short.

        Nothing (not even the headers) is sent for stream_first_delay seconds; then the role
        chunk and the first stream_chunk_chars characters, then one chunk every
        stream_chunk_interval seconds (on a schedule from the first, so sleeps do not drift).
        `reasoning` (field, text) goes first, in deltas of that field; the time the first piece
        holding answer (from `answer_at` in the content) is sent goes to answer_started_at.
        """
        cut = self._cuts.popleft() if self._cuts else None
        if self.stream_first_delay:
            await self._sleep(self.stream_first_delay)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        size = max(1, self.stream_chunk_chars)
        deltas: list[tuple[dict, bool]] = []
        if reasoning is not None:
            field, text = reasoning
            also = {"content": ""} if field == "reasoning" else {}  # Ollama sends an empty content beside it
            deltas += [({**also, field: text[i:i + size]}, False) for i in range(0, len(text), size)]
        deltas += [({"content": content[i:i + size]}, i + size > answer_at) for i in range(0, len(content), size)]
        await self._send_chunk(response, head, {"role": "assistant", "content": ""})
        loop = asyncio.get_running_loop()
        started = loop.time()
        answering = False
        for number, (delta, answer) in enumerate(deltas[:cut[0]] if cut else deltas):
            # Paced against the start, so the small overshoot of each sleep does not add up.
            wait = started + number * self.stream_chunk_interval - loop.time()
            if number and wait > 0:
                await self._sleep(wait)
            if answer and not answering:
                answering = True
                self.answer_started_at.append(time.monotonic())
            await self._send_chunk(response, head, delta)
        if cut is not None:
            return await self._end_cut(request, response, cut[1])
        await self._send_chunk(response, head, {}, finish)
        if (body.get("stream_options") or {}).get("include_usage") and self.report_usage:
            event = {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            await response.write(f"data: {json.dumps(event)}\n\n".encode("utf-8"))
            self.usages.append(usage)
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    @staticmethod
    async def _send_chunk(response: web.StreamResponse, head: dict, delta: dict,
                          finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        event = {**head, "object": "chat.completion.chunk", "choices": [choice]}
        await response.write(f"data: {json.dumps(event)}\n\n".encode("utf-8"))

    @staticmethod
    async def _end_cut(request: web.Request, response: web.StreamResponse,
                       mode: str) -> web.StreamResponse:
        """End a cut stream: 'eof' finishes the body, 'abort' drops the connection inside it, 'error' and
        'error_event' send an error event and then [DONE]."""
        if mode in ("error", "error_event"):
            error = {"error": {"message": STREAM_ERROR_MESSAGE, "type": "server_error", "param": None,
                               "code": None}}
            name = "event: error\n" if mode == "error_event" else ""
            await response.write(f"{name}data: {json.dumps(error)}\n\n".encode("utf-8"))
            await response.write(b"data: [DONE]\n\n")
            mode = "eof"
        if mode == "eof":
            await response.write_eof()
            return response
        if request.transport is not None:
            request.transport.close()
        return response

    def _validate_chat(self, body: dict) -> None:
        """Reject bodies the real endpoint rejects (for the parameters the bot may use)."""
        if not isinstance(body.get("model"), str) or not body["model"]:
            raise OpenAIError(400, "you must provide a model parameter")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise OpenAIError(400, "Invalid 'messages': empty array. Expected an array with "
                                   "minimum length 1.", param="messages", code="empty_array")
        for i, message in enumerate(messages):
            where = f"messages[{i}]"
            if not isinstance(message, dict):
                raise OpenAIError(400, f"Invalid type for '{where}'.", param=where,
                                  code="invalid_type")
            if message.get("role") not in ROLES:
                raise OpenAIError(400, f"Invalid value: '{message.get('role')}'. Supported "
                                       f"values are: {', '.join(ROLES)}.",
                                  param=f"{where}.role", code="invalid_value")
            content = message.get("content")
            if content is None:
                raise OpenAIError(400, f"Missing required parameter: '{where}.content'.",
                                  param=f"{where}.content", code="missing_required_parameter")
            parts_ok = isinstance(content, list) and all(
                isinstance(p, dict) and p.get("type") in ("text", "image_url") for p in content)
            if not isinstance(content, str) and not parts_ok:
                raise OpenAIError(400, f"Invalid type for '{where}.content'.",
                                  param=f"{where}.content", code="invalid_type")
            for j, part in enumerate(content if isinstance(content, list) else []):
                self._validate_part(i, j, message["role"], part)
        temperature = body.get("temperature")
        if temperature is not None and (not isinstance(temperature, int | float)
                                        or not 0 <= temperature <= 2):
            raise OpenAIError(400, "Invalid 'temperature': must be between 0 and 2.",
                              param="temperature", code="invalid_value")
        for key in ("max_tokens", "max_completion_tokens", "n"):
            value = body.get(key)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise OpenAIError(400, f"Invalid '{key}': must be an integer >= 1.", param=key,
                                  code="invalid_value")
        if "stream_options" in body and not self.stream_options_supported:
            raise OpenAIError(400, "1 validation error: {'type': 'extra_forbidden', 'loc': ('body', "
                                   "'stream_options'), 'msg': 'Extra inputs are not permitted'}")
        self._validate_response_format(body)

    def _check_context(self, body: dict, prompt: int) -> None:
        """Refuse a prompt and cap past context_window, as llama.cpp's server does."""
        cap = body.get("max_completion_tokens") or body.get("max_tokens") or 16
        if self.context_window is not None and prompt + cap > self.context_window:
            raise OpenAIError(
                400, f"This model's maximum context length is {self.context_window} tokens. However, you "
                     f"requested {prompt + cap} tokens ({prompt} in the messages, {cap} in the completion). "
                     "Please reduce the length of the messages or completion.",
                param="messages", code="context_length_exceeded")

    def _validate_part(self, i: int, j: int, role: str, part: dict) -> None:
        """Reject a content part the real endpoint (or a text-only model) rejects."""
        where = f"messages.[{i}].content.[{j}]"
        if part["type"] == "text":
            if not isinstance(part.get("text"), str):
                raise OpenAIError(400, f"Missing required parameter: '{where}.text'.",
                                  param=f"{where}.text", code="missing_required_parameter")
            return
        if self.drop_images:
            return
        if self.reject_images:
            raise OpenAIError(400, "Invalid content type. image_url is only supported by "
                                   "certain models.", param=f"{where}.type", code="invalid_value")
        if role != "user":
            raise OpenAIError(400, "Image URLs are only allowed for messages with role 'user', "
                                   f"but this message with role '{role}' contains an image URL.",
                              param=f"messages.[{i}].content", code="invalid_value")
        image = part.get("image_url")
        if not isinstance(image, dict) or not isinstance(image.get("url"), str):
            raise OpenAIError(400, f"Missing required parameter: '{where}.image_url.url'.",
                              param=f"{where}.image_url.url", code="missing_required_parameter")
        if image.get("detail") is not None and image["detail"] not in IMAGE_DETAILS:
            raise OpenAIError(400, f"Invalid value: '{image['detail']}'. Supported values are: "
                                   "'auto', 'low', and 'high'.",
                              param=f"{where}.image_url.detail", code="invalid_value")
        url = image["url"]
        if not url.startswith("https://") and data_url_image(url) is None:
            raise OpenAIError(400, "Invalid image.", param=f"{where}.image_url",
                              code="invalid_image_format")

    def _validate_response_format(self, body: dict) -> None:
        fmt = body.get("response_format")
        if fmt is None:
            return
        if not isinstance(fmt, dict) or fmt.get("type") not in RESPONSE_FORMATS:
            raise OpenAIError(400, "Invalid value for 'response_format.type'.",
                              param="response_format.type", code="invalid_value")
        if fmt["type"] == "json_schema":
            if self.reject_json_schema and self.json_schema_status == 500:
                raise OpenAIError(500, JSON_SCHEMA_500)
            if self.reject_json_schema:
                raise OpenAIError(400, "Invalid parameter: 'response_format' of type "
                                       "'json_schema' is not supported with this model.",
                                  param="response_format", code=None)
            schema = fmt.get("json_schema")
            if not isinstance(schema, dict) or not schema.get("name"):
                raise OpenAIError(400, "Missing required parameter: "
                                       "'response_format.json_schema.name'.",
                                  param="response_format.json_schema.name",
                                  code="missing_required_parameter")
        if fmt["type"] == "json_object" and not any(
                "json" in message_text(m["content"]).lower() for m in body["messages"]):
            raise OpenAIError(400, "'messages' must contain the word 'json' in some form, to use "
                                   "'response_format' of type 'json_object'.",
                              param="messages", code=None)

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        self._record(self.embedding_requests, body)
        await self._gate(request, "embeddings")
        if self.embeddings_status is not None:
            raise OpenAIError(self.embeddings_status, "Llama model must be created with embedding=True to call "
                                                      "this method" if self.embeddings_status == 500 else None)
        if not isinstance(body.get("model"), str) or not body["model"]:
            raise OpenAIError(400, "you must provide a model parameter")
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if (not isinstance(texts, list) or not 1 <= len(texts) <= 2048
                or not all(isinstance(t, str) and t for t in texts)):
            raise OpenAIError(400, "'$.input' is invalid. Please check the API reference: "
                                   "https://platform.openai.com/docs/api-reference.",
                              param="input")
        dim = body.get("dimensions") or self.embedding_dim
        if not isinstance(dim, int) or dim < 1:
            raise OpenAIError(400, "Invalid 'dimensions'.", param="dimensions",
                              code="invalid_value")
        encoding = body.get("encoding_format") or "float"
        if encoding not in ("float", "base64"):
            raise OpenAIError(400, "Invalid value for 'encoding_format'.",
                              param="encoding_format", code="invalid_value")
        data = []
        for i, text in enumerate(texts):
            vector: Any = trigram_embedding(text, dim)
            if encoding == "base64":
                vector = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": i, "embedding": vector})
        tokens = sum(count_tokens(t) for t in texts)
        return web.json_response({"object": "list", "data": data, "model": body["model"],
                                  "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    async def _transcriptions(self, request: web.Request) -> web.Response:
        record = await self._transcription_form(request)
        self._record(self.transcription_requests, record)
        if not self.transcriptions_supported:
            # what Ollama, which has no audio endpoint, answers
            return web.Response(status=404, text="404 page not found")
        await self._gate(request, "transcriptions")
        self._validate_transcription(record)
        text = self.transcript(record) if callable(self.transcript) else self.transcript
        if not isinstance(text, str):
            raise TypeError(f"OpenAIDouble.transcript must give a str, not {type(text).__name__}")
        if record["response_format"] == "text":
            return web.Response(text=text)
        return web.json_response({"text": text})

    async def _speech(self, request: web.Request) -> web.Response:
        if not self.speech_supported:
            self._record(self.speech_requests, {})
            return web.Response(status=404, text="404 page not found")  # Ollama's answer: no such endpoint
        body = await self._body(request)
        self._record(self.speech_requests, body)
        await self._gate(request, "speech")
        self._validate_speech(body)
        fmt = body.get("response_format") or "mp3"
        audio = self.speech_audio if fmt == "opus" else SPOKEN_OTHER[fmt]
        return web.Response(body=audio, content_type=SPEECH_FORMATS[fmt])

    @staticmethod
    def _validate_speech(body: dict) -> None:
        """Reject a speech request the real endpoint rejects."""
        for name in ("model", "input", "voice"):
            if body.get(name) is None:
                raise OpenAIError(400, f"Missing required parameter: '{name}'.", param=name,
                                  code="missing_required_parameter")
        if not isinstance(body["model"], str) or not body["model"]:
            raise OpenAIError(400, "you must provide a model parameter")
        text = body["input"]
        if not isinstance(text, str) or not text:
            raise OpenAIError(400, "Invalid 'input': string too short. Expected a string with minimum length 1,"
                                   " but got an empty string instead.", param="input", code="string_too_short")
        if len(text) > SPEECH_MAX_INPUT:
            raise OpenAIError(400, f"Invalid 'input': string too long. Expected a string with maximum length "
                                   f"{SPEECH_MAX_INPUT}, but got a string with length {len(text)} instead.",
                              param="input", code="string_above_max_length")
        voice = body["voice"]
        if not (isinstance(voice, str) and voice) and not (isinstance(voice, dict) and voice.get("id")):
            raise OpenAIError(400, "Invalid 'voice'.", param="voice", code="invalid_value")
        fmt = body.get("response_format")
        if fmt is not None and fmt not in SPEECH_FORMATS:
            raise OpenAIError(400, f"Invalid value: '{fmt}'. Supported values are: {', '.join(SPEECH_FORMATS)}.",
                              param="response_format", code="invalid_value")
        speed = body.get("speed")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, (int, float))
                                  or not 0.25 <= speed <= 4.0):
            raise OpenAIError(400, "Invalid 'speed': must be between 0.25 and 4.0.", param="speed",
                              code="invalid_value")

    @staticmethod
    async def _transcription_form(request: web.Request) -> dict:
        """The record of a transcription request: its form fields and the uploaded file."""
        if request.content_type != "multipart/form-data":
            raise OpenAIError(400, "Could not parse multipart form")
        form = await request.post()
        upload = form.get("file")
        content, filename = b"", None
        if isinstance(upload, web.FileField):
            content, filename = upload.file.read(), upload.filename
            upload.file.close()
        fields = {key: form.get(key) for key in ("model", "language", "prompt",
                                                 "response_format", "temperature")}
        return {**fields, "filename": filename, "size": len(content), "content": content}

    @staticmethod
    def _validate_transcription(record: dict) -> None:
        """Reject a transcription request the real endpoint rejects."""
        if not record["model"]:
            raise OpenAIError(400, "you must provide a model parameter")
        if record["filename"] is None:
            raise OpenAIError(400, "Missing required parameter: 'file'.", param="file",
                              code="missing_required_parameter")
        language = record["language"]
        if language is not None and not re.fullmatch(r"[a-z]{2}", language):
            raise OpenAIError(400, f"Invalid language '{language}'. Language parameter must be "
                                   "specified in ISO-639-1 format.", param="language",
                              code="invalid_value")
        fmt = record["response_format"]
        if fmt is not None and fmt not in TRANSCRIPT_FORMATS:
            raise OpenAIError(400, f"Invalid value: '{fmt}'. The double supports 'json' and "
                                   "'text'.", param="response_format", code="invalid_value")
        temperature = record["temperature"]
        if temperature is not None and not re.fullmatch(r"(0(\.\d*)?|1(\.0*)?)", temperature):
            raise OpenAIError(400, "Invalid 'temperature': must be between 0 and 1.",
                              param="temperature", code="invalid_value")
        if record["size"] > 25 * 1024 * 1024:
            raise OpenAIError(413, f"Maximum content size limit ({25 * 1024 * 1024}) exceeded "
                                   f"({record['size']} bytes read)")
        extension = PurePosixPath(record["filename"]).suffix[1:].lower()
        if extension not in AUDIO_FORMATS or (extension == "oga"
                                              and record["model"].startswith("gpt-4o")):
            raise OpenAIError(400, f"Invalid file format. Supported formats: {AUDIO_FORMATS}",
                              param="file", code="invalid_value")
        if not audio_looks_valid(extension, record["content"]):
            raise OpenAIError(400, "Audio file might be corrupted or unsupported", param="file",
                              code="invalid_value")


class CountingOpenAIDouble(OpenAIDouble):
    """The OpenAI double for benchmarks: counts requests instead of keeping their bodies (they would skew RSS)."""

    def __init__(self) -> None:
        super().__init__()
        self.chats = self.extractions = self.embeddings = self.speeches = 0

    def _record(self, recorded: list, body: dict) -> None:
        if recorded is self.embedding_requests:
            self.embeddings += 1
        elif recorded is self.speech_requests:
            self.speeches += 1
        elif "response_format" in body:
            self.extractions += 1
        else:
            self.chats += 1
