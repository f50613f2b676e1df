"""Pure rules that find what the user says is no longer true: "я уволилась из Яндекса", "Барсик умер вчера",
"we broke up", "I don't smoke any more", "у меня больше нет машины", "экзамен отменили".

Each finding is a Change(END) naming what ended in the user's words; memory/unlearn/ matches it to a known
fact, and nothing ends when none matches. Precision first, as in rules.py: a missed ending is bad, but ending
a job the user still has, or burying a pet that is only ill, is worse. A sentence ends nothing when it is a
question, when the words before the trigger deny it, imagine, fear or nearly have it ("боюсь, что Лайка
умрёт", "I almost quit"), when it quotes someone, when it is a story from long ago ("в детстве у меня умер
хомяк"), or when the thing is someone else's ("у подруги умерла кошка", "my brother got laid off"). The words
and patterns live in change_patterns.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from operator import itemgetter

from memory.changes import END, Change
from memory.rules import change_patterns as c
from memory.rules import fact_patterns as p
from memory.rules.guards import clause_before, clause_start, inside_quotes, statements
from memory.text.prefilter import Shortlist, first_match, matches
from memory.time.past import past_day

MAX_SENTENCE = 400  # longer "sentences" are pasted text, not news of the user's life
NAMED = frozenset(c.JOB_ENDED + c.PLACE_ENDED)  # what these name must be capitalised: an organisation, a place
# (triggers, how, slots the words may name)
FAMILIES = (
    (c.JOB_ENDED, "ended", ("employer",)),
    (c.PLACE_ENDED, "ended", ("city", "country", "hometown")),
    (c.PARTNER_ENDED, "ended", ("partner",)),
    (c.HABIT_ENDED, "ended", ()),
    (c.THING_ENDED, "ended", ()),
    (c.PET_LOST, "ended", ("pet",)),
    (c.CANCELLED, "ended", ("plans",)),
)
# Each trigger with how and slots, in that order, asked about all at once (memory/text/prefilter.py)
TRIGGERS = Shortlist([(trigger, how, slots) for triggers, how, slots in FAMILIES for trigger in triggers],
                     itemgetter(0))


def extract_endings(text: str, today: date) -> list[Change]:
    """Return what `text` says has stopped being true about the user, as END changes (one per thing named)."""
    found: dict[tuple[str, tuple[str, ...]], Change] = {}
    for offset, sentence in statements(text):
        if len(sentence) > MAX_SENTENCE or first_match(c.FAR_PAST, sentence):
            continue
        for start, about, how, slots in _findings(sentence):
            if _refused(sentence, start, text[:offset]):
                continue
            change = Change(END, about=about.strip(), slots=slots, how=how, on=past_day(sentence, today),
                            sentence=sentence.strip())
            found.setdefault((change.about.lower(), slots), change)
    return list(found.values())


def _findings(sentence: str) -> Iterator[tuple[int, str, str, tuple[str, ...]]]:
    """Yield (where the trigger starts, the words naming what ended, how, slots) for every trigger."""
    for trigger, how, slots in TRIGGERS.possible(sentence):
        for match in trigger.finditer(sentence):
            if not _own(trigger, sentence, match):
                continue
            if trigger in c.PET_LOST and c.FOUND_AGAIN.search(sentence, match.end()):
                continue  # "убежала в парке, но через полчаса нашлась"
            about = _about(match)
            if trigger in NAMED and about and not _named(about):
                continue  # "ушла из офиса", "I left work early": no organisation or place is named
            yield match.start(), about, how, slots
    yield from _deaths(sentence)


def _about(match: re.Match[str]) -> str:
    """Return the words a trigger captured as what ended ("" when it names nothing: "меня уволили")."""
    groups = match.groupdict()
    return next((groups[name] for name in ("about", "about2") if groups.get(name)), "") or ""


def _named(about: str) -> bool:
    """True when `about` names an organisation or place: capitalised, a known company or place, or "работы"."""
    first = about.split()[0].strip("«\"").lower()
    known = first in p.RU_COMPANIES or first in p.RU_PLACES or first in p.EN_PLACES
    return about[0].isupper() or known or first in c.PLAIN_JOB_WORDS


def _own(trigger: re.Pattern[str], sentence: str, match: re.Match[str]) -> bool:
    """True unless a Russian past-tense trigger without "я"/"мы" has another subject before it ("брат уволился")."""
    if "subj" in trigger.groupindex and not match.group("subj"):
        return clause_start(sentence, match.start())
    return True


def _deaths(sentence: str) -> Iterator[tuple[int, str, str, tuple[str, ...]]]:
    """Yield the pets and relatives the sentence says died: before the verb, or after it ("не стало Лайки")."""
    for match in matches(c.DEATH_AFTER_SUBJECT, sentence):
        clause = clause_before(sentence, match.start())
        subject = " ".join(clause.split()[-3:])
        if subject and not first_match(c.DEATH_IDIOMS, sentence) and not first_match(c.OTHER_OWNER, clause):
            yield match.start(), subject, "died", ("pet", "family")  # judged at the verb: "Барсик не умер"
    for match in matches(c.DEATH_BEFORE_OBJECT, sentence):
        rest = sentence[match.end() : match.end() + 60]
        words = re.split(r"[,.;:!?()\n—–]|\s(?:и|а|но|and|but)\s", rest, maxsplit=1)[0].split()[:3]
        before = clause_before(sentence, match.start())
        if words and not first_match(c.DEATH_IDIOMS, sentence) and not first_match(c.OTHER_OWNER, before):
            yield match.start(), " ".join(words), "died", ("pet", "family")


def _refused(sentence: str, start: int, earlier: str) -> bool:
    """True when the words before `start` deny, imagine, fear or quote the change."""
    before = sentence[:start]
    clause = clause_before(sentence, start)
    if first_match(p.NEGATION, clause) or first_match(c.FEAR, before) or first_match(p.HYPOTHETICAL, before):
        return True
    if p.REPORTED_AFTER.search(sentence[start:]) or c.ATTRIBUTION.search(sentence, start):
        return True
    if c.COUNTERFACTUAL.search(sentence[start : start + 60]):
        return True  # "умер бы без меня", "would have died"
    return inside_quotes(earlier + before)
