"""A pure rule that finds the user's own dated plans and events: "у меня в пятницу экзамен по химии",
"my interview is tomorrow at 10", "у мамы день рождения в субботу".

Precision first, as in memory/rules/rules.py: a follow-up about the wrong day, or about someone else's exam, is
worse than none, and the LLM layer finds what this misses. Each sentence is judged on its own and gives
nothing when it is a question, denies or cancels the event, is in the past tense, wishes, doubts or
imagines it, reports someone else's words or quotes them, is habitual, names someone else (a friend, a
brother, "he", "your") unless the event is a relative's birthday or anniversary, or does not name exactly
one day from today on (memory/time/dates.py). With no owner named at all ("Завтра экзамен!") the event must open
its clause, since a companion hears that only about the user's own life.

An event is a "plans" fact, followed up the day after. The user's own birthday ("мой день рождения в субботу")
is the one exception: it fills the "birthday" slot instead, so that they are greeted on the day, not asked
how it went the day after. The words and patterns live in memory/rules/event_patterns.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from itertools import islice

from memory.facts import Fact, normalize_facts, slug
from memory.rules import event_patterns as ev
from memory.rules import fact_patterns as p
from memory.rules import kin_patterns as kin
from memory.rules.rules import statements
from memory.text.prefilter import first_match, matches
from memory.time.date_patterns import EN_MONTHS, RU_MONTHS
from memory.time.dates import Mention, find_mentions, when_of

IMPORTANCE, CONFIDENCE = 6, 0.9
BIRTHDAY_IMPORTANCE = 8  # as prompts/extract_facts.md rates a birthday
# A plan is said in a sentence of a few words. A longer "sentence" is pasted text without full stops, whose
# tense and owner cannot be judged, and judging each of its events would cost time quadratic in its length.
MAX_SENTENCE = 400
MAX_EVENTS = 16  # event words judged per message


def extract_event_facts(text: str, now: datetime, message_id: int | None = None) -> list[Fact]:
    """Return the user's own plans and events in `text` that fall on one day from today on, as "plans" facts.

    The user's own birthday comes back as the "birthday" fact instead, dated its coming occurrence.
    """
    facts: list[Fact] = []
    judged = read = 0
    quotes = {q: 0 for q in ev.QUOTES}  # how many of each quote mark come before the sentence at hand
    for offset, sentence in statements(text, ev.SENTENCE):
        if judged >= MAX_EVENTS:
            break
        for q in ev.QUOTES:
            quotes[q] += text.count(q, read, offset)
        read = offset
        if len(sentence) > MAX_SENTENCE or any(q in sentence for q in ev.QUOTES) or _quote_open(quotes):
            continue
        if _refused(sentence):
            continue
        mentions = find_mentions(sentence, now)
        when = when_of(mentions, now)
        if when is None or any(mention.hour_dropped for mention in mentions):
            continue  # no day, a past or vague one, two different ones, or an hour that could not be placed
        for start, end, value, relative in islice(_events(sentence), MAX_EVENTS - judged):
            judged += 1
            if _is_own(sentence, (start, end), relative, mentions):
                facts.append(_fact(sentence, start, value, relative, when, message_id))
    return normalize_facts(facts)


def _fact(sentence: str, start: int, value: str, relative: tuple[int, int] | None, when: str,
          message_id: int | None) -> Fact:
    """Return the fact an own event at `start` makes: the birthday slot for the user's own birthday, else a plan."""
    if relative is None and value in ev.BIRTHDAY_NAMES and _is_my_birthday(sentence, start):
        day = date.fromisoformat(when[:10])  # a time said with it is the party's, not the birthday's
        return Fact(category="personal", key="birthday", value=_day_and_month(day, english=value == "birthday"),
                    importance=BIRTHDAY_IMPORTANCE, confidence=CONFIDENCE, source="rule",
                    source_message_id=message_id, when=day.isoformat())
    return Fact(category="plans", key=f"plan:{slug(value)}", value=value, importance=IMPORTANCE,
                confidence=CONFIDENCE, source="rule", source_message_id=message_id, when=when)


