"""Pure regex rules that find durable facts in what the user writes (never in the bot's replies).

Precision first: a wrong fact in the prompt is worse than a missing one. Every rule needs a first-person
statement ("I live in…", "живу в…", "my dog…", "у меня…"), and each sentence is judged on its own: a
match is refused when its sentence is a question, or when the words before it deny it, put it in the past,
wish or imagine it, report someone else's words or sit inside quotes. What the rules miss is left to the
LLM layer. The words themselves (cities, jobs, animals, declensions, triggers) live in rule_patterns.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from itertools import islice

from memory import rule_patterns as p
from memory.facts import Extraction, Fact, Relation, normalize_facts, slug

# slot -> (category, importance)
SLOTS = {
    "name": ("personal", 9), "age": ("personal", 7), "city": ("location", 7), "country": ("location", 6),
    "hometown": ("location", 6), "job_title": ("career", 7), "employer": ("career", 6), "school": ("career", 6),
    "pet": ("pets", 6), "family": ("family", 6), "likes": ("preferences", 5), "dislikes": ("preferences", 5),
    "state": ("state", 4),
}
Found = Iterator[tuple[int, str, str]]  # (where in the sentence the statement starts, key, value)
# A message states a handful of facts; past this many candidates it is a pasted wall of text, and judging
# every one of them would only cost time on the event loop.
MAX_CANDIDATES = 64


def extract_name(text: str) -> str | None:
    """Return the name the user says they go by in `text`, or None when it is not clearly stated."""
    for _, sentence in statements(text):
        for pattern, strict in p.NAME_PATTERNS:
            match = pattern.search(sentence)
            if match and _is_stated_name(sentence, match, strict):
                return p.capitalise(match.group("name"))
        introduced = _introduced_name(sentence)
        if introduced:
            return introduced
    return None


def extract_rule_facts(text: str, message_id: int | None = None) -> Extraction:
    """Return the facts the user clearly states about themselves in `text`, and the relations among them."""
    name = extract_name(text)
    found = [_fact("name", name)] if name else []
    for offset, sentence, position, key, value in islice(_candidates(text), MAX_CANDIDATES):
        if _is_claim(sentence, position, text[:offset]):
            found.append(_fact(key, value))
    facts = normalize_facts(replace(fact, source_message_id=message_id) for fact in found)
    return Extraction(facts, _relations(facts))


def _candidates(text: str) -> Iterator[tuple[int, str, int, str, str]]:
    """Yield (sentence offset, sentence, position in it, key, value) for every fact a rule matches in `text`."""
    for offset, sentence in statements(text):
        for finder in FINDERS:
            for position, key, value in finder(sentence):
                yield offset, sentence, position, key, value


# ---- sentences and guards -----------------------------------------------------------------------------


def statements(text: str, pattern: re.Pattern[str] = p.SENTENCE) -> Iterator[tuple[int, str]]:
    """Yield (offset, sentence) for each sentence of `text` that is no question ("…, and you?" is cut off).

    `pattern` matches one sentence (the event rule cuts them with its own).
    """
    for match in pattern.finditer(text):
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
    clause = _clause_before(sentence, position)
    if p.NEGATION.search(clause) or p.PAST.search(clause):
        return False
    if _first_end(p.HYPOTHETICAL, sentence) <= position or _first_end(p.REPORTED, sentence) <= position:
        return False  # a wish, a condition or someone else's words come earlier in the sentence
    if p.REPORTED_AFTER.search(_after(sentence, position)):
        return False
    return not _inside_quotes(earlier + sentence[:position])


@lru_cache(maxsize=256)
def _first_end(pattern: re.Pattern[str], sentence: str) -> int:
    """Return where the first match of `pattern` in `sentence` ends, or a position past its end.

    The first match ends before any other, so comparing with it tells whether one lies wholly before a
    position, without searching the text before each candidate again (quadratic on a pasted wall of text).
    """
    match = pattern.search(sentence)
    return match.end() if match else len(sentence) + 1


def _clause_before(sentence: str, position: int) -> str:
    """Return the words of the clause that lead up to `position` (looking back at most 200 characters)."""
    return p.CLAUSE_BOUNDARY.split(sentence[max(0, position - 200) : position])[-1]


def _clause_start(sentence: str, position: int) -> bool:
    """True when only fillers ("ну", "кстати", "сегодня") stand between the clause start and `position`."""
    return bool(p.CLAUSE_OPENERS.match(_clause_before(sentence, position).strip()))


def _after(sentence: str, position: int) -> str:
    """Return the words after `position` that a fact can span; a bounded window keeps long messages linear."""
    return sentence[position : position + 200]


def _inside_quotes(before: str) -> bool:
    """True when `before` leaves a quotation open, so what follows is someone's quoted words."""
    opened = sum(before.count(q) for q in "«“„")
    closed = sum(before.count(q) for q in "»”")
    return opened > closed or before.count('"') % 2 == 1


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


