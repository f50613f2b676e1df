"""The chat model behind the companion: one OpenAI-compatible completion, retried within a budget."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence, TypeVar

import httpx
import openai

from llm.tokens import estimate_tokens, message_tokens

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429})
T = TypeVar("T")


class ModelUnavailable(Exception):
    """The model gave no answer within the retry budget, or refused the request outright."""

    @property
    def refused(self) -> bool:
        """True when the server refused the request as malformed (400 or 422), not for being down or busy."""
        return isinstance(self.__cause__, (openai.BadRequestError, openai.UnprocessableEntityError))


class StreamBroken(Exception):
    """A streamed answer ended before the model said it was finished; the attempt is retried."""


@dataclass
class Tally:
    """Tokens spent by the completions it was given to: the server's `usage`, estimated when it reports none."""

    tokens: int = 0
    estimated: bool = False  # some of them were estimated

    def add(self, usage: object | None, messages: Sequence[dict], answer: str) -> None:
        """Add one completion's tokens: its `usage.total_tokens`, or an estimate from the text."""
        total = getattr(usage, "total_tokens", None)
        if isinstance(total, int) and total >= 0:
            self.tokens += total
        else:
            self.tokens += message_tokens(list(messages)) + estimate_tokens(answer)
            self.estimated = True


def backoff_delay(attempt: int, base: float, retry_after: float | None = None, cap: float = 8.0) -> float:
    """Return seconds to wait before retry number `attempt` (0-based): the server's Retry-After, else doubling."""
    if retry_after is not None and retry_after >= 0:
        return retry_after
    delay = min(cap * base, base * 2**attempt)
    return delay + random.uniform(0, delay / 4)


def is_retryable(error: Exception) -> bool:
    """True for timeouts, lost connections, broken streams, 408/409/429 and 5xx; False for 4xx such as a bad key."""
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    if isinstance(error, openai.APIResponseValidationError):
        return False
    # A plain APIError is an error event inside a stream; httpx errors surface while a stream is read.
    return isinstance(error, (openai.APIError, httpx.TransportError, asyncio.TimeoutError, StreamBroken))


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header else None
    except ValueError:
        return None


def clean_answer(text: str) -> str:
    """Return the model's text without NULs (Telegram shows none) and surrounding whitespace."""
    return text.replace("\x00", "").strip()


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
        # Told each time a request ends in ModelUnavailable (bot.py counts them for /stats); its errors are logged.
        self.on_failure: Callable[[], Awaitable[None]] | None = None

    async def complete(
        self,
        messages: Sequence[dict],
        on_text: Callable[[str], None] | None = None,
        tally: Tally | None = None,
        **options: Any,
    ) -> str:
        """Return the assistant's text for `messages`, or raise ModelUnavailable.

        With `on_text`, the answer is streamed and `on_text` gets the raw text so far as it grows (a retry
        starts it again from the beginning). A streamed attempt lasts as long as text keeps coming: it
        fails when nothing arrives for `attempt_timeout` seconds. `tally` gets the tokens of the answer.
        """
        tally = tally if tally is not None else Tally()
        if on_text is None:
            attempt = lambda timeout: self._complete_once(messages, options, timeout, tally)  # noqa: E731
        else:
            attempt = lambda timeout: self._stream_once(messages, on_text, options, timeout, tally)  # noqa: E731
        text = await self.with_retries(attempt)
        if not text:  # an answer of NULs and spaces is no answer
            raise ModelUnavailable("the model returned an empty answer")
        return text

    async def with_retries(
        self,
        attempt: Callable[[float], Awaitable[T]],
        *,
        attempt_timeout: float | None = None,
        budget: float | None = None,
        log_refusal: bool = True,
    ) -> T:
        """Return what `attempt(seconds it may take)` returns, retrying what is retryable within the budget.

        The timeouts default to the model's: each attempt `attempt_timeout`, all of them `budget`. Raises
        ModelUnavailable when the budget is spent, at shutdown, or on an error not worth retrying (logged
        unless `log_refusal` is False: the caller explains it better).
        """
        timeout = attempt_timeout or self.attempt_timeout
        deadline = time.monotonic() + (budget or self.budget)
        tries = 0
        while True:
            remaining = deadline - time.monotonic()
            try:
                return await attempt(min(timeout, max(remaining, 0.1)))
            except Exception as error:  # noqa: BLE001 - sorted into retryable or not just below
                if not is_retryable(error):
                    if log_refusal:
                        log.error("model request refused: %s", _describe(error))
                    await self._report_failure()
                    raise ModelUnavailable(_describe(error)) from error
                delay = backoff_delay(tries, self.backoff, _retry_after(error))
                if self.stopping.is_set() or time.monotonic() + delay >= deadline:
                    log.warning("model unavailable after %d attempts: %s", tries + 1, _describe(error))
                    await self._report_failure()
                    raise ModelUnavailable(_describe(error)) from error
                log.info("model attempt %d failed (%s); retrying in %.1fs", tries + 1, _describe(error), delay)
                await asyncio.sleep(delay)
                tries += 1

    async def _report_failure(self) -> None:
        if self.on_failure is None:
            return
        try:
            await self.on_failure()
        except Exception as error:  # noqa: BLE001 - counting a failure must not hide it
            log.warning("could not count a model failure: %s", type(error).__name__)

    async def _complete_once(self, messages: Sequence[dict], options: dict, timeout: float, tally: Tally) -> str:
        response = await asyncio.wait_for(
            self.client.chat.completions.create(model=self.model, messages=list(messages), **options),
            timeout=timeout,
        )
        text = clean_answer(response.choices[0].message.content or "") if response.choices else ""
        tally.add(response.usage, messages, text)
        return text

    async def _stream_once(
        self, messages: Sequence[dict], on_text: Callable[[str], None], options: dict, timeout: float, tally: Tally
    ) -> str:
        stream = await asyncio.wait_for(
            self.client.chat.completions.create(
                model=self.model, messages=list(messages), stream=True, stream_options={"include_usage": True},
                **options,
            ),
            timeout=timeout,
        )
        text, finished, usage = "", False, None
        loop = asyncio.get_running_loop()
        try:
            # Each piece must come within the attempt timeout: a stalled stream is a failed attempt.
            async with asyncio.timeout(self.attempt_timeout) as silence:
                async for chunk in stream:
                    silence.reschedule(loop.time() + self.attempt_timeout)
                    usage = chunk.usage or usage  # the last chunk, with no choices, when the server sends it
                    for choice in chunk.choices[:1]:
                        if choice.delta is not None and choice.delta.content:
                            text += choice.delta.content
                            on_text(text)
                        finished = finished or choice.finish_reason is not None
        finally:
            await stream.close()
        if not finished:
            raise StreamBroken("the stream ended before the answer was finished")
        tally.add(usage, messages, text)
        return clean_answer(text)


def _describe(error: Exception) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    return type(error).__name__
