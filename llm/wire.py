"""A chat completion as it comes over the wire, read without the SDK's models (pure): the server-sent events of
a streamed answer, and JSON objects read through attributes.

The openai SDK builds a pydantic model of every chunk of a stream (a hundred for a reply) and of every answer;
the bot reads five fields of them. Here each event costs one JSON read, and its object is read lazily
through a `JsonView`, which answers the same attribute paths (`chunk.choices[0].delta.content`) with None
for a field the server left out, as the SDK's optional fields do.
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

import openai

from llm.thinking import REASONING_FIELDS, reasoning_of
from net.json_bytes import loads

LINE_END = re.compile(rb"\r\n|\r|\n")
DONE = "[DONE]"
# The SDK's words for an error event that carries no message of its own (openai/_streaming.py).
STREAM_ERROR = "An error occurred during streaming"


class Event(NamedTuple):
    """One server-sent event: its `event:` name (None when it has none) and its `data:` lines joined by "\\n"."""

    name: str | None
    data: str


class EventReader:
    """Turns the bytes of a `text/event-stream` body, in whatever pieces they arrive, into its events.

    Lines end at CRLF, CR or LF, a CRLF split between two pieces included; text is decoded once its event is
    whole, so a character split between pieces is read whole. Lines starting with ":" are comments; the
    `data:` lines of one event are joined with "\\n"; an event ends at a blank line. As the SSE standard
    says, an event without a `data:` line is no event (the SDK hands its empty data to `json.loads`, which
    fails), and `id:`, `retry:` and unknown fields are ignored (nothing here reconnects). Unlike the standard
    and the SDK, which drop it, `close` gives the last event when the body ended without the blank line
    after it (see `ChunkReader.close`).
    """

    def __init__(self) -> None:
        self._rest = b""  # the start of a line whose end has not come yet
        self._after_cr = False  # the last piece ended in CR: a LF starting the next one ends no second line
        self._name: str | None = None
        self._data: list[bytes] = []

    def feed(self, piece: bytes) -> list[Event]:
        """Add the next piece of the body; return the events it completed."""
        if not piece:
            return []
        if self._after_cr and piece[:1] == b"\n":
            piece = piece[1:]
        self._after_cr = piece[-1:] == b"\r"
        text = self._rest + piece
        lines = text.split(b"\n") if b"\r" not in text else LINE_END.split(text)
        self._rest = lines.pop()
        return self._read(lines)

    def close(self) -> list[Event]:
        """Return the event the body ended in without a blank line after it, if any: the body is over."""
        lines = [self._rest, b""] if self._rest else [b""]
        self._rest, self._after_cr = b"", False
        return self._read(lines)

    def _read(self, lines: list[bytes]) -> list[Event]:
        events = []
        for line in lines:
            if not line:
                if self._data:
                    events.append(Event(self._name, b"\n".join(self._data).decode("utf-8")))
                self._name, self._data = None, []
            elif line[:6] == b"data: ":  # the usual line, first
                self._data.append(line[6:])
            elif line[0] != 58:  # ":" starts a comment
                field, _, value = line.partition(b":")
                if value[:1] == b" ":
                    value = value[1:]
                if field == b"data":
                    self._data.append(value)
                elif field == b"event":
                    self._name = value.decode("utf-8") or None
        return events


class JsonView:
    """A JSON object read through attributes, read-only: `chunk.choices[0].delta.content`.

    A field the object lacks reads as None, like an optional field of the SDK's models; a nested object is
    another view, a list a tuple (its objects views). Names starting with "_" are not fields, so that `copy`,
    `pickle` and the like find only the hooks it has.
    """

    __slots__ = ("_fields",)

    def __init__(self, fields: dict) -> None:
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, name: str) -> object:
        if name[:1] == "_":
            raise AttributeError(name)
        return viewed(self._fields.get(name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a JsonView is read-only ({name})")

    def __reduce__(self) -> tuple:
        return JsonView, (self._fields,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonView) and other._fields == self._fields

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"JsonView({self._fields!r})"


def viewed(value: object) -> object:
    """Return a JSON value as a JsonView reads it: an object as a view, a list as a tuple of such values."""
    if type(value) is dict:
        return JsonView(value)
    if type(value) is list:
        return tuple(viewed(item) for item in value)
    return value


def read_json(body: bytes | str) -> JsonView:
    """Return a JSON object body (an unstreamed answer) as a view; ValueError when it is no JSON object."""
    fields = loads(body)
    if not isinstance(fields, dict):
        raise ValueError(f"the body is JSON but not an object: {type(fields).__name__}")
    return JsonView(fields)


def stream_error(name: str | None, payload: object) -> tuple[str, object] | None:
    """Return (message, body) of the error an event tells of, or None when it tells of none.

    As the SDK's `AsyncStream` reads them (openai 3.51): an event whose data is an object with a non-empty
    "error" is an error, with `error.message` as its message when that is a non-empty string, else the SDK's
    general words; `event: error` is read by its data like any other event. Only events named `thread.*`
    (the Assistants API's) are never errors there: the SDK looks for `event: error` among them, which cannot
    be.
    """
    if name is not None and name.startswith("thread."):
        return None
    if not isinstance(payload, dict) or not payload.get("error"):
        return None
    error = payload["error"]
    message = error.get("message") if isinstance(error, dict) else None
    return (message if isinstance(message, str) and message else STREAM_ERROR), error


class Deltas:
    """What a stream's chunks (JsonViews) say, added up batch by batch: how many carried a choice, the first
    choice's thinking, why it finished, and the usage the server sent.

    It reads the fields the way `chunk.choices[0].delta.content` does, but from each chunk's JSON object
    directly: a reply is a hundred chunks, and a view of each nested object costs more than the parse
    (issue 42). A chunk shaped other than the API's (a `choices` that is no list, a `delta` that is no
    object, a content that is no string) is read through its view, so it fails or is skipped exactly as
    there.
    """

    __slots__ = ("chunks", "finish", "usage", "_reasoning")

    def __init__(self) -> None:
        self.chunks = 0
        self.finish: object = None
        self.usage: object = None
        self._reasoning: list[str] = []

    @property
    def reasoning(self) -> str:
        """The first choice's thinking so far, from its own fields (reasoning_content or reasoning)."""
        return "".join(self._reasoning)

    def add(self, batch: list[JsonView]) -> str:
        """Add a read's chunks; return the first choice's content they carry, joined ("" when none)."""
        contents: list[str] = []
        for chunk in batch:
            fields = chunk._fields
            usage = fields.get("usage")
            if usage is not None:
                self.usage = viewed(usage) or self.usage  # the last chunk, with no choices, when the server sends it
            choices = fields.get("choices")
            if choices is None:
                continue
            if type(choices) is not list or (choices and not self._add_choice(choices[0], contents)):
                self._add_viewed(chunk, contents)
        return "".join(contents)

    def _add_choice(self, choice: object, contents: list[str]) -> bool:
        """Add one choice read as the API shapes it; False (nothing added) when it is shaped otherwise."""
        if type(choice) is not dict:
            return False
        delta = choice.get("delta")
        content = delta.get("content") if type(delta) is dict else None
        if (delta is not None and type(delta) is not dict) or (content is not None and type(content) is not str):
            return False
        self.chunks += 1
        if delta is not None:
            for name in REASONING_FIELDS:
                value = delta.get(name)
                if isinstance(value, str) and value:
                    self._reasoning.append(value)
                    break
            if content:
                contents.append(content)
        self.finish = self.finish or viewed(choice.get("finish_reason"))
        return True

    def _add_viewed(self, chunk: JsonView, contents: list) -> None:
        """Add a chunk shaped otherwise, read through its view as the SDK's objects would be."""
        for choice in (chunk.choices or ())[:1]:  # type: ignore[index, attr-defined]
            self.chunks += 1
            delta = choice.delta
            if delta is not None:
                self._reasoning.append(reasoning_of(delta))
                content = delta.content
                if content and not isinstance(content, str):  # where the text so far would take it in
                    raise TypeError(f"a streamed delta's content is {type(content).__name__}, not text")
                if content:
                    contents.append(content)
            self.finish = self.finish or choice.finish_reason


