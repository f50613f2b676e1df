"""Pure rules that find corrections of what is remembered: "Вообще-то я Алина, а не Алёна", "no, my sister is
Olya, not Katya", "я живу не в Москве, а в Питере", "the exam moved to Monday", "экзамен перенесли на 14 декабря".

Each finding is a Change(REPLACE): the words naming the wrong value (`about`) and the right one (`new`), or the
plan named and its new date (`when`). memory/unlearn/ applies it only when `about` means exactly one known fact,
so "я хочу чай, а не кофе" changes nothing unless… it is also refused here: a wish, a condition or a question is
no correction. A brand-new value for a one-value slot ("I moved to Bristol") needs no rule of its own: the fact
rules find it and the store replaces the old value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from memory.changes import REPLACE, Change
from memory.rules import change_patterns as c
from memory.rules import fact_patterns as p
from memory.rules import names
from memory.rules.guards import inside_quotes, statements
from memory.text.prefilter import first_match, matches
from memory.time.dates import find_mentions, find_when

MAX_SENTENCE = 300
# "X, а не Y" / "X, not Y": the right words before, the wrong ones after.
RIGHT_THEN_WRONG = re.compile(r"(?P<right>[^,;:!?.]+?)(?:,?\s+а\s+не|,\s+not|,\s+and\s+not)\s+"
                              r"(?P<wrong>[^,;:!?.()]+)", re.IGNORECASE)
# "не Y, а X" / "not Y, X" / "not Y but X": the wrong words first.
WRONG_THEN_RIGHT = re.compile(r"(?:^|\s)(?:не|not)\s+(?P<wrong>[^,;:!?.]+?),?\s+(?:а|but|i['’]m|it['’]s|он|она)\s+"
                              r"(?P<right>[^;:!?.()]+)", re.IGNORECASE)
# "switched from vegan to pescatarian", "перешла с Яндекса на Озон": the wrong value, then the right one.
SWITCHED = re.compile(r"\b(?:switched|changed|went|перешла|перешёл|перешел)\s+(?:from|с|со)\s+(?P<wrong>[^\W\d_]+)\s+"
                      r"(?:to|на)\s+(?P<right>[^\W\d_]+)", re.IGNORECASE)
# Words that may stand around the value itself and are not part of it.
LEAD = re.compile(r"^(?:(?:в|во|на|из|у|a|an|the|in|at|to|on|from|my|is|it['’]s|i['’]m|just|actually|вообще-то|"
                  r"на\s+самом\s+деле)\s+)+", re.IGNORECASE)
TAIL = re.compile(r"\s+(?:actually|really|though|btw|работаю|живу|зовут|lol|haha)$", re.IGNORECASE)
SHAPE = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


def extract_corrections(text: str, now: datetime) -> list[Change]:
    """Return the corrections `text` makes to what is remembered: values put right and plans moved."""
    found: list[Change] = []
    for offset, sentence in statements(text):
        if len(sentence) > MAX_SENTENCE or _refused(sentence, text[:offset]):
            continue
        for change in [*_moved_plans(sentence, now), *_put_right(sentence, now)]:
            if change not in found:
                found.append(change)
    return found


def _refused(sentence: str, earlier: str) -> bool:
    """True for a wish, a condition, a fear or a quote: nothing is being put right."""
    return bool(first_match(p.HYPOTHETICAL, sentence) or first_match(c.FEAR, sentence) or inside_quotes(earlier)
                or first_match(p.REPORTED, sentence))


def _moved_plans(sentence: str, now: datetime) -> Iterator[Change]:
    """Yield the plans the sentence moves to a new day: "экзамен перенесли на понедельник"."""
    for pattern in c.PLAN_MOVED:
        for match in matches(pattern, sentence):
            when = find_when(sentence[match.end("to") :], now) if match.group("to") is not None else None
            if when and match.group("about").strip():
                yield Change(REPLACE, about=match.group("about").strip(), slots=("plans",), when=when[2],
                             sentence=sentence.strip())


def _put_right(sentence: str, now: datetime) -> Iterator[Change]:
    """Yield "X, а не Y" and "не Y, а X": a value, or (when both are days) a plan's date, put right."""
    for match in matches(SWITCHED, sentence):  # "switched from vegan to pescatarian"
        yield Change(REPLACE, about=match.group("wrong"), new=_nominative(match.group("right")),
                     sentence=sentence.strip())
    for pattern in (RIGHT_THEN_WRONG, WRONG_THEN_RIGHT):
        for match in matches(pattern, sentence):
            right, wrong = match.group("right"), match.group("wrong")
            if find_mentions(wrong, now) and find_mentions(right, now):
                when = find_when(right, now)
                head = sentence[: match.start()] if pattern is WRONG_THEN_RIGHT else sentence[: match.start("right")]
                event = head.strip() or right
                if when:
                    yield Change(REPLACE, about=event, slots=("plans",), when=when[2], sentence=sentence.strip())
                continue
            wrong_words = _value(wrong, from_end=False)
            right_words = _value(right, from_end=pattern is RIGHT_THEN_WRONG, like=wrong_words)
            if wrong_words and right_words and wrong_words.lower() != right_words.lower():
                yield Change(REPLACE, about=wrong_words, new=_nominative(right_words), sentence=sentence.strip())


def _value(words: str, from_end: bool, like: str | None = None) -> str:
    """Return the value in `words`: without prepositions and fillers, as many words as `like` has (from the end
    of `words` when `from_end`: "It's Sem" -> "Sem"); "" when it holds no word."""
    words = TAIL.sub("", LEAD.sub("", words.strip()))
    tokens = SHAPE.findall(words)
    if not tokens:
        return ""
    count = len(SHAPE.findall(like)) if like else min(len(tokens), 3)
    if like and like[:1].isdigit():  # "I'm 35 actually, not 34": the number
        digits = [token for token in tokens if token.isdigit()]
        return digits[-1 if from_end else 0] if digits else ""
    chosen = tokens[-count:] if from_end else tokens[:count]
    if like and like[:1].isupper() and not chosen[0][:1].isupper():
        return ""  # a name is put right with a name
    return " ".join(chosen)


def _nominative(value: str) -> str:
    """Return a Russian place, company or name in the nominative ("Питере" -> "Санкт-Петербург")."""
    lowered = value.lower()
    known = p.RU_PLACES.get(lowered) or p.RU_COMPANIES.get(lowered) or p.EN_PLACES.get(lowered)
    if known:
        return known
    return names.nominative(value) if value[:1].isupper() and " " not in value else value
