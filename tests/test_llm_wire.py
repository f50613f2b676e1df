"""The model client's lean reading (llm/wire.py, llm/responses.py: ChatModel's requests through the SDK's `post`,
read without its models): a stream's lines on nasty framing, and the same text, finish reason and usage the openai
SDK's own stream gives for the same bytes, from the OpenAI double and from hand-written bodies.
tests/test_real_server.py does it on a real server."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import httpx2
import openai
import pytest

from llm.client import ChatModel, ModelUnavailable, Tally
from llm.gate import Gate
from llm.responses import read_chunks
from llm.server import ServerFeatures
from llm.servers import ModelServer
from llm.thinking import reasoning_of, reasoning_tokens
from llm.wire import STREAM_ERROR, ChunkLines, Deltas, stream_error
from tests.timeouts import scaled

MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi there"}]
SSE = {"content-type": "text/event-stream"}


def split(body: bytes, size: int) -> list[bytes]:
    return [body[start:start + size] for start in range(0, len(body), size)]


def chunk(content: str | None = None, finish: str | None = None, **delta: object) -> dict:
    """Return a chat.completion.chunk object holding one choice."""
    if content is not None:
        delta["content"] = content
    choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [choice]}


def data(event: dict | str, end: str = "\n\n", name: str | None = None) -> bytes:
    text = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
    return (f"event: {name}\n" if name else "").encode() + f"data: {text}{end}".encode()


USAGE = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [],
         "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}
ANSWER = data(chunk("", role="assistant")) + data(chunk("Привет, ")) + data(chunk("мир 😀")) + data(
    chunk(finish="stop")) + data(USAGE) + b"data: [DONE]\n\n"


# ----- a stream's lines read into chunks (pure) -----

def chunks_of(*pieces: bytes) -> list[dict]:
    """Return the chunks a body gives when it arrives in `pieces`, its end included; raise its error event."""
    lines = ChunkLines(request="the request")
    found = [one for piece in pieces for one in lines.feed(piece)] + lines.close()
    if lines.error is not None:
        raise lines.error
    return found


def test_chunks_are_the_data_lines_json_objects_however_the_body_is_split():
    whole = chunks_of(ANSWER)
    assert [one["choices"][0]["delta"].get("content") for one in whole[:4]] == ["", "Привет, ", "мир 😀", None]
    assert whole[4]["usage"]["total_tokens"] == 8 and len(whole) == 5
    for size in (1, 2, 3, 7, 64):  # a line, or a character, split between reads
        assert chunks_of(*split(ANSWER, size)) == whole
        assert chunks_of(*split(ANSWER.replace(b"\n", b"\r\n"), size)) == whole


def test_comments_names_and_other_fields_are_no_chunks():
    body = b": keep-alive\n\nid: 7\nretry: 10\nevent: message\n" + data(chunk("a")) + b":\n" + b"data:" + json.dumps(
        chunk("b")).encode() + b"\n\n"
    assert [one["choices"][0]["delta"]["content"] for one in chunks_of(body)] == ["a", "b"]


def test_chunks_stop_at_done_and_what_follows_is_not_read():
    lines = ChunkLines()
    found = lines.feed(data(chunk("a")) + b"data: [DONE]\n\n" + data(chunk("b")) + b"data: {broken\n\n")
    assert [one["choices"][0]["delta"]["content"] for one in found] == ["a"] and lines.done
    assert lines.feed(data(chunk("c"))) == [] and lines.close() == []


def test_a_stream_without_done_or_its_last_line_end_gives_every_chunk():
    found = chunks_of(data(chunk("a")), data(chunk(finish="stop"), end=""))
    assert [one["choices"][0]["finish_reason"] for one in found] == [None, "stop"]


def test_an_error_object_mid_stream_comes_after_the_chunks_before_it():
    lines = ChunkLines(request="the request")
    error = {"message": "boom", "type": "server_error", "code": 500}
    found = lines.feed(data(chunk("a")) + data({"error": error}) + data(chunk("b")))
    assert [one["choices"][0]["delta"]["content"] for one in found] == ["a"]
    assert lines.error is not None and lines.feed(data(chunk("c"))) == []
    assert (lines.error.message, lines.error.body, lines.error.request) == ("boom", error, "the request")
    assert lines.error.code == "500" and lines.error.type == "server_error"


@pytest.mark.parametrize("error", [{"message": ""}, {"message": 7}, {"code": 1}, "overloaded", ["x"], True])
def test_an_error_without_a_message_of_its_own_gets_the_sdks_words(error):
    with pytest.raises(openai.APIError, match=f"^{STREAM_ERROR}$") as raised:
        chunks_of(data({"error": error}))
    assert raised.value.body == error


def test_an_error_is_read_by_its_data_whatever_the_events_name():
    with pytest.raises(openai.APIError, match="^boom$"):
        chunks_of(data({"error": {"message": "boom"}}, name="error"))
    assert chunks_of(data({"message": "boom"}, name="error")) == [{"message": "boom"}]
    assert stream_error({"error": None}) is None and stream_error({"error": {}}) is None


def test_data_that_is_not_json_raises_but_a_body_cut_inside_its_last_line_just_ends():
    with pytest.raises(ValueError):
        chunks_of(b"data: {not json}\n\n")
    assert chunks_of(data(chunk("a")), b'data: {"id": "c1", "choi') == chunks_of(data(chunk("a")))
    with pytest.raises(openai.APIError, match="no JSON object"):
        chunks_of(b"data: [1, 2]\n\n")


def test_reasoning_and_its_tokens_are_read_from_the_json():
    assert reasoning_of({"reasoning_content": "hmm", "content": "x"}) == "hmm"
    assert reasoning_tokens({"completion_tokens_details": {"reasoning_tokens": 3}}) == 3


def deltas_reading(batch: list[dict]) -> tuple:
    deltas = Deltas()
    content = deltas.add(batch[:2]) + deltas.add(batch[2:])  # two reads
    return deltas.chunks, deltas.finish, deltas.usage, deltas.reasoning, content


def test_deltas_add_up_the_first_choice_and_the_last_usage():
    batch = [chunk("", role="assistant"), chunk(reasoning_content="think"), chunk("x", reasoning="hmm"),
             chunk("б 😀"), chunk(finish="stop"), chunk(finish="length"), USAGE]
    assert deltas_reading(batch) == (6, "stop", USAGE["usage"], "thinkhmm", "xб 😀")


@pytest.mark.parametrize("odd", [
    {"choices": []}, {"choices": None}, {}, {"usage": {}}, {"usage": 0}, {"choices": {}}, {"choices": "abc"},
    {"choices": 5}, {"choices": [None]}, {"choices": [[]]}, {"choices": ["text"]},
])
def test_a_chunk_without_a_choice_shaped_as_the_apis_adds_nothing(odd):
    assert deltas_reading([chunk("a"), odd, chunk("b")]) == (2, None, None, "", "ab")


@pytest.mark.parametrize("odd", [
    {"choices": [{}]}, {"choices": [{"delta": None}]}, {"choices": [{"delta": "text"}]},
    {"choices": [{"delta": {"content": None}}]}, {"choices": [{"delta": {"content": 0}}]},
    {"choices": [{"delta": {"content": ["x"]}}]}, {"choices": [{"delta": {"content": {}}}]},
    {"choices": [{"delta": {"reasoning_content": 7}}]}, {"choices": [{"delta": {}, "finish_reason": {"why": 1}}]},
    {"choices": [{"delta": {}, "finish_reason": ""}]},
])
def test_a_choice_shaped_otherwise_counts_but_adds_nothing_misshapen(odd):
    assert deltas_reading([chunk("a"), odd, chunk("b")]) == (3, None, None, "", "ab")


def test_only_the_first_choice_counts():
    both = {"choices": [chunk("first")["choices"][0], chunk("second")["choices"][0]]}
    assert deltas_reading([both]) == (1, None, None, "", "first")


# ----- the same as the SDK's own stream -----

@dataclass
class Reading:
    """What a stream gave its reader: per chunk (role, content, reasoning, finish), the usage, and the error."""

    pieces: list[tuple] = field(default_factory=list)
    usage: tuple | None = None
    error: tuple | None = None

    def add(self, one: dict) -> None:
        self._usage(one.get("usage"))
        for choice in (one.get("choices") or ())[:1]:
            delta = choice.get("delta") or {}
            self.pieces.append((delta.get("role"), delta.get("content"), reasoning_of(delta),
                                choice.get("finish_reason")))

    def add_answer(self, answer: dict) -> None:
        """Read an unstreamed answer: its message in place of a delta."""
        self._usage(answer.get("usage"))
        self.pieces = [(choice["message"].get("role"), choice["message"].get("content"),
                        reasoning_of(choice["message"]), choice.get("finish_reason"))
                       for choice in answer["choices"]]

    def _usage(self, usage: dict | None) -> None:
        if usage:
            self.usage = (usage.get("prompt_tokens"), usage.get("completion_tokens"), usage.get("total_tokens"),
                          reasoning_tokens(usage))

    @property
    def text(self) -> str:
        return "".join(content or "" for _, content, _, _ in self.pieces)

    @property
    def finish(self) -> str | None:
        return next((finish for *_, finish in reversed(self.pieces) if finish), None)


async def sdk_reading(chat: ChatModel, stream: bool = True) -> Reading:
    """Return what the SDK's `chat.completions.create` gives for the request ChatModel sends."""
    reading = Reading()
    arguments = chat._arguments(MESSAGES, 50, {}, stream)
    try:
        answer = await chat.client.chat.completions.create(**arguments, timeout=chat.attempt_timeout)
        if stream:
            async for one in answer:
                reading.add(one.model_dump(exclude_unset=True))  # the JSON it was built from
        else:
            reading.add_answer(answer.model_dump(exclude_unset=True))
    except openai.APIError as error:
        reading.error = (type(error), error.message, error.body)
    return reading


