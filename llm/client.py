"""The chat model behind the companion: one OpenAI-compatible completion, retried within a budget."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, AsyncIterator, Awaitable, Callable, Sequence, TypeVar

import httpx
import httpx2
import openai

from json_bytes import dumps
from llm.answers import clean_answer, end_cleanly, schema_instruction, with_instruction
from llm.errors import context_exceeded, context_size, describe, error_kind, names
from llm.gate import Gate, Preempted
from llm.responses import ANSWER_PACE_S, PACE_S, SHORTEST_PACE_S, answer_of, read_chunks, timeouts
from llm.roles import strict_roles
from llm.server import ServerFeatures
from llm.thinking import ThinkingSplitter, opened_in_prompt, reasoning_of, reasoning_tokens, split_thinking
from llm.tokens import estimate_tokens, message_tokens
from llm.wire import Deltas
from metrics import Metrics

log = logging.getLogger(__name__)

CHAT_PATH = "/chat/completions"
JSON_HEADERS = {"Content-Type": "application/json"}
RETRYABLE_STATUS = frozenset({408, 409, 429})
FORMAT_WORDS = ("response_format", "json_schema", "json_object")
T = TypeVar("T")
# The fewest prompt tokens any vision model spends on a picture is in the tens (OpenAI's low detail: 85,
# Gemma 3: 256); a server that drops the image part adds none, or a separator or two.
IMAGE_MIN_TOKENS = 8
# A stream's silence timer is moved on once it lags this much (a quarter of the silence allowed, when that is
# shorter), not for each of a hundred pieces: a stalled stream fails at most this much before `silence` is up.
RESCHEDULE_S = 0.5
# What a streamed answer's `on_text` gets, the answer so far, and what it may return: in how many seconds it would
# like the text again (None: no wish).
OnText = Callable[[str], float | None]


class ModelUnavailable(Exception):
    """The model gave no answer within the retry budget, or refused the request outright."""

    @property
    def refused(self) -> bool:
        """True when the server refused the request as malformed (400 or 422), not for being down or busy."""
        return isinstance(self.__cause__, (openai.BadRequestError, openai.UnprocessableEntityError))


class TooLong(Exception):
    """The request did not fit: its prompt is past the server's context, or the answer hit its cap unfinished.

    Only structured calls raise it (`ChatModel.complete_json`): the caller sends less and asks again.
    """

    def __init__(self, message: str, context: int | None = None) -> None:
        super().__init__(message)
        self.context = context  # the server's context window, when it said


class AnswerCut(TooLong):
    """A structured answer reached its token cap before it was finished; `text` is what came."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


class StreamBroken(Exception):
    """A streamed answer ended before the model said it was finished; the attempt is retried."""


class EmptyStream(StreamBroken):
    """The server answered 200 and then sent no text at all (llama.cpp's way of failing mid-template)."""


@dataclass
class Tally:
    """Tokens spent by the completions it was given to: the server's `usage`, estimated when it reports none."""

    tokens: int = 0
    estimated: bool = False  # some of them were estimated

    def add(self, usage: dict | None, messages: Sequence[dict], answer: str) -> None:
        """Add one completion's tokens: its `usage.total_tokens`, or an estimate from the text."""
        total = usage.get("total_tokens") if usage else None
        if isinstance(total, int) and total >= 0:
            self.tokens += total
        else:
            self.tokens += message_tokens(list(messages)) + estimate_tokens(answer)
            self.estimated = True


def split_usage(usage: dict | None, messages: Sequence[dict], answer: str) -> tuple[int, int]:
    """Return one completion's (prompt, completion) tokens: the server's `usage`, each part estimated from the text
    where it reports none."""
    prompt, completion = (usage.get("prompt_tokens"), usage.get("completion_tokens")) if usage else (None, None)
    if not (isinstance(prompt, int) and prompt >= 0):
        prompt = message_tokens(list(messages))
    if not (isinstance(completion, int) and completion >= 0):
        completion = estimate_tokens(answer)
    return prompt, completion


def failure_kind(error: BaseException) -> str:
    """Return the kind of a failed model request, as the metrics count it (llm/errors.py's error_kind, and this
    module's own failures)."""
    if isinstance(error, StreamBroken):
        return "stream_broken"
    if isinstance(error, TooLong):
        return "too_long"
    return error_kind(error)


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


def prompt_tokens(answer: dict) -> int | None:
    """Return the prompt tokens a completion's `usage` reports, or None when it reports none."""
    usage = answer.get("usage")
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return tokens if isinstance(tokens, int) else None