def _is_stated_name(sentence: str, match: re.Match[str], strict: bool) -> bool:
    """True when a "меня зовут …"/"call me …" match is the user's own name, not denied, imagined or quoted."""
    name = match.group("name")
    before = sentence[: match.start()]
    if name.lower() in p.NOT_NAMES or p.NAME_NEGATION.search(before) or p.HYPOTHETICAL.search(before):
        return False
    if _inside_quotes(before) or p.REPORTED.search(before):
        return False
    if strict:
        rest = _after(sentence, match.end()).strip(" \t.!,;)")
        return name[0].isupper() or not rest
    return True


def _introduced_name(sentence: str) -> str | None:
    """Return the name in a sentence that is only "Hi, I'm Anna!" / "Я Аня.", or None."""
    match = p.INTRODUCTION.match(sentence.strip())
    if not match:
        return None
    name, surname = match.group("name"), match.group("surname")
    if not name[0].isupper() or name.isupper() or (surname and not surname[0].isupper()):
        return None  # "I'm tired", "I'm OK"
    lowered = name.lower()
    if lowered in p.NOT_NAMES | p.NOT_INTRODUCED | p.NATIONALITIES or _is_known_word(lowered):
        return None
    return p.capitalise(name)


def _is_known_word(lowered: str) -> bool:
    """True for a word the tables know as a place, job, state, animal or relative: then it is no name."""
    tables = (p.EN_PLACES, p.RU_PLACES, p.RU_JOBS, p.RU_STATES, p.EN_RELATIVES, p.RU_RELATIVES, p.RU_SPECIES)
    return any(lowered in table for table in tables) or lowered in p.EN_JOBS | p.EN_STATES


# ---- age and places -----------------------------------------------------------------------------------


def _ages(sentence: str) -> Found:
    """Yield the age in "мне 25 лет", "I'm 25", "I'm 25 years old", "I just turned 30"."""
    for pattern in p.AGE_TRIGGERS:
        for match in pattern.finditer(sentence):
            rest = _after(sentence, match.end())
            tail_ok = not p.AGE_NOT_AFTER.match(rest) if match.group("unit") else p.AGE_CLAUSE_END.match(rest)
            hedged = p.AGE_NOT_BEFORE.search(_clause_before(sentence, match.start()))  # "скоро мне 30"
            if tail_ok and not hedged and 5 <= int(match.group("age")) <= 120:
                yield match.start(), "age", match.group("age")


