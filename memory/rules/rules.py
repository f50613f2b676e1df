"""Pure regex rules that find durable facts in what the user writes (never in the bot's replies).

Precision first: a wrong fact in the prompt is worse than a missing one. Every rule needs a first-person
statement ("I live in…", "живу в…", "my dog…", "у меня…"), and each sentence is judged on its own: a
match is refused when its sentence is a question, or when the words before it deny it, put it in the past,
wish or imagine it, report someone else's words or sit inside quotes. What the rules miss is left to the
LLM layer. The sentence guards live in guards.py; the finders of pets and family in kin.py, and of
likes and states in feelings.py. The words themselves (cities, jobs, animals, declensions, triggers) live
in fact_patterns.py, kin_patterns.py and feeling_patterns.py, and those of the name slot in names.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from operator import itemgetter

from memory.facts import Extraction, Fact, Relation, normalize_facts
from memory.rules import fact_patterns as p
from memory.rules import feeling_patterns as feel
from memory.rules import kin_patterns as kin
from memory.rules import names
from memory.rules.feelings import likes, states
from memory.rules.guards import Found, clause_before, clause_start, inside_quotes, is_claim, statements, words_after
from memory.rules.kin import kin_and_pets, unowned_kin
from memory.text.prefilter import Shortlist, first_match, matches
from memory.text.word_forms import place_nominative

# slot -> (category, importance)
SLOTS = {
    "name": ("personal", 9), "age": ("personal", 7), "city": ("location", 7), "country": ("location", 6),
    "hometown": ("location", 6), "job_title": ("career", 7), "employer": ("career", 6), "school": ("career", 6),
    "pet": ("pets", 6), "family": ("family", 6), "likes": ("preferences", 5), "dislikes": ("preferences", 5),
    "state": ("state", 4), "marital_status": ("personal", 7), "diet": ("preferences", 6),
}
# A message states a handful of facts; past this many candidates it is a pasted wall of text, and judging
# every one of them would only cost time on the event loop.
MAX_CANDIDATES = 64
# Where the user lives (True) or comes from (False), with each trigger that says so; asked about all at once, as
# are the triggers of age and status (memory/text/prefilter.py).
PLACE_TRIGGERS = Shortlist([(True, trigger) for trigger in p.LIVE_TRIGGERS + [p.LIVED_TRIGGER]]
                           + [(False, trigger) for trigger in p.FROM_TRIGGERS], itemgetter(1))
AGE_TRIGGERS = Shortlist(p.AGE_TRIGGERS)
STATUS_TRIGGERS = Shortlist(p.STATUS_TRIGGERS, itemgetter(1))


def extract_name(text: str) -> str | None:
    """Return the name the user goes by in `text`: the one they ask to be called by, else the one they state."""
    stated = None
    for _, sentence in statements(text):
        for match, name, kind in names.name_matches(sentence):
            if _is_own_name(sentence, match.start()):
                if kind == names.ASKED:
                    return name  # "Меня зовут Александр, но зови меня Саша"
                stated = stated or name
        stated = stated or names.introduced_name(sentence)
    return stated or names.signed_name(text)


def extract_rule_facts(text: str, message_id: int | None = None) -> Extraction:
    """Return the facts the user clearly states about themselves in `text`, and the relations among them."""
    name = extract_name(text)
    found = [_fact("name", name)] if name else []
    for offset, sentence, position, key, value in islice(_candidates(text), MAX_CANDIDATES):
        if is_claim(sentence, position, text[:offset]):
            found.append(_fact(key, value))
    facts = normalize_facts(replace(fact, source_message_id=message_id) for fact in found)
    return Extraction(facts, _relations(facts))


def _candidates(text: str) -> Iterator[tuple[int, str, int, str, str]]:
    """Yield (sentence offset, sentence, position in it, key, value) for every fact a rule matches in `text`."""
    for offset, sentence in statements(text):
        for finder in FINDERS:
            for position, key, value in finder(sentence):
                yield offset, sentence, position, key, value
        for position, key, value in unowned_kin(sentence):
            if not kin.OTHER_OWNER_RU.search(text, 0, offset + position):  # "У Маши двое детей. Есть дочка Соня."
                yield offset, sentence, position, key, value


def _fact(key: str, value: str) -> Fact:
    """Return a rule fact for `key`, with its slot's category and importance."""
    category, importance = SLOTS[key.split(":")[0]]
    return Fact(category=category, key=key, value=value, importance=importance, source="rule")


