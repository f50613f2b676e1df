"""Counting tokens without a tokenizer: for the prompt budget, and for usage a server does not report."""

from __future__ import annotations

# Marks a tokenizer seldom merges with the word beside them. With the words (a space or a line break before
# each) and the line breaks themselves, they give about the fewest tokens a text can have, however few bytes
# it has ("cat\ncat\n" is 4 tokens, not 2). Counted as the characters str.translate deletes: a str.count for each
# mark took 4 times longer on a system message (32 against 8 µs for 1.8 KB), a regex longer still.
MARKS = ".,!?:;\"'()[]{}`*#-/"
_WITHOUT_MARKS = str.maketrans("", "", MARKS)


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens a model's tokenizer makes of `text`: UTF-8 bytes / 4, or its words, marks and
    line breaks where there are more of those, plus one.

    Bytes / 4 is about right for English prose with OpenAI's and Gemma's tokenizers and on the safe side for
    Cyrillic (2 bytes a character, 2-3 characters a token); short lines, code and repeated words have more
    tokens than that, and the count of pieces catches them (bench/tokens.py measures both against a real
    tokenizer). No tokenizer file is needed.
    """
    marks = len(text) - len(text.translate(_WITHOUT_MARKS))
    pieces = bool(text) + text.count(" ") + 2 * text.count("\n") + marks
    return max(len(text.encode("utf-8")) // 4, pieces) + 1


def message_tokens(messages: list[dict]) -> int:
    """Estimate the tokens of chat messages: the text of each (an image part counts as its text only)."""
    total = 0
    for message in messages:
        content = message.get("content") or ""
        if isinstance(content, list):  # parts: text and images
            content = " ".join(part["text"] for part in content if isinstance(part, dict) and part.get("text"))
        total += estimate_tokens(str(content))
    return total