def _places(sentence: str) -> Found:
    """Yield city/country where the user lives or moved to, and hometown where they come from."""
    for home, triggers in ((True, p.LIVE_TRIGGERS), (False, p.FROM_TRIGGERS)):
        for trigger in triggers:
            for match in trigger.finditer(sentence):
                needs_subject = "subj" in trigger.groupindex and not match.group("subj")
                if needs_subject and not _clause_start(sentence, match.start()):
                    continue  # "брат переехал в Москву": the past tense has no person, so it needs "я"
                rest = _after(sentence, match.end())
                place, used = _place(rest, known_only=not home and "из" in match.group().lower())
                if not place or p.NEXT_IS_PAST_VERB.match(rest[used:]):
                    continue  # "я из Москвы приехала": where they came from today
                after = rest[used:]
                if not home:
                    known = place.lower() in p.EN_PLACES or place.lower() in p.RU_PLACES
                    plain_from = trigger is p.FROM_TRIGGERS[0]  # "I'm from Google support"
                    if known or not plain_from or p.PLACE_CLAUSE_END.match(after):
                        yield match.start(), "hometown", place
                elif not p.TEMPORARY_STAY.match(after):
                    yield match.start(), "country" if place in p.COUNTRIES else "city", place
                    country, _ = _place(after.lstrip(" ,"), known_only=True)
                    if after.startswith(",") and country in p.COUNTRIES:
                        yield match.start(), "country", country  # "I live in Berlin, Germany"


def _place(rest: str, known_only: bool) -> tuple[str | None, int]:
    """Return (place named at the start of `rest`, characters used); known names come back in the nominative."""
    tokens: list[re.Match[str]] = []
    for token in p.PLACE_TOKEN.finditer(rest):
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
    return " ".join(t.group() for t in run), run[-1].end()


# ---- work ---------------------------------------------------------------------------------------------


def _jobs(sentence: str) -> Found:
    """Yield job_title, employer and school from "I work as/at …", "I'm a nurse", "работаю врачом", "я врач"."""
    yield from _jobs_en(sentence)
    yield from _jobs_ru(sentence)
    for trigger in p.SCHOOL_TRIGGERS:
        for match in trigger.finditer(sentence):
            org = _organisation(_after(sentence, match.end()))[0]
            if org:
                yield match.start(), "school", org


def _jobs_en(sentence: str) -> Found:
    """Yield job_title and employer (or school) from "I work as/at/for …", "I'm a nurse at …", "As a teacher, I …"."""
    for trigger in p.JOB_TRIGGERS_EN:
        for match in trigger.finditer(sentence):
            rest, prep = _after(sentence, match.end()), match.groupdict().get("prep")
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
            if p.FAN_EN.match(sentence, match.start()):
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
        job, used = _job_phrase(_after(sentence, opener.end()), explicit=False)
        if job and re.match(r"\s*,\s*i\b", sentence[opener.end() + used :], re.IGNORECASE):
            yield opener.start(), "job_title", job


def _job_phrase(rest: str, explicit: bool) -> tuple[str | None, int]:
    """Return (job named at the start of `rest`, characters used); "I'm a …" needs a known job noun last."""
    article = re.match(r"\s*(?:(?:an?|the)\s+)?", rest, re.IGNORECASE)
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
    for match in p.JOB_TRIGGER_RU.finditer(sentence):  # "работаю старшим менеджером в Газпроме"
        rest = _after(sentence, match.end())
        boundary = p.RU_CLAUSE_END.search(rest)
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
    for match in p.JOB_NOMINATIVE_RU.finditer(sentence):  # "я врач", "я учитель музыки", "я программист в Яндексе"
        job, rest = match.group("job").lower(), _after(sentence, match.end())
        if match.group("of") and not p.RU_JOB_TAIL.match(rest):
            rest = _after(sentence, match.end("job"))  # "учитель музыки" only when the clause ends after "музыки"
        elif match.group("of"):
            job += match.group("of").lower()
        known = any(part in p.RU_JOB_NOMINATIVES for part in job.split()[0].split("-"))
        if known and not p.JOB_NOT_CURRENT.match(rest) and p.RU_JOB_TAIL.match(rest):
            yield match.start(), "job_title", job
            place = re.match(r"\s+(?:в|во|на)\s+", rest, re.IGNORECASE)
            org = place and _organisation(rest[place.end() :])[0]
            if org:
                yield match.start(), "employer", org


# ---- pets and family ----------------------------------------------------------------------------------