def _is_my_birthday(sentence: str, start: int) -> bool:
    """True when the birthday at `start` is said as the user's own ("my birthday", "у меня … день рождения").

    Not when the sentence is about a party or a celebration, which may be held on another day.
    """
    mine = ev.MY_BEFORE.search(sentence[:start]) or first_match(ev.AT_MINE_RU, sentence)
    return bool(mine) and not first_match(ev.CELEBRATION, sentence)


def _day_and_month(day: date, english: bool) -> str:
    """Return "14 March" or "14 марта": the birthday as it is kept, without the year it was said in."""
    if english:
        return f"{day.day} {EN_MONTHS[day.month - 1].capitalize()}"
    return f"{day.day} {RU_MONTHS[day.month - 1]}"


def _refused(sentence: str) -> bool:
    """True when the whole sentence is unsure, past, cancelled, habitual or someone else's words."""
    plain = ev.GOOD_LUCK.sub(" ", sentence)
    guards = (ev.HEDGE, ev.PAST_TENSE, ev.CANCELLED, ev.HABIT, p.REPORTED)
    return any(first_match(guard, plain) for guard in guards) or bool(first_match(p.REPORTED_AFTER, plain))


def _events(sentence: str) -> Iterator[tuple[int, int, str, tuple[int, int] | None]]:
    """Yield (start, end, value, the relative's span or None) for each event the sentence names."""
    taken: list[tuple[int, int]] = []
    for pattern in (ev.BIRTHDAY_RU, ev.BIRTHDAY_EN):  # first, so "годовщина свадьбы" is no wedding as well
        for match in matches(pattern, sentence):
            taken.append(match.span())
            if _is_the_event(sentence, match):
                yield _birthday(sentence, match)
    for pattern, value in ev.EVENTS:
        for match in matches(pattern, sentence):
            if not any(match.start() < end and start < match.end() for start, end in taken):
                taken.append((match.start(), match.end()))
                if _is_the_event(sentence, match):
                    yield match.start(), match.end(), value(match), None


def _is_the_event(sentence: str, match: re.Match[str]) -> bool:
    """True unless the words around `match` make it the event's results, preparation or tickets."""
    before = sentence[max(0, match.start() - 40) : match.start()]
    after = sentence[match.end() :]
    return not first_match(ev.NOT_THE_EVENT_BEFORE, before) and not ev.NOT_THE_EVENT_AFTER.match(after)


def _birthday(sentence: str, match: re.Match[str]) -> tuple[int, int, str, tuple[int, int] | None]:
    """Return (start, end, value, the relative's span) for a birthday or anniversary, the user's or a relative's."""
    noun = match.group("noun").lower()
    before, after = sentence[: match.start()], sentence[match.end() :]
    if match.re is ev.BIRTHDAY_EN:
        noun = "birthday" if noun.replace("-", "") in ("birthday", "bday") else noun
        relative = first_match(ev.RELATIVE_EN, before)
        if relative and relative.group("rel").lower() in kin.EN_RELATIVES:
            return match.start(), match.end(), f"{relative.group('rel').lower()}'s {noun}", relative.span()
        return match.start(), match.end(), noun, None
    noun = ev.RU_NOMINATIVE.get(noun) or next(v for k, v in ev.RU_NOMINATIVE.items() if noun.startswith(k))
    adjective = first_match(ev.RELATIVE_ADJECTIVE_RU, before)
    if adjective:
        relative_name = ev.RELATIVE_ADJECTIVES_RU[adjective.group("adj").lower()]
        return match.start(), match.end(), f"{noun} {relative_name}", adjective.span()
    following = ev.RELATIVE_AFTER_RU.match(after)  # "день рождения мамы"
    if following and following.group("rel").lower() in kin.RU_RELATIVES:
        span = (match.end() + following.start(), match.end() + following.end())
        return match.start(), match.end(), f"{noun} {following.group('rel').lower()}", span
    clause_start, clause_end = _clause(sentence, match.start(), match.end())
    for owner in ev.RELATIVE_RU.finditer(sentence, clause_start, clause_end):  # "у мамы в субботу день рождения"
        if owner.group("rel").lower() in kin.RU_RELATIVES:
            return match.start(), match.end(), f"{noun} {owner.group('rel').lower()}", owner.span()
    return match.start(), match.end(), noun, None


# ---- whose event --------------------------------------------------------------------------------------