def _relations(facts: list[Fact]) -> list[Relation]:
    """Return the obvious edges among one message's facts: job at employer, city in country."""
    keys = {fact.key for fact in facts}
    relations = []
    if {"job_title", "employer"} <= keys:
        relations.append(Relation("job_title", "employer", "works_at"))
    if {"city", "country"} <= keys:
        relations.append(Relation("city", "country", "located_in"))
    return relations


# ---- name ---------------------------------------------------------------------------------------------


def _is_own_name(sentence: str, position: int) -> bool:
    """True when the name at `position` is the user's plain word: not denied, past, imagined, reported or quoted."""
    before = sentence[:position]
    clause = clause_before(sentence, position)
    if first_match(names.NAME_NEGATION, before) or first_match(p.NEGATION, clause) or first_match(p.PAST, clause):
        return False  # "не называй меня Сашей", "Mom used to call me Bunny"
    if p.HYPOTHETICAL.search(names.POLITE.sub("", before)):
        return False  # "если бы меня звали Оля"; but "если хочешь, зови меня Саша" is a plain wish
    return not (inside_quotes(before) or first_match(p.REPORTED, before))


# ---- age and places -----------------------------------------------------------------------------------


def _ages(sentence: str) -> Found:
    """Yield the age in "мне 25 лет", "I'm 25", "I'm 25 years old", "I just turned 30"."""
    for pattern in AGE_TRIGGERS.possible(sentence):
        for match in pattern.finditer(sentence):
            rest = words_after(sentence, match.end())
            tail_ok = not p.AGE_NOT_AFTER.match(rest) if match.group("unit") else p.AGE_CLAUSE_END.match(rest)
            hedged = p.AGE_NOT_BEFORE.search(clause_before(sentence, match.start()))  # "скоро мне 30"
            if "intro" in pattern.groupindex and not names.could_introduce(match.group("intro")):
                continue  # "I'm tired, 5"
            if tail_ok and not hedged and 5 <= int(match.group("age")) <= 120:
                yield match.start(), "age", match.group("age")


def _places(sentence: str) -> Found:
    """Yield city/country where the user lives or moved to, and hometown where they come from."""
    for home, trigger in PLACE_TRIGGERS.possible(sentence):
        for match in trigger.finditer(sentence):
            needs_subject = "subj" in trigger.groupindex and not match.group("subj")
            if needs_subject and not clause_start(sentence, match.start()):
                continue  # "брат переехал в Москву": the past tense has no person, so it needs "я"
            start = match.start("at") if "at" in trigger.groupindex else match.start()
            rest = words_after(sentence, match.end())
            place, used = _place(rest, known_only=not home and bool(p.FROM_RU.search(match.group())))
            if not place or p.NEXT_IS_PAST_VERB.match(rest[used:]):
                continue  # "я из Москвы приехала": where they came from today
            after = rest[used:]
            if trigger is p.LIVED_TRIGGER and (not (match.group("always") or p.LIVED_TAIL.match(after))
                                               or first_match(p.LIVED_ENDED, after)):
                continue  # "I've lived in Paris and Rome", "… for 5 years, then moved": places of the past
            if "at" in trigger.groupindex and feel.GERUND_SUBJECT.match(after):
                continue  # "I'm worried, living in Leeds is expensive"
            if not home:
                known = place.lower() in p.EN_PLACES or place.lower() in p.RU_PLACES
                plain_from = trigger is p.FROM_TRIGGERS[0]  # "I'm from Google support"
                colloquial = p.FROM_WITH_RU.search(match.group())  # "я с Питера еду" says where from today
                if not (colloquial or plain_from and not known) or p.PLACE_CLAUSE_END.match(after):
                    yield start, "hometown", place
            elif not p.TEMPORARY_STAY.match(after):
                yield start, "country" if place in p.COUNTRIES else "city", place
                country, _ = _place(after.lstrip(" ,"), known_only=True)
                if after.startswith(",") and country in p.COUNTRIES:
                    yield start, "country", country  # "I live in Berlin, Germany"


