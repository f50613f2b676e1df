"""Where words are in a sentence: the spans the reminder rules find, cut out, blank or compare.

Pure helpers over (start, end) character spans, shared by memory/reminders/times.py, requests.py and
reminder_changes.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory.reminders import reminder_patterns as p
from memory.text.prefilter import matches

Span = tuple[int, int]


def sentences(text: str) -> list[Span]:
    """Return (start, end) of each sentence of `text` that holds anything but spaces."""
    found, start = [], 0
    for match in matches(p.SENTENCE_END, text):
        if text[start : match.start()].strip():
            found.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        found.append((start, len(text)))
    return found


def clause_before(sentence: str, position: int) -> str:
    """Return the words of the clause that `position` is in, from the clause's start up to `position`."""
    breaks = [match.end() for match in p.CLAUSE_BREAK.finditer(sentence, 0, position)]
    return sentence[breaks[-1] if breaks else 0 : position]


def blank(text: str, spans: Iterable[Span], offset: int = 0) -> str:
    """Return `text` (which starts at `offset` of the sentence) with the sentence's `spans` as spaces.

    Positions stay where they were, so what is found in the result is found at the same place in `text`.
    """
    chars = list(text)
    for start, end in spans:
        for index in range(max(start - offset, 0), min(end - offset, len(chars))):
            chars[index] = " "
    return "".join(chars)


def cut(text: str, spans: Iterable[Span], start: int, end: int) -> str:
    """Return text[start:end] without the parts inside `spans`, the pieces left joined by a space."""
    pieces, position = [], start
    for span_start, span_end in sorted(spans):
        if span_end <= position or span_start >= end:
            continue
        pieces.append(text[position : max(position, span_start)])
        position = max(position, span_end)
    pieces.append(text[position:end])
    return " ".join(pieces)


def overlaps(span: Span, spans: Iterable[Span]) -> bool:
    """True when `span` shares a character with any of `spans`."""
    return any(start < span[1] and span[0] < end for start, end in spans)


def longest(found: Sequence) -> list:
    """Return the longest of `found` (things with start and end) that do not overlap, in text order.

    Of two the same length, the earlier wins.
    """
    chosen: list = []
    for item in sorted(found, key=lambda item: (item.start - item.end, item.start)):
        if not overlaps((item.start, item.end), [(other.start, other.end) for other in chosen]):
            chosen.append(item)
    return sorted(chosen, key=lambda item: item.start)


def masked_quotes(text: str) -> str:
    """Return `text` with quoted words and quoted lines ("> …") as spaces: they are someone else's."""
    text = p.QUOTES.sub(lambda match: " " * len(match.group()), text)
    return p.QUOTED_LINE.sub(lambda match: " " * len(match.group()), text)