class ChunkReader:
    """Turns the bytes of a streamed chat completion, as they arrive, into its chunks (JsonViews).

    One JSON read per event (orjson's, giving `json.loads`'s answers: net/json_bytes.py). It stops at
    `data: [DONE]` (`done`; what follows is not read) and raises openai.APIError for an error event
    (`stream_error`) exactly where the SDK's stream would, after the chunks before it. `request` is what the
    error names (the SDK's does too). An event whose data is not JSON raises ValueError, as the SDK's does;
    one whose JSON is not an object raises openai.APIError (the
    SDK would hand the caller a chunk without fields).
    """

    def __init__(self, request: object = None) -> None:
        self.request = request
        self.events = EventReader()
        self.done = False

    def feed(self, piece: bytes) -> Iterator[JsonView]:
        """Yield the chunks the next piece of the body completes."""
        return self._chunks(self.events.feed(piece), ended=False)

    def close(self) -> Iterator[JsonView]:
        """Yield the chunk the body ended in without a blank line after it, if any.

        A body cut inside its last event leaves JSON that does not parse: that is no chunk, and the stream
        simply ended early (the caller sees no finish reason, as the SDK's would), not a server's garbage.
        """
        return self._chunks(self.events.close(), ended=True)

    def _chunks(self, events: list[Event], ended: bool) -> Iterator[JsonView]:
        for name, data in events:
            if self.done:
                return
            if data.startswith(DONE):
                self.done = True
                return
            try:
                payload = loads(data)
            except ValueError:
                if ended:
                    return
                raise
            error = stream_error(name, payload)
            if error is not None:
                raise openai.APIError(error[0], self.request, body=error[1])  # type: ignore[arg-type]
            if not isinstance(payload, dict):
                raise openai.APIError(f"the stream held an event that is no JSON object: {data[:80]}",
                                      self.request, body=payload)  # type: ignore[arg-type]
            yield JsonView(payload)
