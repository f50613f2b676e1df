"""Counting tokens without a tokenizer: for the prompt budget, and for usage a server does not report."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens a model's tokenizer makes of `text`: UTF-8 bytes / 4, plus one.

    About right for English with OpenAI's tokenizers (4 characters a token) and on the safe side for
    Cyrillic (2 bytes a character, 2-3 characters a token); no tokenizer file is needed.
    """
    return len(text.encode("utf-8")) // 4 + 1


def message_tokens(messages: list[dict]) -> int:
    """Estimate the tokens of chat messages: the text of each (an image part counts as its text only)."""
    total = 0
    for message in messages:
        content = message.get("content") or ""
        if isinstance(content, list):  # parts: text and images
            content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
        total += estimate_tokens(str(content))
    return total