def first_choice(answer: dict) -> tuple[dict | None, dict]:
    """Return an unstreamed answer's first choice and its message ({} when it has none), or (None, {}) when
    the answer holds no choice shaped as the API's."""
    choices = answer.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    message = choice.get("message") if choice is not None else None
    return choice, message if isinstance(message, dict) else {}


def usage_of(answer: dict) -> dict | None:
    """Return the usage an answer reports, or None."""
    usage = answer.get("usage")
    return usage if isinstance(usage, dict) and usage else None


def text_field(value: object) -> str | None:
    """Return a field that should hold text: as it is when it does, None otherwise."""
    return value if isinstance(value, str) else None


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header else None
    except ValueError:
        return None


def _unshown(text: str) -> None:
    """Show nothing of an answer as it streams (an extraction's JSON)."""


class ChatModel:
    """Completes a list of chat messages with retries, bounded in total time, in the form the server takes."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        attempt_timeout: float = 20.0,
        budget: float = 60.0,
        backoff: float = 1.0,
        features: ServerFeatures | None = None,
        on_failure: Callable[[], Awaitable[None]] | None = None,
        gate: Gate | None = None,
        upkeep: bool = False,
        metrics: Metrics | None = None,
        streams: openai.AsyncOpenAI | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.attempt_timeout = attempt_timeout
        self.budget = budget
        self.backoff = backoff
        self.features = features or ServerFeatures()
        # Set at shutdown: finish the attempt in flight but start no new one.
        self.stopping = asyncio.Event()
        # Told each time a request ends in ModelUnavailable (bot.py counts them for /stats); its errors are logged.
        self.on_failure = on_failure
        # The server's slots, shared by every model on it (llm/gate.py); `upkeep`: this model does memory upkeep
        # (fact extraction), which gives way to a conversation.
        self.gate = gate or Gate(None)
        self.upkeep = upkeep
        self.metrics = metrics or Metrics()  # counts every completion's tokens and every failure, by kind
        # `streams`: a ModelServer's client for streams, whose aiohttp session pauses the socket while a piece waits
        # unread (llm/servers.py): a stream through it is read paced, a few times a second (llm/responses.py).
        # Without it, streams go through `client`, which may hand them over piece by piece, and are read as the
        # pieces come.
        self.streams = streams

    async def complete(
        self,
        messages: Sequence[dict],
        on_text: OnText | None = None,
        tally: Tally | None = None,
        *,
        max_tokens: int | None = None,
        **options: Any,
    ) -> str:
        """Return the assistant's text for `messages`, or raise ModelUnavailable.

        With `on_text`, the answer is streamed and `on_text` gets the text so far as it grows (a retry
        starts it again from the beginning); it may return in how many seconds it would like the text again
        (a draft's next turn), and the stream is read then. A streamed attempt lasts as long as text keeps
        coming: it fails when nothing arrives for `attempt_timeout` seconds. `tally` gets the tokens of the answer.
        An answer `max_tokens` cut short ends at its last whole sentence. A reasoning model's thinking is
        left out of the answer and of `on_text`, which is not called while the model thinks; the cap gets
        room for the thinking (ServerFeatures.answer_cap), and one cut off while still thinking is no answer.
        """
        tally = tally if tally is not None else Tally()

        async def attempt(timeout: float) -> str:
            if on_text is not None:
                try:
                    text, finish = await self._stream_once(messages, on_text, max_tokens, options, timeout, tally)
                except EmptyStream:
                    # Streaming says nothing about why; the same request unstreamed answers or says.
                    log.info("the model sent an empty stream; asking again without streaming")
                    text, finish = await self._complete_once(messages, max_tokens, options, timeout, tally)
            else:
                text, finish = await self._complete_once(messages, max_tokens, options, timeout, tally)
            return end_cleanly(text) if finish == "length" and text else text

        try:
            text = await self.with_retries(attempt)
        except TooLong as error:  # a chat prompt is budgeted; past the context all the same, it is a refusal
            log.error("model request refused: %s", error)
            await self._report_failure(error)
            raise ModelUnavailable(str(error)) from error
        if not text:  # an answer of NULs and spaces is no answer
            self.metrics.model_error(self.model, "empty", retried=False)
            raise ModelUnavailable("the model returned an empty answer")
        return text

    async def complete_json(
        self,
        messages: Sequence[dict],
        schema_name: str,
        schema: dict,
        *,
        max_tokens: int,
        timeout: float,
        tally: Tally | None = None,
        shape_shown: bool = False,
    ) -> str:
        """Return the model's answer holding JSON that follows `schema`, asked for in the best way the server takes.

        The process starts with a strict `json_schema` format. An error answer before any structured call has
        worked tries the next mode at once (`json_object` with the schema in the prompt, then plain text): a
        mode the server refused by name, or one whose successor works, is left for the rest of the process.
        `shape_shown`: the messages already show the answer's shape, so a mode without `json_schema` adds no copy
        of the schema to the prompt (hundreds of tokens a small server reads each time). Each attempt may take
        `timeout` seconds. Raises TooLong when the prompt is past the server's context
        or the answer hit `max_tokens` unfinished, ModelUnavailable when the model cannot answer.
        """
        tally = tally if tally is not None else Tally()

        async def attempt(seconds: float) -> str:
            first: openai.APIStatusError | None = None
            for mode in self.features.structured_modes():
                try:
                    text = await self._structured_once(messages, schema_name, schema, mode, max_tokens, seconds, tally,
                                                       shape_shown)
                except openai.APIStatusError as error:
                    if not self.features.may_probe_structured(error):
                        raise
                    first = first or error
                    if names(error, *FORMAT_WORDS):
                        self.features.leave_structured(mode, error)
                    continue
                if mode != self.features.structured:
                    self.features.use_structured(mode, first)
                self.features.settle_structured()
                return text
            assert first is not None
            raise first

        return await self.with_retries(attempt, attempt_timeout=timeout, budget=max(self.budget, 2 * timeout))

    async def _structured_once(
        self, messages: Sequence[dict], schema_name: str, schema: dict, mode: str, max_tokens: int,
        timeout: float, tally: Tally, shape_shown: bool = False,
    ) -> str:
        options: dict = {"temperature": 0}
        request = list(messages)
        if mode == "json_schema":
            options["response_format"] = {
                "type": "json_schema", "json_schema": {"name": schema_name, "strict": True, "schema": schema}
            }
        else:
            if not shape_shown:
                request = with_instruction(request, schema_instruction(schema))
            if mode == "json_object":
                options["response_format"] = {"type": "json_object"}
        # Streamed, so that closing it ends the server's work: a pass cancelled for a conversation (llm/gate.py)
        # or at shutdown leaves nothing running there. Its words may come slowly: each within `timeout`.
        try:
            text, finish = await self._stream_once(request, _unshown, max_tokens, options, timeout, tally,
                                                   silence=timeout)
        except EmptyStream:
            text, finish = await self._complete_once(request, max_tokens, options, timeout, tally)
        if finish == "length":
            raise AnswerCut(f"the answer reached its cap of {max_tokens} tokens before it was finished", text)
        return text

    async def takes_images(self, data_url: str) -> bool:
        """True when the chat model takes image parts in: found out with the first photo, then remembered.

        Some servers refuse image parts (400 or 422), others drop them without a word and answer as if no
        picture came. Two one-token completions, the same text with the picture and without, tell: a model
        that sees it counts its tokens in the prompt. A server that reports no usage, or fails, is given the
        benefit of the doubt (a refusal of the real request still turns images off).
        """
        if self.features.images is not None:
            return self.features.images
        prompt = {"type": "text", "text": "Say OK."}
        picture = {"type": "image_url", "image_url": {"url": data_url}}
        try:
            without = await self.gate.run(partial(
                self._create, [{"role": "user", "content": [prompt]}], 1, {}, self.attempt_timeout))
            seen = await self.gate.run(partial(
                self._create, [{"role": "user", "content": [prompt, picture]}], 1, {}, self.attempt_timeout))
        except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
            self.features.learn_images(False, f"it refused an image part: {describe(error)}")
            return False
        except Exception as error:  # noqa: BLE001 - found out another time; the real request decides now
            log.info("could not find out whether the model sees images (%s)", describe(error))
            return True
        before, after = prompt_tokens(without), prompt_tokens(seen)
        if before is None or after is None:
            log.info("images: sent to the model; the server reports no usage, so whether it sees them is unknown")
            self.features.images = True
            return True
        grew = after - before
        self.features.learn_images(
            grew >= IMAGE_MIN_TOKENS, f"an image added {grew} prompt tokens; {IMAGE_MIN_TOKENS} or more means seen"
        )
        return bool(self.features.images)

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
        unless `log_refusal` is False: the caller explains it better). TooLong goes to the caller as it is, and
        so does Preempted: each attempt takes one of the server's slots (the gate), and upkeep's gives way.
        """
        timeout = attempt_timeout or self.attempt_timeout
        deadline = time.monotonic() + (budget or self.budget)
        tries = 0
        while True:
            remaining = deadline - time.monotonic()
            seconds = min(timeout, max(remaining, 0.1))
            try:
                return await self.gate.run(partial(attempt, seconds), upkeep=self.upkeep)
            except (TooLong, Preempted):
                raise
            except Exception as error:  # noqa: BLE001 - sorted into retryable or not just below
                if not is_retryable(error):
                    if log_refusal:
                        log.error("model request refused: %s", describe(error))
                    await self._report_failure(error)
                    raise ModelUnavailable(describe(error)) from error
                delay = backoff_delay(tries, self.backoff, _retry_after(error))
                if self.stopping.is_set() or time.monotonic() + delay >= deadline:
                    log.warning("model unavailable after %d attempts: %s", tries + 1, describe(error))
                    await self._report_failure(error)
                    raise ModelUnavailable(describe(error)) from error
                self.metrics.model_error(self.model, failure_kind(error), retried=True)
                log.info("model attempt %d failed (%s); retrying in %.1fs", tries + 1, describe(error), delay)
                await asyncio.sleep(delay)
                tries += 1

    async def _report_failure(self, error: BaseException) -> None:
        self.metrics.model_error(self.model, failure_kind(error), retried=False)
        if self.on_failure is None:
            return
        try:
            await self.on_failure()
        except Exception as error:  # noqa: BLE001 - counting a failure must not hide it
            log.warning("could not count a model failure: %s", type(error).__name__)

    def _arguments(self, messages: Sequence[dict], max_tokens: int | None, options: dict, stream: bool) -> dict:
        """Return the request's body in the form this server takes."""
        arguments = {"model": self.model, "messages": strict_roles(messages), **options}
        if max_tokens:
            arguments[self.features.cap_name] = max_tokens
        if not self.features.temperature:
            arguments.pop("temperature", None)
        if stream:
            arguments["stream"] = True
            if self.features.stream_usage:
                arguments["stream_options"] = {"include_usage": True}
        return arguments

    @asynccontextmanager
    async def _opened(
        self, messages: Sequence[dict], max_tokens: int | None, options: dict, timeout: float, stream: bool
    ) -> AsyncIterator[httpx2.Response]:
        """Send one request; give its response, a stream's body unread, and close it on the way out. A refusal of
        a parameter the server does not take is adapted to and sent again.

        The SDK client's `post` sends it (its URL, key, headers and timeouts; the SDK README's way to a route of
        one's own) and raises the SDK's own errors for a refusal, a timeout or a lost connection. The body goes as
        the JSON bytes it is (orjson): `chat.completions.create` would walk the history through its type-driven
        transform first, some 5 ms of CPU for twenty messages (bench/README.md, issue 58), six times the rest of a
        request. A stream comes back as the SDK's AsyncStream, whose `response` llm/responses.py reads itself:
        the SDK would build a pydantic model of every chunk (issue 42).
        """
        sent: openai.RequestOptions = {"timeout": timeouts(timeout, stream), "headers": JSON_HEADERS}
        async with AsyncExitStack() as stack:
            while True:
                content = dumps(self._arguments(messages, max_tokens, options, stream))
                try:
                    # The SDK's own timeout too: the client's default is the chat attempt's, shorter than extraction's.
                    async with asyncio.timeout(timeout):
                        if not stream:
                            response = await self.client.post(CHAT_PATH, cast_to=httpx2.Response, content=content,
                                                              options=sent)
                            break
                        chunks = await (self.streams or self.client).post(
                            CHAT_PATH, cast_to=object, content=content, options=sent, stream=True,
                            stream_cls=openai.AsyncStream[object])
                        stack.push_async_callback(chunks.close)
                        response = chunks.response
                    break
                except openai.APIStatusError as error:
                    if context_exceeded(error):
                        context = context_size(error)
                        self.features.learn_context(context, "the server said so when refusing a prompt")
                        raise TooLong(describe(error), context) from error
                    if not self.features.adapt(error, stream):
                        raise
            yield response

    async def _create(
        self, messages: Sequence[dict], max_tokens: int | None, options: dict, timeout: float
    ) -> dict:
        """Return one unstreamed completion's JSON object, as it came."""
        async with self._opened(messages, max_tokens, options, timeout, stream=False) as response:
            return answer_of(response)

    async def _complete_once(
        self, messages: Sequence[dict], max_tokens: int | None, options: dict, timeout: float, tally: Tally
    ) -> tuple[str, str | None]:
        """Return one unstreamed answer, its thinking left out, and why it ended."""
        cap = self.features.answer_cap(max_tokens)
        answer = await self._create(messages, cap, options, timeout)
        choice, message = first_choice(answer)
        usage = usage_of(answer)
        if choice is None:
            self._spent(tally, usage, messages, "")
            return "", None
        raw, reasoning = text_field(message.get("content")) or "", reasoning_of(message)
        finish = text_field(choice.get("finish_reason"))
        self._spent(tally, usage, messages, reasoning + raw)
        text = self._answer(raw, reasoning, usage, finish)
        if self._cut_thinking(text, finish, cap, max_tokens):
            return await self._complete_once(messages, max_tokens, options, timeout, tally)
        return text, finish

    async def _stream_once(
        self, messages: Sequence[dict], on_text: OnText, max_tokens: int | None, options: dict,
        timeout: float, tally: Tally, silence: float | None = None,
    ) -> tuple[str, str | None]:
        """Return a streamed answer and its finish reason; `on_text` gets the answer so far as it grows (once for
        each read of the connection, until the read that brings the finish reason). It fails when no piece comes
        for `silence` seconds (the attempt timeout unless given)."""
        quiet = silence or self.attempt_timeout
        cap = self.features.answer_cap(max_tokens)
        deltas, shown = Deltas(), ""
        wanted: float | None = None  # how soon on_text would like the text again
        # The draft starts where the thinking ends: nothing is shown while the model may still be thinking.
        splitter = ThinkingSplitter(opened=self.features.thinking_in_prompt)
        loop = asyncio.get_running_loop()
        lag = min(RESCHEDULE_S, quiet / 4)

        def pace() -> float:
            if not shown:
                return PACE_S
            return ANSWER_PACE_S if wanted is None else min(ANSWER_PACE_S, max(SHORTEST_PACE_S, wanted))

        # The response is closed on every way out: the answer, an error, the silence timeout, a cancel. Each piece
        # must come within the attempt timeout: a stalled stream is a failed attempt.
        paced = pace if self.streams is not None else None
        async with self._opened(messages, cap, options, timeout, stream=True) as response, \
                asyncio.timeout(quiet) as waiting, aclosing(read_chunks(response, paced)) as stream:
            async for batch in stream:
                if loop.time() + quiet - (waiting.when() or 0.0) > lag:
                    waiting.reschedule(loop.time() + quiet)
                content = deltas.add(batch)
                answer = splitter.feed(content) if content else shown
                # Once the model says it is finished the answer goes out whole at once: no draft of it.
                if answer and answer != shown and deltas.finish is None:
                    shown = answer
                    wanted = on_text(answer)
        if not deltas.chunks:
            raise EmptyStream("the server sent a stream without a single answer chunk")
        finish, reasoning = deltas.finish, deltas.reasoning
        if finish is None:
            raise StreamBroken("the stream ended before the answer was finished")
        self._spent(tally, deltas.usage, messages, reasoning + splitter.text)
        text = self._answer(splitter.text, reasoning, deltas.usage, finish)
        if self._cut_thinking(text, finish, cap, max_tokens):
            return await self._stream_once(messages, on_text, max_tokens, options, timeout, tally, silence)
        return text, finish

    def _spent(self, tally: Tally, usage: dict | None, messages: Sequence[dict], answer: str) -> None:
        """Count one completion's tokens: on the caller's tally (what it charges) and in the metrics."""
        tally.add(usage, messages, answer)
        if self.metrics.records:  # a server without usage would have its text estimated once more for nothing
            self.metrics.tokens(self.model, *split_usage(usage, messages, answer))

    def _answer(self, text: str, reasoning: str, usage: dict | None, finish: str | None) -> str:
        """Return the answer in a model's text, its thinking left out; note on the features how the model thinks.

        A text cut off by the cap while the template's thinking was still open is all thinking: no answer.
        """
        opened = self.features.thinking_in_prompt and finish == "length"
        thinking, answer = split_thinking(clean_answer(text), opened=opened)
        if reasoning:
            self.features.learn_thinking("its thinking comes in a reasoning field")
        elif thinking:
            self.features.learn_thinking("its answers hold a <think> block", in_prompt=opened_in_prompt(text))
        elif reasoning_tokens(usage):
            self.features.learn_thinking("the server counts reasoning tokens")
        return clean_answer(answer)

    def _cut_thinking(self, answer: str, finish: str | None, cap: int | None, max_tokens: int | None) -> bool:
        """True when the cap cut the model off while it was still thinking, before the cap had room for
        thinking that it has now (the model was just seen thinking): the request is worth sending once more."""
        grown = self.features.answer_cap(max_tokens)
        return finish == "length" and not answer and cap is not None and grown is not None and grown > cap