def _place(rest: str, known_only: bool) -> tuple[str | None, int]:
    """Return (place named at the start of `rest`, characters used); Russian names come back in the nominative."""
    tokens: list[re.Match[str]] = []
    for token in matches(p.PLACE_TOKEN, rest):
        gap = rest[tokens[-1].end() if tokens else 0 : token.start()]
        if gap.strip() or len(tokens) == 4:
            break
        tokens.append(token)
    for count in range(len(tokens), 0, -1):
        phrase = " ".join(t.group() for t in tokens[:count]).lower()
        known = p.EN_PLACES.get(phrase) or p.RU_PLACES.get(phrase)
        if known:
            return known, tokens[count - 1].end()
    if known_only:
        return None, 0  # "я из IT", "я из дома": only known places count after "из"
    run: list[re.Match[str]] = []
    joiners: list[re.Match[str]] = []
    for token in tokens:
        word = token.group()
        if word[0].isupper() and word not in ("I", "The") and not word.isupper():
            run += joiners + [token]
            joiners = []
        elif run and word.lower() in p.PLACE_JOINERS:
            joiners.append(token)  # "Rio de Janeiro": kept only if a capitalised word follows
        else:
            break
    if not run:
        return None, 0  # "I live in a van", "живу в общаге"
    return place_nominative(" ".join(t.group() for t in run)), run[-1].end()  # "в Великом Новгороде"


# ---- work ---------------------------------------------------------------------------------------------


def _jobs(sentence: str) -> Found:
    """Yield job_title, employer and school from "I work as/at …", "I'm a nurse", "работаю врачом", "я врач"."""
    yield from _jobs_en(sentence)
    yield from _jobs_ru(sentence)
    for trigger in p.SCHOOL_TRIGGERS:
        for match in matches(trigger, sentence):
            org = _organisation(words_after(sentence, match.end()))[0]
            if org:
                yield match.start(), "school", org


def _jobs_en(sentence: str) -> Found:
    """Yield job_title and employer (or school) from "I work as/at/for …", "I'm a nurse at …", "As a teacher, I …"."""
    for trigger in p.JOB_TRIGGERS_EN:
        for match in matches(trigger, sentence):
            rest, prep = words_after(sentence, match.end()), match.groupdict().get("prep")
            if prep in ("at", "for"):  # "I work at Google (as a designer)"
                org, used = _organisation(rest)
                if org:
                    yield match.start(), "employer", org
                boundary = p.CLAUSE_BOUNDARY.search(rest, used)
                clause = rest[used : boundary.start() if boundary else None]
                after = re.search(r"\bas\s+", clause, re.IGNORECASE)
                job = after and _job_phrase(clause[after.end() :], explicit=True)[0]
                if job:
                    yield match.start(), "job_title", job
                continue
            if feel.FAN_EN.match(sentence, match.start()):
                continue  # "I'm a Doctor Who fan"
            job, used = _job_phrase(rest, explicit=prep == "as")  # "I work as a nurse", "I'm a nurse"
            if job:
                yield match.start(), "job_title", job
                at = re.match(r"\s+(?:at|for)\s+", rest[used:], re.IGNORECASE)
                org = at and _organisation(rest[used + at.end() :])[0]
                if org:
                    yield match.start(), "school" if job.split()[-1].lower() == "student" else "employer", org
    opener = p.AS_JOB_EN.match(sentence)
    if opener:  # "As a teacher, I get summers off"
        job, used = _job_phrase(words_after(sentence, opener.end()), explicit=False)
        if job and re.match(r"\s*,\s*i\b", sentence[opener.end() + used :], re.IGNORECASE):
            yield opener.start(), "job_title", job


def _job_phrase(rest: str, explicit: bool) -> tuple[str | None, int]:
    """Return (job named at the start of `rest`, characters used); "I'm a …" needs a known job noun last."""
    article = re.match(r"\s*(?:(?:an?|the)\s+)?", rest, re.IGNORECASE)
    assert article is not None  # every part of the pattern is optional: it matches any text
    taken: list[re.Match[str]] = []
    for token in p.JOB_TOKEN.finditer(rest, article.end()):
        gap = rest[taken[-1].end() if taken else article.end() : token.start()]
        if gap.strip() or len(taken) == 4 or token.group().lower() in p.EN_JOB_STOPS:
            break
        taken.append(token)
    if not taken or rest[taken[-1].end() :].startswith(("'s", "’s", "-")):
        return None, 0  # "I'm a teacher's pet"
    lowered = [t.group().lower() for t in taken]
    if any(word in p.EN_JOB_BLOCKERS for word in lowered) or p.JOB_NOT_CURRENT.match(rest[taken[-1].end() :]):
        return None, 0  # "I'm a good cook", "a teacher by training"
    if lowered[-1] not in p.EN_JOBS and not (explicit and article.group().strip()):
        return None, 0  # "I'm a cat person"; but "I work as a <anything>" is explicit
    return " ".join(t.group() for t in taken), taken[-1].end()


