"""A streamed chat completion's chunks as plain dicts (pure): its `data:` lines read with orjson, and what the
chunks say added up.

The SDK's own stream builds a pydantic model of every chunk (a hundred for a reply) where the bot reads five
fields (issue 42); here each `data:` line is one JSON read, and `Deltas` reads the fields from the dict. Servers
of the chat API write each chunk on one `data:` line (OpenAI, llama.cpp, vLLM, Ollama): an event spread over
several `data:` lines would reach json as a part and fail like any other garbage, a retry.
"""

from __future__ import annotations

from typing import Any

import openai

from json_bytes import loads
from llm.thinking import REASONING_FIELDS

DONE = b"[DONE]"
# The SDK's words for an error event that carries no message of its own (openai/_streaming.py).
STREAM_ERROR = "An error occurred during streaming"


def stream_error(payload: object) -> tuple[str, object] | None:
    """Return (message, body) of the error a chunk tells of, or None when it tells of none: as the SDK's stream
    reads them, an object with a non-empty "error", its `error.message` the message where that is a non-empty
    string, else the SDK's general words."""
    if not isinstance(payload, dict) or not payload.get("error"):
        return None
    error = payload["error"]
    message = error.get("message") if isinstance(error, dict) else None
    return (message if isinstance(message, str) and message else STREAM_ERROR), error


class ChunkLines:
    """Turns a streamed body's pieces, as they arrive, into its chunks: one JSON object a `data:` line.

    Lines end at LF (a CR before it goes too); comments, `event:` and the other fields say nothing a chat
    stream needs. It stops at `data: [DONE]` (`done`). An error chunk (`stream_error`) sets `error`, the SDK's
    APIError, and ends the reading there: the caller takes the chunks before it, then raises it. A line whose
    data is no JSON raises ValueError, as the SDK's stream does; JSON that is no object, openai.APIError.
    `request` is what an error names.
    """

    def __init__(self, request: Any = None) -> None:
        self.request = request
        self.done = False
        self.error: openai.APIError | None = None
        self._rest = b""  # the start of a line whose end has not come yet

    def feed(self, piece: bytes) -> list[dict]:
        """Return the chunks the next piece of the body completes."""
        lines = (self._rest + piece).split(b"\n")
        self._rest = lines.pop()
        return self._chunks(lines)

    def close(self) -> list[dict]:
        """Return the chunk of a last line the body ended in without its line end; a line cut short is no chunk
        (the stream simply ended early: the caller sees no finish reason)."""
        rest, self._rest = self._rest, b""
        try:
            return self._chunks([rest])
        except ValueError:
            return []

    def _chunks(self, lines: list[bytes]) -> list[dict]:
        chunks = []
        for line in lines:
            if self.done or self.error is not None:
                break
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data.startswith(DONE):
                self.done = True
                break
            payload = loads(data)
            error = stream_error(payload)
            if error is not None:
                self.error = openai.APIError(error[0], self.request, body=error[1])
            elif not isinstance(payload, dict):
                self.error = openai.APIError(f"the stream held a chunk that is no JSON object: {data[:80]!r}",
                                             self.request, body=payload)
            else:
                chunks.append(payload)
        return chunks


class Deltas:
    """What a stream's chunks say, added up batch by batch: how many carried a choice, the first choice's
    thinking, why it finished, and the usage the server sent.

    A chunk shaped other than the API's (a `choices` that is no list, a choice or delta that is no object, a
    content or thinking that is no string) adds nothing of what is misshapen: the answer is the text that came.
    """

    __slots__ = ("chunks", "finish", "usage", "_reasoning")

    def __init__(self) -> None:
        self.chunks = 0
        self.finish: str | None = None
        self.usage: dict | None = None
        self._reasoning: list[str] = []

    @property
    def reasoning(self) -> str:
        """The first choice's thinking so far, from its own fields (reasoning_content or reasoning)."""
        return "".join(self._reasoning)

    def add(self, batch: list[dict]) -> str:
        """Add a read's chunks; return the first choice's content they carry, joined ("" when none)."""
        contents: list[str] = []
        for chunk in batch:
            usage = chunk.get("usage")
            if type(usage) is dict and usage:
                self.usage = usage  # the last chunk, with no choices, when the server sends it
            choices = chunk.get("choices")
            if type(choices) is list and choices and type(choices[0]) is dict:
                self._add_choice(choices[0], contents)
        return "".join(contents)

    def _add_choice(self, choice: dict, contents: list[str]) -> None:
        self.chunks += 1
        delta = choice.get("delta")
        if type(delta) is dict:
            for name in REASONING_FIELDS:
                value = delta.get(name)
                if type(value) is str and value:
                    self._reasoning.append(value)
                    break
            content = delta.get("content")
            if type(content) is str and content:
                contents.append(content)
        finish = choice.get("finish_reason")
        if self.finish is None and type(finish) is str and finish:
            self.finish = finish