async def lean_reading(chat: ChatModel, stream: bool = True) -> Reading:
    """Return what ChatModel reads the lean way for the same request."""
    reading = Reading()
    try:
        if not stream:
            reading.add_answer(await chat._create(MESSAGES, 50, {}, chat.attempt_timeout))
            return reading
        async with chat._opened(MESSAGES, 50, {}, chat.attempt_timeout, stream=True) as response:
            async for batch in read_chunks(response):
                for one in batch:
                    reading.add(one)
    except openai.APIError as error:
        reading.error = (type(error), error.message, error.body)
    return reading


@pytest.fixture(params=["httpx2", "model server"])
async def chat(model, request):
    """A ChatModel on the SDK's default HTTP client, and on the one llm/servers.py gives a model server (aiohttp)."""
    if request.param == "model server":
        server = ModelServer.open(model.base_url, "sk-test", 2.0, Gate(None), ServerFeatures())
        yield ChatModel(server.client, "gpt-4o-mini", attempt_timeout=2.0, budget=4.0, backoff=0.02,
                        streams=server.streams)
        await server.close()
    else:
        client = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
        yield ChatModel(client, "gpt-4o-mini", attempt_timeout=2.0, budget=4.0, backoff=0.02)
        await client.close()


def cut(mode: str):
    return lambda double: double.cut_stream_next(4, times=2, mode=mode)


