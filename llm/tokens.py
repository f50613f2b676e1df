"""Counting tokens without a tokenizer: for the prompt budget, and for usage a server does not report."""

from __future__ import annotations

# Marks a tokenizer seldom merges with the word beside them. With the words (a space or a line break before
# each) and the line breaks themselves, they give about the fewest tokens a text can have, however few bytes
# it has ("cat\ncat\n" is 4 tokens, not 2). All of them are ASCII, and UTF-8 uses ASCII bytes for ASCII characters
# alone, so they are counted in the encoded bytes, as the bytes bytes.translate deletes: str.translate takes a
# slow path on any text that is not pure ASCII (300 against 20 µs for 2.2 KB of Cyrillic), a str.count for
# each mark 4 times longer than that path on ASCII, a regex longer still.
MARKS = ".,!?:;\"'()[]{}`*#-/"
_MARK_BYTES = MARKS.encode("ascii")


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens a model's tokenizer makes of `text`: UTF-8 bytes / 4, or its words, marks and
    line breaks where there are more of those, plus one.

    Bytes / 4 is about right for English prose with OpenAI's and Gemma's tokenizers and on the safe side for
    Cyrillic (2 bytes a character, 2-3 characters a token); short lines, code and repeated words have more
    tokens than that, and the count of pieces catches them (bench/tokens.py measures both against a real
    tokenizer). No tokenizer file is needed.
    """
    data = text.encode("utf-8")
    marks = len(data) - len(data.translate(None, _MARK_BYTES))
    pieces = bool(data) + data.count(b" ") + 2 * data.count(b"\n") + marks
    return max(len(data) // 4, pieces) + 1


def message_tokens(messages: list[dict]) -> int:
    """Estimate the tokens of chat messages: the text of each (an image part counts as its text only)."""
    total = 0
    for message in messages:
        content = message.get("content") or ""
        if isinstance(content, list):  # parts: text and images
            content = " ".join(part["text"] for part in content if isinstance(part, dict) and part.get("text"))
        total += estimate_tokens(str(content))
    return total
