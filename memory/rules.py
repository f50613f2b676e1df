"""Pure regex rules that find durable facts in what the user writes (never in the bot's replies).

Precision first: a wrong fact in the prompt is worse than a missing one, so every rule needs a first-person
statement and is refused when, in its sentence, the words before it ask, deny, wish, remember the past,
report someone else's words or sit inside quotes. What the rules miss is left to the LLM layer.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterator

from memory import rule_patterns as p
from memory.facts import Extraction, Fact, Relation, normalize_facts, slug

WORD = p.WORD
# slot -> (category, importance)
SLOTS = {
    "name": ("personal", 9), "age": ("personal", 7), "city": ("location", 7), "country": ("location", 6),
    "hometown": ("location", 6), "job_title": ("career", 7), "employer": ("career", 6), "school": ("career", 6),
    "pet": ("pets", 6), "family": ("family", 6), "likes": ("preferences", 5), "dislikes": ("preferences", 5),
    "state": ("state", 4),
}
Found = Iterator[tuple[int, str, str]]  # (where in the sentence the statement starts, key, value)

# ---- name ---------------------------------------------------------------------------------------------

# (pattern, strict): a strict pattern ("call me ...") is ambiguous, so its name must be
# capitalised or end the sentence ("call me back later" is not a name).
NAME_PATTERNS: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(rf"\bменя\s+зовут\s+(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\bмо[её]\s+имя\s*[-—:]?\s*(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\b(?:зови|зовите|называй|называйте)\s+меня\s+(?P<name>{WORD})", re.IGNORECASE), True),
    (re.compile(rf"\bmy\s+name\s*(?:is|'s|’s)\s+(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\bcall\s+me\s+(?P<name>{WORD})", re.IGNORECASE), True),
]
# "Hi, I'm Anna!" / "Я Аня.": a whole sentence that is only a greeting and a capitalised name.
INTRODUCTION = re.compile(
    r"^\W*(?:(?:hi|hello|hey|hiya|привет|приветик|здравствуй(?:те)?|добрый\s+(?:день|вечер)|доброе\s+утро)"
    rf"(?:\s+there)?\W+)?(?:i['’]?m|i\s+am|я)\s+(?P<name>{WORD})(?:\s+(?P<surname>{WORD}))?\s*(?:,.*|\W*)$",
    re.IGNORECASE,
)
NOT_NAMES = frozenset(
    """
    not no never a an the later back tomorrow today tonight now please maybe when if soon again
    anytime sometime anything whatever nothing it what that this at on in by any some just also
    really actually too crazy silly names name i
    не ни нет никак потом позже завтра сегодня сейчас пожалуйста как когда если так просто тоже
    уже всё все это что кто вот ещё еще иначе никто зовут
    """.split()
)
# Capitalised words that follow "I'm"/"я" without being a name ("I'm Fine.", "Я Дома").
NOT_INTRODUCED = p.words(
    """
    fine ok okay good great well alright home here there done ready sorry sure new free busy alone single married
    divorced pregnant vegan vegetarian retired unemployed alive lost serious kidding joking glad afraid back still
    only always already listening waiting working coming leaving going trying thinking bored hungry full late early
    awake asleep russian english american british german french ukrainian italian spanish chinese jewish catholic
    christian muslim atheist gay straight bi trans male female old young cold hot confused curious dead in out
    тоже дома здесь тут там рядом согласна согласен готов готова рад рада один одна сам сама против за снова опять
    ок норм хорошо плохо занят занята свободен свободна жив жива болен больна москвич москвичка русский русская
    """
)
NEGATIONS = re.compile(r"(?:^|\W)(?:не|никогда|don'?t|do\s+not|never|stop|перестань|хватит)\s*$", re.IGNORECASE)


def extract_name(text: str) -> str | None:
    """Return the name the user says they go by in `text`, or None when it is not clearly stated."""
    for _, sentence in _statements(text):
        for pattern, strict in NAME_PATTERNS:
            match = pattern.search(sentence)
            if match and _is_stated_name(sentence, match, strict):
                return _capitalise(match.group("name"))
        introduced = _introduced_name(sentence)
        if introduced:
            return introduced
    return None


def _is_stated_name(sentence: str, match: re.Match[str], strict: bool) -> bool:
    name = match.group("name")
    before = sentence[: match.start()]
    if name.lower() in NOT_NAMES or NEGATIONS.search(before) or p.HYPOTHETICAL.search(before):
        return False
    if _inside_quotes(before) or p.REPORTED.search(before):
        return False
    if strict:
        rest = sentence[match.end() :].strip(" \t.!,;)")
        return name[0].isupper() or not rest
    return True


def _introduced_name(sentence: str) -> str | None:
    match = INTRODUCTION.match(sentence.strip())
    if not match:
        return None
    name, surname = match.group("name"), match.group("surname")
    lowered = name.lower()
    if not name[0].isupper() or (surname and not surname[0].isupper()):
        return None
    if lowered in NOT_NAMES or lowered in NOT_INTRODUCED or _is_known_word(lowered):
        return None
    return _capitalise(name)


def _is_known_word(lowered: str) -> bool:
    """True for a word the tables know as a place, job, state or relative: then it is no name."""
    tables = (p.EN_PLACES, p.RU_PLACES, p.RU_JOBS, p.RU_STATES, p.EN_RELATIVES, p.RU_RELATIVES, p.RU_SPECIES)
    return any(lowered in table for table in tables) or lowered in p.EN_JOBS or lowered in p.EN_STATES.split()


# ---- all facts ----------------------------------------------------------------------------------------


def extract_rule_facts(text: str, message_id: int | None = None) -> Extraction:
    """Return the facts the user clearly states about themselves in `text`, and the relations among them."""
    found: list[Fact] = []
    name = extract_name(text)
    if name:
        found.append(_fact("name", name))
    for offset, sentence in _statements(text):
        for finder in FINDERS:
            for position, key, value in finder(sentence):
                if _is_claim(sentence, position, text[:offset]):
                    found.append(_fact(key, value))
    facts = normalize_facts(replace(fact, source_message_id=message_id) for fact in found)
    return Extraction(facts, _relations(facts))


def _fact(key: str, value: str) -> Fact:
    category, importance = SLOTS[key.split(":")[0]]
    return Fact(category=category, key=key, value=value, importance=importance, source="rule")


def _relations(facts: list[Fact]) -> list[Relation]:
    keys = {fact.key for fact in facts}
    relations = []
    if {"job_title", "employer"} <= keys:
        relations.append(Relation("job_title", "employer", "works_at"))
    if {"city", "country"} <= keys:
        relations.append(Relation("city", "country", "located_in"))
    return relations


def _statements(text: str) -> Iterator[tuple[int, str]]:
    """Yield (offset, sentence) for each sentence of `text` that is no question ("…, and you?" is cut off)."""
    for match in p.SENTENCE.finditer(text):
        sentence = match.group()
        if "?" in sentence:
            tagged = p.TAG_QUESTION.match(sentence.strip())
            if not tagged:
                continue
            sentence = tagged.group("body")
        if not p.QUESTION_START.search(sentence) and not p.QUESTION_PARTICLE.search(sentence):
            yield match.start(), sentence


def _is_claim(sentence: str, position: int, earlier: str) -> bool:
    """True when the words at `position` are a plain statement: not denied, past, wished, reported or quoted."""
    before = sentence[:position]
    clause = p.CLAUSE_BOUNDARY.split(before)[-1]
    if p.NEGATION.search(clause) or p.PAST.search(clause):
        return False
    if p.HYPOTHETICAL.search(before) or p.REPORTED.search(before) or p.REPORTED_AFTER.search(sentence[position:]):
        return False
    return not _inside_quotes(earlier + before)


def _clause_start(sentence: str, position: int) -> bool:
    """True when only fillers ("ну", "кстати") stand between the clause start and `position`."""
    return bool(p.CLAUSE_OPENERS.match(p.CLAUSE_BOUNDARY.split(sentence[:position])[-1].strip()))


def _inside_quotes(before: str) -> bool:
    opened = sum(before.count(q) for q in "«“„")
    closed = sum(before.count(q) for q in "»”")
    return opened > closed or before.count('"') % 2 == 1


def _capitalise(name: str) -> str:
    return "-".join(part[:1].upper() + part[1:] for part in name.split("-"))


# ---- age and places -----------------------------------------------------------------------------------


def _ages(sentence: str) -> Found:
    """Yield the age in "мне 25 лет", "I'm 25", "I'm 25 years old", "I just turned 30"."""
    for pattern in p.AGE_TRIGGERS:
        for match in pattern.finditer(sentence):
            rest = sentence[match.end() :]
            unit = match.groupdict().get("unit")
            tail_ok = not p.AGE_NOT_AFTER.match(rest) if unit else p.AGE_CLAUSE_END.match(rest)
            if tail_ok and 5 <= int(match.group("age")) <= 120:
                yield match.start(), "age", match.group("age")


def _places(sentence: str) -> Found:
    """Yield city/country where the user lives or moved to, and hometown where they come from."""
    for home, triggers in ((True, p.LIVE_TRIGGERS), (False, p.FROM_TRIGGERS)):
        for trigger in triggers:
            for match in trigger.finditer(sentence):
                if "subj" in trigger.groupindex and not match.group("subj") and not _clause_start(sentence, match.start()):
                    continue  # "брат переехал в Москву": the past tense has no person, so it needs "я"
                rest = sentence[match.end() :]
                place, used = _place(rest, russian_from=not home and "из" in match.group().lower())
                if not place or p.NEXT_IS_PAST_VERB.match(rest[used:]):
                    continue
                if not home:
                    yield match.start(), "hometown", place
                elif not p.TEMPORARY_STAY.match(rest[used:]):
                    yield match.start(), "country" if place in p.COUNTRIES else "city", place
                    country, _ = _place(rest[used:].lstrip(" ,"), russian_from=False)
                    if rest[used:].startswith(",") and country in p.COUNTRIES:
                        yield match.start(), "country", country  # "I live in Berlin, Germany"


def _place(rest: str, russian_from: bool) -> tuple[str | None, int]:
    """Return (place named at the start of `rest`, characters used); known names come back in the nominative."""
    tokens = list(p.PLACE_TOKEN.finditer(rest))
    tokens = [t for i, t in enumerate(tokens[:4]) if i == 0 or not rest[tokens[i - 1].end() : t.start()].strip()]
    for count in range(len(tokens), 0, -1):
        phrase = " ".join(t.group() for t in tokens[:count]).lower()
        known = p.EN_PLACES.get(phrase) or p.RU_PLACES.get(phrase)
        if known:
            return known, tokens[count - 1].end()
    if russian_from or not tokens:
        return None, 0  # "я из IT", "я из дома": only known places count after "из"
    run = []
    for token in tokens:
        word = token.group()
        if word[0].isupper() and word not in ("I", "The") and not word.isupper():
            run.append(token)
        elif not (run and word.lower() in p.PLACE_JOINERS):
            break
    while run and run[-1].group().lower() in p.PLACE_JOINERS:
        run.pop()
    if not run:
        return None, 0
    return " ".join(t.group() for t in run), run[-1].end()


# ---- work ---------------------------------------------------------------------------------------------


def _jobs(sentence: str) -> Found:
    """Yield job_title, employer and school from "I work as/at …", "I'm a nurse", "работаю врачом", "я врач"."""
    for trigger in p.JOB_TRIGGERS_EN:
        for match in trigger.finditer(sentence):
            rest, prep = sentence[match.end() :], match.groupdict().get("prep")
            if prep in ("at", "for"):
                org, used = _organisation(rest)
                if org:
                    yield match.start(), "employer", org
                clause = p.CLAUSE_BOUNDARY.split(rest[used:])[0]  # "I work for a startup as a designer"
                after = re.search(r"\bas\s+", clause, re.IGNORECASE)
                job = after and _job_phrase(clause[after.end() :], explicit=True)[0]
                if job:
                    yield match.start(), "job_title", job
                continue
            job, used = _job_phrase(rest, explicit=prep == "as")
            if job:
                yield match.start(), "job_title", job
                at = re.match(r"\s+(?:at|for)\s+", rest[used:], re.IGNORECASE)
                org = at and _organisation(rest[used + at.end() :])[0]
                if org:
                    yield match.start(), "school" if job.split()[-1].lower() == "student" else "employer", org
    yield from _jobs_ru(sentence)
    for trigger in p.SCHOOL_TRIGGERS:
        for match in trigger.finditer(sentence):
            org = _organisation(sentence[match.end() :])[0]
            if org:
                yield match.start(), "school", org


def _job_phrase(rest: str, explicit: bool) -> tuple[str | None, int]:
    """Return (job named at the start of `rest`, characters used), or None when it is no job noun."""
    article = re.match(r"\s*(?:(?:an?|the)\s+)?", rest, re.IGNORECASE)
    taken = []
    for token in p.JOB_TOKEN.finditer(rest, article.end()):
        if rest[(taken[-1].end() if taken else article.end()) : token.start()].strip() or len(taken) == 4:
            break
        if token.group().lower() in p.EN_JOB_STOPS:
            break
        taken.append(token)
    if not taken or rest[taken[-1].end() :].startswith(("'s", "’s", "-")):
        return None, 0
    lowered = [t.group().lower() for t in taken]
    if any(word in p.EN_JOB_BLOCKERS for word in lowered) or p.JOB_NOT_CURRENT.match(rest[taken[-1].end() :]):
        return None, 0
    has_article = article.group().strip() != ""
    if lowered[-1] not in p.EN_JOBS and not (explicit and has_article):
        return None, 0
    return " ".join(t.group() for t in taken), taken[-1].end()


def _organisation(rest: str) -> tuple[str | None, int]:
    """Return (organisation named at the start of `rest`, characters used): capitalised or quoted words."""
    match = p.ORGANISATION.match(rest)
    if not match:
        return None, 0
    name = match.group("name").strip("«»\"“” ")
    lowered = name.lower()
    if lowered in p.RU_COMPANIES:
        return p.RU_COMPANIES[lowered], match.end()
    quoted = match.group("name")[0] in "«\"“"
    if not quoted and (not name[0].isupper() or name in p.NOT_EMPLOYERS or name.split()[0] in ("I", "I'm")):
        return None, 0
    if lowered in p.EN_PLACES or lowered in p.RU_PLACES:
        return None, 0  # "работаю в Москве" says where, not for whom
    return name, match.end()


def _jobs_ru(sentence: str) -> Found:
    for match in p.JOB_TRIGGER_RU.finditer(sentence):
        clause = p.RU_CLAUSE_END.split(sentence[match.end() :])[0]
        tokens = clause.split()[:6]
        for index, token in enumerate(tokens):
            word = token.strip(",.!;:").lower()
            nominative = p.RU_JOBS.get(word)
            previous = tokens[index - 1].lower() if index else ""
            if nominative and word != nominative and word.endswith(("ом", "ем", "ой", "ей", "ью")):
                if previous in p.RU_INSTRUMENTAL_PREPOSITIONS:
                    break  # "работаю с врачом": someone else is the doctor
                yield match.start(), "job_title", _ru_adjective(previous, nominative) + nominative
                break
        place = re.search(r"(?:^|\s)(?:в|во|на)\s+", clause, re.IGNORECASE)
        org = place and _organisation(clause[place.end() :])[0]
        if org:
            yield match.start(), "employer", org
    for match in p.JOB_NOMINATIVE_RU.finditer(sentence):
        job = match.group("job").lower()
        rest = sentence[match.end() :]
        if any(part in p.RU_JOB_NOMINATIVES for part in job.split("-")) and not p.JOB_NOT_CURRENT.match(rest):
            if p.RU_JOB_TAIL.match(rest):
                yield match.start(), "job_title", job
                place = re.match(r"\s+(?:в|во|на)\s+", rest, re.IGNORECASE)  # "я программист в Яндексе"
                org = place and _organisation(rest[place.end() :])[0]
                if org:
                    yield match.start(), "employer", org


def _ru_adjective(word: str, noun: str) -> str:
    """Return "старший " for "старшим" before a job noun, or "" when `word` is no adjective we can restore."""
    for ending, nominative in p.RU_JOB_ADJECTIVE_ENDINGS.items():
        feminine = noun.endswith("а")
        if len(word) > 4 and word.endswith(ending) and (ending in ("ой", "ей")) == feminine:
            return word[: -len(ending)] + nominative + " "
    return ""


# ---- pets and family ----------------------------------------------------------------------------------


def _kin_and_pets(sentence: str) -> Found:
    """Yield pets and relatives from "my dog Rex", "I have two kids", "у меня есть сестра Оля", "моя жена"."""
    if p.DEATH.search(sentence) or p.IDIOMS.search(sentence):
        return  # "my dog died", "my partner in crime"
    triggers = ((p.POSSESSIVE_EN, False), (p.HAVE_EN, True), (p.POSSESSIVE_RU, False), (p.HAVE_RU, True),
                (p.WITH_RU, True))
    for trigger, listing in triggers:
        for match in trigger.finditer(sentence):
            position = match.end()
            while True:
                item = _kin_or_pet(sentence, position, needs_count=listing and trigger is p.HAVE_EN)
                if not item:
                    break
                key, value, position = item
                yield match.start(), key, value
                joiner = p.LIST_JOINER.match(sentence, position) if listing else None
                if not joiner:
                    break
                position = joiner.end()


def _kin_or_pet(sentence: str, position: int, needs_count: bool) -> tuple[str, str, int] | None:
    """Return (key, value, end) for the animal or relative named at `position`, or None."""
    item = p.KIN_ITEM.match(sentence, position)
    if not item:
        return None
    count, modifier, head = item.group("count"), item.group("modifier"), item.group("head")
    lowered = head.lower()
    kind, canonical = _kind(lowered)
    if not kind or (modifier and modifier.lower() not in p.MODIFIERS[kind]):
        return None
    after = sentence[item.end() :]
    next_word = re.match(r"\s*([\w'-]+)", after)
    if (next_word and next_word.group(1).lower() in p.COMPOUND_HEADS) or p.RU_NEGATED_AFTER.match(after):
        return None  # "my cat videos", "у меня собаки нет"
    counted = count and count.lower() not in ("a", "an", "one")
    if needs_count and not count and lowered in p.EN_SINGULAR:
        return None  # "I have rabbit stew": a singular animal needs "a"
    name, end = _kin_name(after, nominative=lowered in p.NOMINATIVES)
    written = " ".join(w for w in (count if counted else None, modifier, head) if w)
    if name:
        base = p.RU_SPECIES_NOMINATIVE.get(lowered) or p.RU_RELATIVE_NOMINATIVE.get(lowered) or written
        value = f"{base} {name}" if base != written or not modifier else f"{written} {name}"
        key = f"pet:{slug(name)}" if kind == "pet" else f"family:{slug(canonical + ' ' + name)}"
        return key, value, item.end() + end
    if not counted:
        written = " ".join(w for w in (modifier, p.RU_SPECIES_NOMINATIVE.get(lowered)
                                       or p.RU_RELATIVE_NOMINATIVE.get(lowered) or head) if w)
    return f"{kind}:{canonical}", written, item.end()


def _kind(lowered: str) -> tuple[str | None, str]:
    for kind, table in (("pet", p.EN_SPECIES), ("pet", p.RU_SPECIES), ("family", p.EN_RELATIVES),
                        ("family", p.RU_RELATIVES)):
        if lowered in table:
            return kind, table[lowered]
    return None, ""


def _kin_name(after: str, nominative: bool) -> tuple[str | None, int]:
    """Return (the name given right after an animal or relative, characters used), or (None, 0)."""
    linked = p.NAME_LINKS.match(after)
    if linked and linked.group("name").lower() not in NOT_NAMES:
        return _capitalise(linked.group("name")), linked.end()
    direct = p.DIRECT_NAME.match(after)
    if direct and nominative:
        name = direct.group("name")
        lowered = name.lower()
        comma_ok = not direct.group("comma") or re.match(r"\s*(?:[,.!;)]|$)", after[direct.end() :])
        if name[0].isupper() and lowered not in NOT_NAMES and not _is_known_word(lowered) and comma_ok:
            return _capitalise(name), direct.end()
    return None, 0


# ---- likes and states ---------------------------------------------------------------------------------


def _likes(sentence: str) -> Found:
    """Yield likes and dislikes: "I love hiking and jazz", "обожаю джаз", "I can't stand mornings"."""
    for slot, triggers in (("dislikes", p.DISLIKE_TRIGGERS), ("likes", p.LIKE_TRIGGERS)):
        for trigger in triggers:
            for match in trigger.finditer(sentence):
                for thing in _things(sentence[match.end() :]):
                    yield match.start(), f"{slot}:{slug(thing)}", thing


def _things(rest: str) -> list[str]:
    """Return the things listed at the start of `rest` ("hiking, reading and jazz"), cut at the clause's end."""
    end = p.OBJECT_END.search(rest)
    phrase = rest[: end.start()] if end else rest
    for fixed in p.FIXED_PHRASES:  # "rock and roll" is one thing
        phrase = re.sub(re.escape(fixed), lambda m: m.group().replace(" ", "\0"), phrase, flags=re.IGNORECASE)
    if "," in phrase and not p.LIST_END.search(phrase):
        phrase = phrase.split(",")[0]  # "coffee, it wakes me up": after the comma comes another clause
    things = []
    for index, part in enumerate(p.OBJECT_SPLIT.split(phrase)):
        part = p.OBJECT_TRAILING.sub("", part.replace("\0", " ").strip())
        if index == 0 and re.match(r"to\s+", part, re.IGNORECASE):
            part = part[3:].strip()  # "I love to cook" -> "cook"
        words = part.split()
        if not words or len(words) > 6:
            break
        first = words[0].lower()
        if first in p.OBJECT_REJECT_START or first in p.NOT_A_LIKING or first in p.RU_RELATIVES:
            break
        if index and (first in p.EN_VERB_STARTS or first in p.RU_VERB_STARTS or first.endswith(p.RU_VERB_ENDINGS)):
            break  # "I love jazz and play guitar": a new clause, not a second thing
        things.append(" ".join(words))
    return things