def think(form: str):
    def set_up(double):
        double.thinking, double.thinking_form = "I should greet them back <warmly>.", form
    return set_up


DOUBLE_CASES = {
    "a whole answer with usage": lambda double: None,
    "no usage": lambda double: setattr(double, "report_usage", False),
    "unicode": lambda double: setattr(double, "reply", lambda body: "Привет! 😀 Ça va? " * 3),
    "cut: eof": cut("eof"),
    "cut: abort": cut("abort"),
    "error event": cut("error"),
    "event: error": cut("error_event"),
    "thinking in tags": think("tags"),
    "reasoning_content": think("reasoning_content"),
    "reasoning": think("reasoning"),
    "hidden reasoning": think("hidden"),
    "capped": lambda double: setattr(double, "reply", lambda body: "word " * 100),
}


@pytest.mark.parametrize("case", sorted(DOUBLE_CASES))
async def test_the_lean_stream_reads_what_the_sdks_does_from_the_double(model, chat, case):
    model.stream_chunk_chars = 3
    DOUBLE_CASES[case](model)
    sdk, lean = await sdk_reading(chat), await lean_reading(chat)
    assert lean == sdk
    assert model.requests[0] == model.requests[1]  # the same request, too
    if case.startswith("cut") or "error" in case:
        assert sdk.error is not None or sdk.finish is None
    else:
        assert sdk.error is None and sdk.finish in ("stop", "length") and sdk.text
        assert (sdk.usage is not None) == (case != "no usage")