def _is_own(sentence: str, event: tuple[int, int], relative: tuple[int, int] | None,
            mentions: list[Mention]) -> bool:
    """True when the event is the user's (or a relative's birthday): not denied, no one else named as its owner."""
    start, end = event
    clause_start, clause_end = _clause(sentence, start, end)
    clause = sentence[clause_start:clause_end]
    if first_match(p.NEGATION, clause) or first_match(ev.NEGATED, clause):
        return False
    spans = [span for span in (event, relative) if span]
    outside = sentence
    for span_start, span_end in spans:  # the event's own words name no one else
        outside = outside[:span_start] + " " * (span_end - span_start) + outside[span_end:]
    if _someone_else(sentence, outside, spans):
        return False
    if relative or first_match(ev.FIRST_PERSON, outside) or ev.FIRST_PERSON.search(sentence[start:end]):
        return True
    return _opens_clause(sentence, clause_start, start, mentions)


def _quote_open(counts: dict[str, int]) -> bool:
    """True when quote marks so counted leave a quotation open, so what follows is someone's quoted words."""
    opened = sum(counts[q] for q in "«“„")
    closed = sum(counts[q] for q in "»”")
    return opened > closed or counts['"'] % 2 == 1


def _clause(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Return the bounds of the clause around [start, end)."""
    before = [m.end() for m in p.CLAUSE_BOUNDARY.finditer(sentence, 0, start)]
    after = p.CLAUSE_BOUNDARY.search(sentence, end)
    return (before[-1] if before else 0), (after.start() if after else len(sentence))


def _someone_else(sentence: str, outside: str, spans: list[tuple[int, int]]) -> bool:
    """True when the sentence names another person as an owner: "he", "у брата", "Sam's", "my sister", "Маша".

    `outside` is the sentence with the event's own words (`spans`) blanked out.
    """
    if first_match(ev.THIRD_PERSON, outside):
        return True
    for owner in matches(ev.OWNER_RU, outside):
        who = owner.group("who").lower()
        if not who.startswith(tuple(ev.DOCTORS_RU) + ("зубно",)):  # "приём у врача"
            return True
    for owner in matches(ev.POSSESSOR_EN, outside):
        if owner.group("who").lower() not in ev.NOT_POSSESSORS:
            return True
    words = list(matches(ev.WORD, sentence))
    for index, word in enumerate(words):
        if any(start <= word.start() < end for start, end in spans):
            continue
        lowered = word.group().lower()
        previous = [w.group().lower() for w in words[max(0, index - 3) : index]
                    if w.group().lower() not in ev.POSSESSIVES]
        companion = bool(previous) and previous[-1] in ev.COMPANION
        if (lowered in ev.PEOPLE_RU or lowered in ev.PEOPLE_EN) and not companion:
            return True
        if _named(sentence, words, index) and not companion:
            return True
    return False


def _named(text: str, words: list[re.Match[str]], index: int) -> bool:
    """True when words[index] looks like someone's name standing as the subject ("Sam has…", "…Маша сдаёт")."""
    word = words[index].group()
    if not word[0].isupper() or word.isupper() or word.lower() in ev.DATE_WORDS:
        return False
    if word.lower() in p.EN_PLACES or word.lower() in p.RU_PLACES:
        return False
    previous = words[index - 1].group().lower() if index else ""
    if previous in ev.PLACE_PREPOSITIONS:
        return False  # "в Яндексе", "at Google", "концерт Земфиры": a place, a firm or an artist
    if word.lower() in ev.EN_FUNCTION_WORDS or ev.FIRST_PERSON.fullmatch(word):
        return False
    if re.match(r"[a-z]", word, re.IGNORECASE):  # English: a capitalised word followed by a verb of its own
        return bool(ev.EN_SUBJECT_VERB.match(text[words[index].end() :]))
    return index > 0  # a Russian sentence starts capitalised anyway


def _opens_clause(sentence: str, clause_start: int, start: int, mentions: list[Mention]) -> bool:
    """True when only fillers and dates come before the event in its clause ("Ну всё, завтра экзамен")."""
    lead = list(sentence[clause_start:start])
    for mention in mentions:
        for i in range(max(mention.start, clause_start), min(mention.end, start)):
            lead[i - clause_start] = " "
    return all(word.lower() in ev.FILLERS for word in ev.WORD.findall("".join(lead)))
