"""The chat model behind the companion: one OpenAI-compatible completion, retried within a budget."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any, Sequence

import openai

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429})


class ModelUnavailable(Exception):
    """The model gave no answer within the retry budget, or refused the request outright."""


def backoff_delay(attempt: int, base: float, retry_after: float | None = None, cap: float = 8.0) -> float:
    """Return seconds to wait before retry number `attempt` (0-based): the server's Retry-After, else doubling."""
    if retry_after is not None and retry_after >= 0:
        return retry_after
    delay = min(cap * base, base * 2**attempt)
    return delay + random.uniform(0, delay / 4)


def is_retryable(error: Exception) -> bool:
    """True for timeouts, lost connections, 408/409/429 and 5xx; False for 4xx such as a bad key."""
    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header else None
    except ValueError:
        return None


class ChatModel:
    """Completes a list of chat messages with retries, bounded in total time."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        attempt_timeout: float = 20.0,
        budget: float = 60.0,
        backoff: float = 1.0,
    ) -> None:
        self.client = client
        self.model = model
        self.attempt_timeout = attempt_timeout
        self.budget = budget
        self.backoff = backoff
        # Set at shutdown: finish the attempt in flight but start no new one.
        self.stopping = asyncio.Event()

    async def complete(self, messages: Sequence[dict[str, str]], **options: Any) -> str:
        """Return the assistant's text for `messages`, or raise ModelUnavailable."""
        deadline = time.monotonic() + self.budget
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            try:
                response = await asyncio.wait_for(
                    self.client.chat.completions.create(model=self.model, messages=list(messages), **options),
                    timeout=min(self.attempt_timeout, max(remaining, 0.1)),
                )
            except Exception as error:  # noqa: BLE001 - sorted into retryable or not just below
                if not is_retryable(error):
                    log.error("model request refused: %s", _describe(error))
                    raise ModelUnavailable(_describe(error)) from error
                delay = backoff_delay(attempt, self.backoff, _retry_after(error))
                if self.stopping.is_set() or time.monotonic() + delay >= deadline:
                    log.warning("model unavailable after %d attempts: %s", attempt + 1, _describe(error))
                    raise ModelUnavailable(_describe(error)) from error
                log.info("model attempt %d failed (%s); retrying in %.1fs", attempt + 1, _describe(error), delay)
                await asyncio.sleep(delay)
                attempt += 1
                continue
            # NUL shows nothing in Telegram: an answer of NULs and spaces is no answer.
            text = (response.choices[0].message.content or "").replace("\x00", "").strip() if response.choices else ""
            if not text:
                raise ModelUnavailable("the model returned an empty answer")
            return text


def _describe(error: Exception) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    return type(error).__name__