def _states(sentence: str) -> Found:
    """Yield current moods and conditions: "I'm so tired", "я устала", "мне грустно", "у меня температура"."""
    if p.HABITUAL.search(sentence):
        return  # "летом мне плохо": how the user usually is, not how they are now
    for trigger in p.STATE_TRIGGERS_EN:
        for match in trigger.finditer(sentence):
            if not p.STATE_NOT_AFTER.match(sentence[match.end() :]):
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state
    for match in p.STATE_TRIGGER_RU.finditer(sentence):
        state = " ".join(match.group("state").lower().split())
        if state in p.RU_STATES_NEED_SUBJECT and not match.group("subj") and not _clause_start(sentence, match.start()):
            continue  # "она устала"
        yield match.start(), f"state:{slug(p.RU_STATES[state])}", state
    for trigger in (p.FEELING_TRIGGER_RU, p.AILMENT_TRIGGER_RU, p.ACHE_TRIGGER_RU):
        for match in trigger.finditer(sentence):
            if trigger is p.ACHE_TRIGGER_RU and not _clause_start(sentence, match.start()):
                continue  # "у мамы болит голова"
            if not p.FEELING_NOT_AFTER.match(sentence[match.end() :]):
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state


FINDERS = (_ages, _places, _jobs, _kin_and_pets, _likes, _states)