def _kin_and_pets(sentence: str) -> Found:
    """Yield pets and relatives from "my dog Rex", "I have two kids", "у меня есть сестра Оля", "моя жена"."""
    if p.DEATH.search(sentence) or p.IDIOMS.search(sentence):
        return  # "my dog died", "my partner in crime"
    for match in p.INVERTED_HAVE_RU.finditer(sentence):  # "Муж у меня врач"
        head = match.group("head")
        kind, canonical = p.kind_of(head)
        if kind:
            yield match.start("head"), f"{kind}:{canonical}", p.ru_nominative(head) or head
    triggers = ((p.POSSESSIVE_EN, False), (p.HAVE_EN, True), (p.POSSESSIVE_RU, False), (p.HAVE_RU, True),
                (p.WITH_RU, True))
    for trigger, listing in triggers:
        for match in trigger.finditer(sentence):
            position = match.end()
            while item := _kin_or_pet(sentence, position, needs_count=trigger is p.HAVE_EN):
                if p.ADDRESSEE.search(_clause_before(sentence, match.start())):
                    break  # "ты моя девушка": the bot is being cast, the user has no such relative
                key, value, position = item
                yield match.start(), key, value
                joiner = p.LIST_JOINER.match(sentence, position) if listing else None
                if not joiner:
                    break  # "у меня кошка Мурка и собака Рекс" goes on; "my dog and …" is another trigger
                position = joiner.end()


def _kin_or_pet(sentence: str, position: int, needs_count: bool) -> tuple[str, str, int] | None:
    """Return (key, value, end) for the animal or relative named at `position`, or None."""
    item = p.KIN_ITEM.match(sentence, position)
    if not item:
        return None
    count, modifier, head = item.group("count"), item.group("modifier"), item.group("head")
    kind, canonical = p.kind_of(head)
    if not kind or (modifier and modifier.lower() not in p.MODIFIERS[kind]):
        return None
    after = _after(sentence, item.end())
    next_word = re.match(r"\s*([\w'-]+)", after)
    if (next_word and next_word.group(1).lower() in p.COMPOUND_HEADS) or p.RU_NEGATED_AFTER.match(after):
        return None  # "my cat videos", "у меня собаки нет"
    if needs_count and not count and head.lower() in p.EN_SINGULAR:
        return None  # "I have rabbit stew": after "I have" a singular animal needs "a"
    counted = bool(count) and count.lower() not in ("a", "an", "one")
    nominative = p.ru_nominative(head)
    name, used = _kin_name(after, nominative=head.lower() in p.NOMINATIVES)
    if name:
        value = f"{modifier + ' ' if modifier and not nominative else ''}{nominative or head} {name}"
        key = f"pet:{slug(name)}" if kind == "pet" else f"family:{slug(canonical + ' ' + name)}"
        return key, value, item.end() + used
    words = (count, modifier, head) if counted else (modifier, nominative or head)
    return f"{kind}:{canonical}", " ".join(w for w in words if w), item.end()


def _kin_name(after: str, nominative: bool) -> tuple[str | None, int]:
    """Return (the name given right after an animal or relative, characters used), or (None, 0)."""
    linked = p.NAME_LINKS.match(after)  # "named Luna", "'s name is Rex", ", её зовут Мурка"
    if linked and linked.group("name").lower() not in p.NOT_NAMES:
        return p.capitalise(linked.group("name")), linked.end()
    direct = p.DIRECT_NAME.match(after)  # "my dog Rex", "кот Барсик" (not "кота Барсика")
    if direct and nominative:
        name = direct.group("name")
        ends = not direct.group("comma") or re.match(r"\s*(?:[,.!;)]|$)", after[direct.end() :])
        if name[0].isupper() and name.lower() not in p.NOT_NAMES and not _is_known_word(name.lower()) and ends:
            return p.capitalise(name), direct.end()
    return None, 0


# ---- likes and states ---------------------------------------------------------------------------------


