"""What a model server's error says, read from the shapes real servers answer in (pure functions)."""

from __future__ import annotations

import asyncio
import json
import re
from typing import TypeGuard

import httpx
import openai

SAID_MAX = 200  # characters of the server's own words in a log line
# A key or token the server echoes back ("Incorrect API key provided: sk-abc…"), whatever the log filter knows.
KEY_LIKE = re.compile(r"\b(?:sk|pk|rk|hf|gsk|xai)[-_][A-Za-z0-9_\-*.]{6,}|\bBearer\s+\S+", re.IGNORECASE)
# pydantic's validation errors (llama-cpp-python, vLLM) quote the input they refused, which may be a user's
# message: it stays out of the log.
ECHOED_INPUT = re.compile(r"""(['"]input['"]\s*:\s*)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\{[^}]*\}|\[[^\]]*\])""")
CONTEXT_WORDS = re.compile(
    r"context[ _]length|context window|maximum context|context size|too many tokens|exceeds? the (?:maximum|max)"
    r"|prompt is too long|input is too long|n_ctx",
    re.IGNORECASE,
)
CONTEXT_SIZE = re.compile(
    r"(?:maximum context length|context length|context window|context size|n_ctx)\D{0,40}?(\d{3,7})",
    re.IGNORECASE,
)


def server_said(error: BaseException) -> str:
    """Return the server's own words in an error answer, on one line, shortened, with anything key-like hidden;
    "" when it said nothing readable."""
    if not isinstance(error, openai.APIStatusError):
        return ""
    said = words_of(error.body)
    if not said:
        said = error.message.removeprefix(f"Error code: {error.status_code}").lstrip(" -")
    said = ECHOED_INPUT.sub(r"\1…", said)
    said = KEY_LIKE.sub("[hidden]", " ".join(said.split()))
    return said if len(said) <= SAID_MAX else said[: SAID_MAX - 1] + "…"


def words_of(body: object) -> str:
    """Return the message inside an error body: OpenAI's {"error": {"message"}}, {"error": "…"}, FastAPI's
    {"detail": […]} (llama-cpp-python, vLLM), {"message": "…"}, or plain text."""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        return "; ".join(filter(None, map(words_of, body)))
    if not isinstance(body, dict):
        return ""
    for key in ("error", "detail", "message", "msg"):
        if key in body and body[key]:
            return words_of(body[key])
    return json.dumps(body, ensure_ascii=False) if body else ""


def describe(error: BaseException) -> str:
    """Return a short account of a failed request for the log: the status and what the server said."""
    if isinstance(error, openai.APIStatusError):
        said = server_said(error)
        return f"HTTP {error.status_code}: {said}" if said else f"HTTP {error.status_code}"
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    detail = " ".join(str(error).split())[:SAID_MAX]
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__


def whole_text(error: openai.APIStatusError) -> str:
    """Return everything an error answer says, its body's every field included (a parameter's name may sit in
    pydantic's `loc`, not in its message)."""
    body = error.body if isinstance(error.body, str) else json.dumps(error.body, ensure_ascii=False, default=str)
    return f"{body} {error.message}"


def names(error: BaseException, *words: str) -> bool:
    """True when the server's error names any of `words` (a parameter it refused, say), in any case."""
    if not isinstance(error, openai.APIStatusError):
        return False
    text = whole_text(error).lower()
    return any(word.lower() in text for word in words)


def context_exceeded(error: BaseException) -> TypeGuard[openai.APIStatusError]:
    """True when the server refused the request for holding more tokens than its context (OpenAI's
    `context_length_exceeded`, llama.cpp's, vLLM's and Ollama's wordings)."""
    if not isinstance(error, openai.APIStatusError) or error.status_code not in (400, 413, 422, 500):
        return False
    return getattr(error, "code", None) == "context_length_exceeded" or bool(CONTEXT_WORDS.search(whole_text(error)))


def context_size(error: BaseException) -> int | None:
    """Return the context the server says it has, in tokens ("maximum context length is 8192 tokens"), or None."""
    if not context_exceeded(error):
        return None
    match = CONTEXT_SIZE.search(whole_text(error))
    return int(match.group(1)) if match else None


def error_kind(error: BaseException) -> str:
    """Return the kind of a failed model request, as the metrics count it: "timeout", "connection", "rate_limited"
    (429), "server_error" (5xx), "auth" (401, 403), "refused" (any other 4xx), "stream_broken" or "other"."""
    if isinstance(error, (openai.APITimeoutError, asyncio.TimeoutError, httpx.TimeoutException)):
        return "timeout"
    if isinstance(error, (openai.APIConnectionError, httpx.TransportError)):
        return "connection"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status == 429:
            return "rate_limited"
        if status >= 500:
            return "server_error"
        if status in (401, 403):
            return "auth"
        return "refused"
    if isinstance(error, openai.APIError) and not isinstance(error, openai.APIResponseValidationError):
        return "stream_broken"  # an error event inside a stream
    return "other"
