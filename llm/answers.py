"""What comes back from the model, made fit to use, and what a request in a weaker output mode must add (pure)."""

from __future__ import annotations

import json
import re

# The end of a sentence: its mark and any closing quotes or brackets, then a space or the end of the text. A
# full stop after a digit is left out: it numbers a list more often than it ends a sentence.
SENTENCE_END = re.compile(r"(?:(?<!\d)\.|[!?…。！？])[\"'»”’)\]]*(?=\s|$)")
ELLIPSIS = "…"


def clean_answer(text: str) -> str:
    """Return the model's text without NULs (Telegram shows none) and surrounding whitespace."""
    return text.replace("\x00", "").strip()


def end_cleanly(text: str) -> str:
    """Return an answer the token cap cut off, ending where a sentence or line ended; never half a word.

    The unfinished sentence is dropped. An answer that is one unfinished sentence keeps its whole words and
    gets "…"; one without a space at all is given back as it is, with "…".
    """
    text = text.rstrip()
    ends = [match.end() for match in SENTENCE_END.finditer(text)]
    line = text.rfind("\n")
    cut = max(ends[-1] if ends else 0, line if line > 0 else 0)
    if cut > 0:
        return text[:cut].rstrip()
    space = max(text.rfind(" "), text.rfind("\t"))
    head = text[:space].rstrip(" ,;:—–-") if space > 0 else text
    return head + ELLIPSIS if head else text


def close_json(raw: str) -> str | None:
    """Return JSON an answer's cap cut off mid-way as the complete document it began, up to the last whole
    object in one of its arrays (a fact, say); None when no such object was complete."""
    start = next((index for index, char in enumerate(raw) if char in "{["), None)
    if start is None:
        return None
    stack: list[str] = []
    in_string = escaped = False
    last: tuple[int, list[str]] | None = None
    for index in range(start, len(raw)):
        char = raw[index]
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]":
            if not stack or "{[".index(stack.pop()) != "}]".index(char):
                return None
            if not stack:
                return raw[start : index + 1]  # it was whole after all
            if char == "}" and stack[-1] == "[":
                last = (index, list(stack))
    if last is None:
        return None
    end, still_open = last
    return raw[start : end + 1] + "".join("]" if bracket == "[" else "}" for bracket in reversed(still_open))


def schema_instruction(schema: dict) -> str:
    """Return the line that asks for JSON following `schema`, for servers that cannot be given it as a format."""
    return (
        "Reply with one JSON object and nothing else, no code fences. It must follow this JSON Schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def with_instruction(messages: list[dict], instruction: str) -> list[dict]:
    """Return the messages with `instruction` appended to the first system message (or one put first)."""
    if messages and messages[0]["role"] == "system" and isinstance(messages[0]["content"], str):
        first = {"role": "system", "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]
