"""Words the user passed on but did not say: forwards and quotes, as the session keeps them. Pure.

Only the user's own words teach. A forwarded message is kept whole as context (kind "forward"); a quote is kept
on a marked first line before the user's own words. The model reads both marks; the rules never see what they
mark, and the extractor gets it as context-only lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

FORWARD = "forward"  # the session kind of a forwarded message: all of it is someone else's
QUOTE_MARK = "[quoting "  # the quote follows as one JSON string, then a newline and the user's own words


@dataclass(frozen=True)
class Heard:
    """How a message's words came: forwarded from someone (their name, as the model is told), and any quote."""

    forwarded_from: str | None = None
    quote: str | None = None


OWN_WORDS = Heard()  # a message the user wrote themselves, with no quote


def forwarded_text(origin: str, words: str) -> str:
    """Return a forwarded message as the session keeps it: marked with whom it came from."""
    return f"[forwarded from {one_line(origin)}] {words}".rstrip()


def with_quote(quote: str | None, own: str) -> str:
    """Return the user's own words with the text they quoted on a marked line before them."""
    if not quote:
        return own
    return f"{QUOTE_MARK}{json.dumps(quote, ensure_ascii=False)}]\n{own}"


def split_quote(content: str) -> tuple[str | None, str]:
    """Return (the quoted text, the user's own words) of a message kept by with_quote; (None, content) otherwise."""
    if not content.startswith(QUOTE_MARK):
        return None, content
    line, _, own = content.partition("\n")
    try:
        quote = json.loads(line[len(QUOTE_MARK) : -1])
    except ValueError:
        return None, content
    return (quote if isinstance(quote, str) else None), own


def one_line(text: str) -> str:
    """Return `text` on one line, brackets removed, so that a name cannot close the mark it sits in."""
    return " ".join(text.replace("[", "(").replace("]", ")").split())[:100]
