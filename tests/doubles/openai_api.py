"""Strict local double of the OpenAI HTTP API (chat completions, embeddings, models)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import inspect
import json
import math
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

ROLES = ("system", "user", "assistant")
RESPONSE_FORMATS = ("text", "json_object", "json_schema")
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


def echo_reply(body: dict) -> str:
    """Default reply: 'echo: ' plus the last user message's text."""
    users = [m for m in body["messages"] if m.get("role") == "user"]
    return "echo: " + (message_text(users[-1].get("content")) if users else "")


class OpenAIDouble:
    """OpenAI API double: records requests, answers with `reply`, injects failures and delays."""

    def __init__(self, api_key: str | None = "sk-test", *, model: str = "gpt-4o-mini",
                 embedding_dim: int = 64, reject_json_schema: bool = False) -> None:
        self.api_key = api_key
        self.model = model
        self.embedding_dim = embedding_dim
        self.reject_json_schema = reject_json_schema
        self.requests: list[dict] = []
        self.embedding_requests: list[dict] = []
        self.reply: Callable[[dict], str | Awaitable[str]] = echo_reply
        self.delay = 0.0
        self._failures: dict[str, deque] = {"chat": deque(), "embeddings": deque()}
        self._hangs = {"chat": 0, "embeddings": 0}
        self._outage: int | None = None
        self._counter = 0
        self._closed = asyncio.Event()
        self._arrived = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    async def start(self) -> None:
        """Start serving on a free port of 127.0.0.1."""
        app = web.Application()
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
        """Answer the next `times` requests to endpoint ('chat' or 'embeddings') with an error."""
        self._failures[endpoint].extend(
            OpenAIError(status, message, retry_after=retry_after) for _ in range(times))

    def fail_always(self, status: int) -> None:
        """Start an outage: every authorised request is answered with status."""
        self._outage = status

    def recover(self) -> None:
        """End the outage started by fail_always (queued fail_next errors stay)."""
        self._outage = None

    def hang_next(self, times: int = 1, *, endpoint: str = "chat") -> None:
        """Make the next requests never answer, until the client disconnects or close()."""
        self._hangs[endpoint] += times

    async def wait_for_request(self, count: int = 1, timeout: float = 10.0, *,
                               endpoint: str = "chat") -> list[dict]:
        """Wait until at least count chat (or embeddings) requests arrived; return them."""
        recorded = self.requests if endpoint == "chat" else self.embedding_requests
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(recorded) < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"expected {count} {endpoint} requests within {timeout}s, "
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
                  ("GET", "/v1/models"): self._models}
        try:
            route = routes.get((request.method, request.path))
            if route is None:
                self._authorise(request)
                error = OpenAIError(404, f"Invalid URL ({request.method} {request.path})")
                error.code = None
                raise error
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
                 "owned_by": "openai-double"}
        return web.json_response({"object": "list", "data": [model]})

    async def _chat_completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        self._record(self.requests, body)
        await self._gate(request, "chat")
        self._validate_chat(body)
        if self.delay:
            await self._sleep(self.delay)
        content = self.reply(body)
        if inspect.isawaitable(content):
            content = await content
        if not isinstance(content, str):
            raise TypeError(f"OpenAIDouble.reply must return str, not {type(content).__name__}")
        finish = "stop"
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        if limit and count_tokens(content) > limit:
            content, finish = content[:limit * 4], "length"
        prompt = sum(count_tokens(message_text(m["content"])) for m in body["messages"])
        completion = min(count_tokens(content), limit) if limit else count_tokens(content)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion}
        head = {"id": self._next_id("chatcmpl"), "created": int(time.time()),
                "model": body["model"], "system_fingerprint": None}
        if body.get("stream"):
            return await self._stream(request, body, head, content, finish, usage)
        choices = [{"index": i, "finish_reason": finish, "logprobs": None,
                    "message": {"role": "assistant", "content": content, "refusal": None}}
                   for i in range(body.get("n") or 1)]
        return web.json_response({**head, "object": "chat.completion", "choices": choices,
                                  "usage": usage})

    async def _stream(self, request: web.Request, body: dict, head: dict, content: str,
                      finish: str, usage: dict) -> web.StreamResponse:
        """Send the answer as server-sent chat.completion.chunk events."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        deltas = [{"role": "assistant", "content": ""}]
        deltas += [{"content": content[i:i + 16]} for i in range(0, len(content), 16)]
        chunks = [{"index": 0, "delta": d, "finish_reason": None, "logprobs": None} for d in deltas]
        chunks.append({"index": 0, "delta": {}, "finish_reason": finish, "logprobs": None})
        events = [{**head, "object": "chat.completion.chunk", "choices": [c]} for c in chunks]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**head, "object": "chat.completion.chunk", "choices": [],
                           "usage": usage})
        for event in events:
            await response.write(f"data: {json.dumps(event)}\n\n".encode("utf-8"))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
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
        self._validate_response_format(body)

    def _validate_response_format(self, body: dict) -> None:
        fmt = body.get("response_format")
        if fmt is None:
            return
        if not isinstance(fmt, dict) or fmt.get("type") not in RESPONSE_FORMATS:
            raise OpenAIError(400, "Invalid value for 'response_format.type'.",
                              param="response_format.type", code="invalid_value")
        if fmt["type"] == "json_schema":
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