@pytest.mark.parametrize("case", ["a whole answer with usage", "no usage", "reasoning_content", "reasoning",
                                  "hidden reasoning", "capped"])
async def test_the_lean_answer_reads_what_the_sdks_does_from_the_double(model, chat, case):
    DOUBLE_CASES[case](model)
    sdk, lean = await sdk_reading(chat, stream=False), await lean_reading(chat, stream=False)
    assert lean == sdk and sdk.error is None and sdk.text
    assert model.requests[0] == model.requests[1]


async def test_the_model_gives_the_sdks_text_and_counts_its_usage(model, chat):
    model.stream_chunk_chars = 2
    sdk = await sdk_reading(chat)
    tally, shown = Tally(), []
    assert await chat.complete(MESSAGES, on_text=shown.append, tally=tally, max_tokens=50) == sdk.text
    # Each draft is the start of the answer; the read that brings its end shows none (the answer goes whole).
    assert all(sdk.text.startswith(text) for text in shown)
    assert (tally.tokens, tally.estimated) == (sdk.usage[2], False)


async def test_an_error_event_mid_stream_is_retried(model, chat):
    model.cut_stream_next(3, mode="error")
    model.cut_stream_next(3, mode="error_event")
    shown: list[str] = []
    assert await chat.complete(MESSAGES, on_text=shown.append) == "echo: hi there"
    assert len(model.requests) == 3 and shown[-1] == "echo: hi there"


# ----- hand-written bodies, as the SDK reads them -----

class Body(httpx2.AsyncByteStream):
    """A response body that comes in the pieces given, then maybe never ends; it knows whether it was closed."""

    def __init__(self, pieces: list[bytes], stall: bool = False) -> None:
        self.pieces, self.stall, self.closed = pieces, stall, False

    async def __aiter__(self):
        for piece in self.pieces:
            yield piece
            await asyncio.sleep(0)
        if self.stall:
            await asyncio.Event().wait()

    async def aclose(self) -> None:
        self.closed = True


class Server:
    """An in-process chat endpoint (httpx2.MockTransport) that answers with the next of `answers`, recording
    each request and each body it sent."""

    def __init__(self, *answers: Body | httpx2.Response) -> None:
        self.answers, self.requests, self.bodies = list(answers), [], []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Body):
            answer = Body(answer.pieces, answer.stall)  # a fresh one each time: each can be closed
            self.bodies.append(answer)
            return httpx2.Response(200, headers=SSE, stream=answer)
        return answer

    def chat(self, **settings: float) -> ChatModel:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(self))
        client = openai.AsyncOpenAI(base_url="http://model.test/v1", api_key="sk-test", max_retries=0,
                                    http_client=http)
        return ChatModel(client, "m", **{"attempt_timeout": 1.0, "budget": 2.0, "backoff": 0.01, **settings})


