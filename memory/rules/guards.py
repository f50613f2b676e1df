"""The sentence guards of the fact rules: which sentences are statements, and whether the words at a position
are the user's plain claim (not denied, past, wished, reported or quoted). Shared by rules.py, kin.py and
feelings.py; the patterns they test with live in fact_patterns.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from memory.rules import fact_patterns as p
from memory.text.prefilter import first_match, matches

Found = Iterator[tuple[int, str, str]]  # (where in the sentence the statement starts, key, value)


@lru_cache(maxsize=16)
def split_sentences(text: str, pattern: re.Pattern[str] = p.SENTENCE) -> tuple[tuple[int, str], ...]:
    """Return (offset, sentence) for each sentence of `text`, questions included.

    Every rule family reads a message's sentences: they are split once a message, and kept for the next family
    (the last few messages' splits are cached).
    """
    return tuple((match.start(), match.group()) for match in matches(pattern, text))


@lru_cache(maxsize=16)
def statements(text: str, pattern: re.Pattern[str] = p.SENTENCE) -> tuple[tuple[int, str], ...]:
    """Return (offset, sentence) for each sentence of `text` that is no question ("…, and you?" is cut off);
    worked out once a message for the fact, ending and correction rules alike.

    `pattern` matches one sentence (the event rule cuts them with its own).
    """
    found = []
    for offset, sentence in split_sentences(text, pattern):
        if "?" in sentence:
            tagged = p.TAG_QUESTION.match(sentence.strip())
            if not tagged:
                continue
            sentence = tagged.group("body")
        if not first_match(p.QUESTION_START, sentence) and not first_match(p.QUESTION_PARTICLE, sentence):
            found.append((offset, sentence))
    return tuple(found)


def is_claim(sentence: str, position: int, earlier: str) -> bool:
    """True when the words at `position` are a plain statement: not denied, past, wished, reported or quoted."""
    clause = clause_before(sentence, position)
    if first_match(p.NEGATION, clause) or first_match(p.PAST, clause):
        return False
    if _first_end(p.HYPOTHETICAL, sentence) <= position or _first_end(p.REPORTED, sentence) <= position:
        return False  # a wish, a condition or someone else's words come earlier in the sentence
    if p.REPORTED_AFTER.search(words_after(sentence, position)):
        return False
    return not inside_quotes(earlier + sentence[:position])


@lru_cache(maxsize=256)
def _first_end(pattern: re.Pattern[str], sentence: str) -> int:
    """Return where the first match of `pattern` in `sentence` ends, or a position past its end.

    The first match ends before any other, so comparing with it tells whether one lies wholly before a
    position, without searching the text before each candidate again (quadratic on a pasted wall of text).
    """
    match = first_match(pattern, sentence)
    return match.end() if match else len(sentence) + 1


def clause_before(sentence: str, position: int) -> str:
    """Return the words of the clause that lead up to `position` (looking back at most 200 characters)."""
    return p.CLAUSE_BOUNDARY.split(sentence[max(0, position - 200) : position])[-1]


def clause_start(sentence: str, position: int) -> bool:
    """True when only fillers ("ну", "кстати", "сегодня") stand between the clause start and `position`."""
    return bool(p.CLAUSE_OPENERS.match(clause_before(sentence, position).strip()))


def words_after(sentence: str, position: int) -> str:
    """Return the words after `position` that a fact can span; a bounded window keeps long messages linear."""
    return sentence[position : position + 200]


def inside_quotes(before: str) -> bool:
    """True when `before` leaves a quotation open, so what follows is someone's quoted words."""
    opened = sum(before.count(q) for q in "«“„")
    closed = sum(before.count(q) for q in "»”")
    return opened > closed or before.count('"') % 2 == 1