def _likes(sentence: str) -> Found:
    """Yield likes and dislikes: "I love hiking and jazz", "обожаю джаз", "I can't stand mornings"."""
    for match in p.FAN_EN.finditer(sentence):  # "I'm a huge Arsenal fan"
        thing = match.group("thing")
        if not any(word.lower() in p.OBJECT_REJECT_START | p.FAN_NOT_THINGS for word in thing.split()):
            yield match.start(), f"likes:{slug(thing)}", thing
    for slot, triggers in (("dislikes", p.DISLIKE_TRIGGERS), ("likes", p.LIKE_TRIGGERS)):
        for trigger in triggers:
            for match in trigger.finditer(sentence):
                for thing in _things(_after(sentence, match.end())):
                    yield match.start(), f"{slot}:{slug(thing)}", thing


def _things(rest: str) -> list[str]:
    """Return the things listed at the start of `rest` ("hiking, reading and jazz"), cut at the clause's end."""
    end = p.OBJECT_END.search(rest)
    phrase = rest[: end.start()] if end else rest
    phrase = p.FIXED_PHRASES.sub(lambda m: m.group().replace(" ", "\0"), phrase)  # "rock and roll" is one thing
    if "," in phrase and not p.LIST_END.search(phrase):
        phrase = phrase.split(",")[0]  # "coffee, it wakes me up": after the comma comes another clause
    things: list[str] = []
    infinitive = prepositional = False
    for index, part in enumerate(p.OBJECT_SPLIT.split(phrase)):
        part = p.OBJECT_TRAILING.sub("", part.replace("\0", " ").strip())
        if index == 0 and re.match(r"to\s+", part, re.IGNORECASE):
            infinitive, part = True, part[3:].strip()
        if infinitive:  # "I love to cook and sing" -> "cooking", "singing", as "I love cooking" says it
            verb, _, tail = part.partition(" ")
            part = f"{p.gerund(verb)} {tail}".strip() if verb and verb.lower() not in p.NOT_A_LIKING else ""
        words = part.split()
        if not words or len(words) > 6:
            break
        first = words[0].lower()
        if first in p.OBJECT_REJECT_START or first in p.NOT_A_LIKING or first in p.RU_RELATIVES:
            break  # "I love how…", "люблю маму"
        if any(word.lower().strip("'’") in p.ABOUT_THE_BOT for word in words):
            break  # "I like talking to you"
        if index and (first in p.EN_VERB_STARTS or first in p.RU_VERB_STARTS or first.endswith(p.RU_VERB_ENDINGS)):
            break  # "I love jazz and play guitar": a new clause, not a second thing
        if index and prepositional and not first.endswith(p.ACTIVITY_ENDINGS):
            break  # "cooking for my family and friends" is one thing; "гулять по вечерам и читать" two
        things.append(" ".join(words))
        prepositional = any(word.lower() in p.OBJECT_PREPOSITIONS for word in words[1:])
    return things


def _states(sentence: str) -> Found:
    """Yield current moods and conditions: "I'm so tired", "я устала", "мне грустно", "у меня температура"."""
    if p.HABITUAL.search(sentence):
        return  # "летом мне плохо": how the user usually is, not how they are now
    for trigger in p.STATE_TRIGGERS_EN:
        for match in trigger.finditer(sentence):
            if not p.STATE_NOT_AFTER.match(_after(sentence, match.end())):  # not "tired of", "happy to help"
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state
    for match in p.STATE_TRIGGER_RU.finditer(sentence):
        state = " ".join(match.group("state").lower().split())
        if state in p.RU_STATES_NEED_SUBJECT and not match.group("subj") and not _clause_start(sentence, match.start()):
            continue  # "она устала"
        if not p.STATE_NOT_AFTER.match(_after(sentence, match.end())):  # not "устала от тебя"
            yield match.start(), f"state:{slug(p.RU_STATES[state])}", state
    for trigger in (p.FEELING_TRIGGER_RU, p.AILMENT_TRIGGER_RU, p.ACHE_TRIGGER_RU):
        for match in trigger.finditer(sentence):
            if trigger is p.ACHE_TRIGGER_RU and not _clause_start(sentence, match.start()):
                continue  # "у мамы болит голова"
            if not p.FEELING_NOT_AFTER.match(_after(sentence, match.end())):  # not "мне плохо видно"
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state


FINDERS = (_ages, _places, _jobs, _kin_and_pets, _likes, _states)