def body_cases() -> dict[str, list[bytes]]:
    crlf = ANSWER.replace(b"\n", b"\r\n")
    error = data(chunk("a")) + data({"error": {"message": "overloaded", "type": "server_error"}}) + data(chunk("b"))
    return {
        "lf, one read": [ANSWER],
        "crlf, byte by byte": split(crlf, 1),
        "crlf split between reads": [piece + b"\r" for piece in crlf.split(b"\r")[:-1]] + [crlf.split(b"\r")[-1]],
        "comments and keep-alives": [b": ping\n\n", data(chunk("a")), b":\n", b": ping\n\n", ANSWER],
        "unicode split between reads": split(ANSWER, 3),
        "no blank line after [DONE]": [ANSWER.removesuffix(b"\n\n")],
        "no [DONE]": [ANSWER.removesuffix(b"data: [DONE]\n\n")],
        "usage only in a chunk without choices": [data(chunk("a", finish="stop")), data(USAGE)],
        "error object mid-stream": [error],
        "event: error": [data(chunk("a")), data({"error": {"message": "gone"}}, name="error")],
        "error without a message": [data(chunk("a")), data({"error": {"code": 1}})],
        "events after [DONE]": [ANSWER, data(chunk("late"))],
    }


@pytest.mark.parametrize("case", sorted(body_cases()))
async def test_the_lean_stream_reads_what_the_sdks_does_from_odd_bodies(case):
    server = Server(Body(body_cases()[case]))
    chat = server.chat()
    sdk, lean = await sdk_reading(chat), await lean_reading(chat)
    await chat.client.close()
    assert lean == sdk and (sdk.pieces or sdk.error)
    assert all(body.closed for body in server.bodies)
    [sent_by_sdk, sent_lean] = server.requests
    assert json.loads(sent_lean.content) == json.loads(sent_by_sdk.content)
    # The one header apart: the SDK tells the server its read timeout; a lean stream's reads have none of the
    # client's (llm/responses.py timeouts: the silence timer watches them).
    sdk_headers = {key: value for key, value in sent_by_sdk.headers.items() if key != "x-stainless-read-timeout"}
    assert dict(sent_lean.headers.items()) == sdk_headers and sent_lean.url == sent_by_sdk.url


async def test_a_last_chunk_without_its_blank_line_counts_where_the_sdk_drops_it():
    """The one place the lean reader reads more than the SDK: the SSE standard drops an event the body ends
    in without its blank line; a server that ends its finishing chunk so gets StreamBroken retries from the
    SDK, and an answer here."""
    server = Server(Body([data(chunk("a")), data(chunk(finish="stop"), end="")]))
    chat = server.chat()
    sdk, lean = await sdk_reading(chat), await lean_reading(chat)
    assert sdk.finish is None and lean.finish == "stop" and lean.pieces[:1] == sdk.pieces
    assert await chat.complete(MESSAGES, on_text=lambda text: None) == "a"
    await chat.client.close()


async def test_the_read_that_brings_the_finish_reason_asks_for_no_draft():
    """The answer goes out whole right after it: a draft of it would be a request nobody sees."""
    last = data(chunk(finish="stop")) + b"data: [DONE]\n\n"
    server = Server(Body([data(chunk("Hello")), data(chunk(" there")), last]))  # unpaced: a read, a piece
    chat = server.chat()
    shown: list[str] = []
    assert await chat.complete(MESSAGES, on_text=lambda text: shown.append(text)) == "Hello there"
    assert shown == ["Hello", "Hello there"]
    await chat.client.close()


async def test_an_answer_that_is_not_json_is_refused_once_not_retried():
    server = Server(httpx2.Response(200, text="<html>proxy error</html>"))
    chat = server.chat()
    with pytest.raises(ModelUnavailable, match="not a JSON object") as raised:
        await chat.complete(MESSAGES)
    assert isinstance(raised.value.__cause__, openai.APIResponseValidationError) and len(server.requests) == 1
    await chat.client.close()