def _organisation(rest: str) -> tuple[str | None, int]:
    """Return (organisation named at the start of `rest`, characters used): capitalised or quoted words."""
    match = p.ORGANISATION.match(rest)
    if not match:
        return None, 0
    written = match.group("name")
    name, lowered = written.strip("«»\"“” ").rstrip("."), written.strip("«»\"“” ").rstrip(".").lower()
    if lowered in p.RU_COMPANIES:
        return p.RU_COMPANIES[lowered], match.end()
    quoted = written[0] in "«\"“"
    if not quoted and (not name[:1].isupper() or name in p.NOT_EMPLOYERS or name.split()[0] in ("I", "I'm")):
        return None, 0  # "I work at home", "работаю в IT"
    if lowered in p.EN_PLACES or lowered in p.RU_PLACES:
        return None, 0  # "работаю в Москве" says where, not for whom
    return name, match.end()


def _jobs_ru(sentence: str) -> Found:
    """Yield job_title and employer from "работаю врачом в …" and "я врач", "я программист в Яндексе"."""
    for match in matches(p.JOB_TRIGGER_RU, sentence):  # "работаю старшим менеджером в Газпроме"
        rest = words_after(sentence, match.end())
        boundary = first_match(p.RU_CLAUSE_END, rest)
        clause = rest[: boundary.start() if boundary else None]
        tokens = clause.split()[:6]
        for index, token in enumerate(tokens):
            word = token.strip(",.!;:").lower()
            nominative = p.RU_JOBS.get(word)
            previous = tokens[index - 1].lower() if index else ""
            if nominative and word != nominative and word.endswith(("ом", "ем", "ой", "ей", "ью")):
                if previous not in p.RU_INSTRUMENTAL_PREPOSITIONS:  # "работаю с врачом": someone else is
                    yield match.start(), "job_title", p.ru_adjective(previous, nominative) + nominative
                break
        place = re.search(r"(?:^|\s)(?:в|во|на)\s+", clause, re.IGNORECASE)
        org = place and _organisation(clause[place.end() :])[0]
        if org:
            yield match.start(), "employer", org
    for match in matches(p.JOB_NOMINATIVE_RU, sentence):  # "я врач", "я учитель музыки", "я программист в Яндексе"
        job, rest = match.group("job").lower(), words_after(sentence, match.end())
        if match.group("of") and not p.RU_JOB_TAIL.match(rest):
            rest = words_after(sentence, match.end("job"))  # "учитель музыки" only when the clause ends after "музыки"
        elif match.group("of"):
            job += match.group("of").lower()
        known = any(part in p.RU_JOB_NOMINATIVES for part in job.split()[0].split("-"))
        if known and not p.JOB_NOT_CURRENT.match(rest) and p.RU_JOB_TAIL.match(rest):
            yield match.start(), "job_title", job
            place = re.match(r"\s+(?:в|во|на)\s+", rest, re.IGNORECASE)
            org = place and _organisation(rest[place.end() :])[0]
            if org:
                yield match.start(), "employer", org
            origin = re.match(r"\s+из\s+", rest, re.IGNORECASE)  # "я дизайнер из Казани"
            town, used = _place(rest[origin.end() :], known_only=True) if origin else (None, 0)
            if town and origin and not p.NEXT_IS_PAST_VERB.match(rest[origin.end() + used :]):
                yield match.start(), "hometown", town


def _statuses(sentence: str) -> Found:
    """Yield marital_status, diet and retirement: "I'm married", "я замужем", "I'm vegan", "я на пенсии"."""
    for key, trigger in STATUS_TRIGGERS.possible(sentence):
        for match in trigger.finditer(sentence):
            if p.STATUS_END.match(words_after(sentence, match.end())):
                yield match.start(), key, " ".join(match.group("status").split())


FINDERS = (_ages, _places, _jobs, _statuses, kin_and_pets, likes, states)