async def test_an_error_status_is_the_sdks_error_with_its_body():
    body = {"error": {"message": "Invalid 'n': must be an integer >= 1.", "param": "n", "code": "invalid_value"}}
    server = Server(httpx2.Response(400, json=body))
    chat = server.chat()
    with pytest.raises(openai.BadRequestError) as raised:
        async with chat._opened(MESSAGES, 10, {}, 1.0, stream=True):
            pass
    assert raised.value.status_code == 400 and raised.value.body == body["error"]
    assert raised.value.response.status_code == 400
    await chat.client.close()


# ----- the streamed response is closed on every way out -----

async def test_a_finished_stream_is_closed_even_when_its_body_goes_on_after_done():
    server = Server(Body([ANSWER], stall=True))
    chat = server.chat()
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await chat.complete(MESSAGES, on_text=lambda text: None) == "Привет, мир 😀"
    assert loop.time() - started < 0.5 and server.bodies[0].closed
    await chat.client.close()


async def test_a_stream_that_errs_or_falls_silent_is_closed_each_try():
    error = Body([data(chunk("a")), data({"error": {"message": "boom"}})])
    silent = Body([data(chunk("a"))], stall=True)
    server = Server(error, silent, silent)
    chat = server.chat(attempt_timeout=0.2, budget=0.5)
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES, on_text=lambda text: None)
    assert len(server.bodies) >= 2 and all(body.closed for body in server.bodies)
    await chat.client.close()


async def test_a_cancelled_stream_is_closed():
    server = Server(Body([data(chunk("a")), data(chunk("b"))], stall=True))
    chat = server.chat(attempt_timeout=30.0)
    shown = asyncio.Event()
    task = asyncio.create_task(chat.complete(MESSAGES, on_text=lambda text: shown.set()))
    await asyncio.wait_for(shown.wait(), scaled(5))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert server.bodies[0].closed
    await chat.client.close()


async def test_a_stream_whose_reader_fails_is_closed():
    server = Server(Body([data(chunk("a")), data(chunk("b"))], stall=True))
    chat = server.chat()

    def fail(text: str) -> None:
        raise RuntimeError("the draft could not be shown")

    with pytest.raises(ModelUnavailable, match="could not be shown"):
        await chat.complete(MESSAGES, on_text=fail)
    assert server.bodies[0].closed
    await chat.client.close()


# ----- how often a stream is read (llm/responses.py's pace) -----

@pytest.mark.parametrize("wish", [None, 0.1])
async def test_a_stream_is_read_as_often_as_its_reader_asks_and_no_more(model, wish):
    """On aiohttp (the bot's stack) the connection is left alone between reads: the text so far comes once a read,
    every ANSWER_PACE_S (0.5 s) unless `on_text` asks for it sooner; the answer is the whole of it either way."""
    model.reply = lambda body: "word " * 40
    model.stream_chunk_chars, model.stream_chunk_interval = 5, 0.02  # 40 chunks over 0.8 s
    server = ModelServer.open(model.base_url, "sk-test", scaled(5.0), Gate(None), ServerFeatures())
    chat = ChatModel(server.client, "gpt-4o-mini", attempt_timeout=scaled(5.0), streams=server.streams)
    shown: list[str] = []
    answer = await chat.complete(MESSAGES, on_text=lambda text: shown.append(text) or wish)
    await server.close()
    assert answer == ("word " * 40).strip() and answer.startswith(shown[-1].strip())
    assert all(len(later) > len(earlier) for earlier, later in zip(shown, shown[1:], strict=False))
    if wish is None:  # read at once, then at 0.5 s, then the rest
        assert 2 <= len(shown) <= 4
    else:  # every 0.1 s over 0.8 s
        assert 6 <= len(shown) <= 12
