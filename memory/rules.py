"""Pure regex rules that find durable facts in what the user writes (never in the bot's replies).

Precision first: a wrong fact in the prompt is worse than a missing one. Every rule needs a first-person
statement ("I live in…", "живу в…", "my dog…", "у меня…"), and each sentence is judged on its own: a
match is refused when its sentence is a question, or when the words before it deny it, put it in the past,
wish or imagine it, report someone else's words or sit inside quotes. What the rules miss is left to the
LLM layer. The words themselves (cities, jobs, animals, declensions, triggers) live in rule_patterns.py, and
those of the name slot in rule_names.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from itertools import islice

from memory import rule_names as names
from memory import rule_patterns as p
from memory.facts import Extraction, Fact, Relation, normalize_facts, slug

# slot -> (category, importance)
SLOTS = {
    "name": ("personal", 9), "age": ("personal", 7), "city": ("location", 7), "country": ("location", 6),
    "hometown": ("location", 6), "job_title": ("career", 7), "employer": ("career", 6), "school": ("career", 6),
    "pet": ("pets", 6), "family": ("family", 6), "likes": ("preferences", 5), "dislikes": ("preferences", 5),
    "state": ("state", 4), "marital_status": ("personal", 7), "diet": ("preferences", 6),
}
Found = Iterator[tuple[int, str, str]]  # (where in the sentence the statement starts, key, value)
# A message states a handful of facts; past this many candidates it is a pasted wall of text, and judging
# every one of them would only cost time on the event loop.
MAX_CANDIDATES = 64


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
        for position, key, value in _unowned_kin(sentence):
            if not p.OTHER_OWNER_RU.search(text, 0, offset + position):  # "У Маши двое детей. Есть дочка Соня."
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


def _is_own_name(sentence: str, position: int) -> bool:
    """True when the name at `position` is the user's plain word: not denied, past, imagined, reported or quoted."""
    before = sentence[:position]
    clause = _clause_before(sentence, position)
    if names.NAME_NEGATION.search(before) or p.NEGATION.search(clause) or p.PAST.search(clause):
        return False  # "не называй меня Сашей", "Mom used to call me Bunny"
    if p.HYPOTHETICAL.search(names.POLITE.sub("", before)):
        return False  # "если бы меня звали Оля"; but "если хочешь, зови меня Саша" is a plain wish
    return not (_inside_quotes(before) or p.REPORTED.search(before))


# ---- age and places -----------------------------------------------------------------------------------


def _ages(sentence: str) -> Found:
    """Yield the age in "мне 25 лет", "I'm 25", "I'm 25 years old", "I just turned 30"."""
    for pattern in p.AGE_TRIGGERS:
        for match in pattern.finditer(sentence):
            rest = _after(sentence, match.end())
            tail_ok = not p.AGE_NOT_AFTER.match(rest) if match.group("unit") else p.AGE_CLAUSE_END.match(rest)
            hedged = p.AGE_NOT_BEFORE.search(_clause_before(sentence, match.start()))  # "скоро мне 30"
            if "intro" in pattern.groupindex and not names.could_introduce(match.group("intro")):
                continue  # "I'm tired, 5"
            if tail_ok and not hedged and 5 <= int(match.group("age")) <= 120:
                yield match.start(), "age", match.group("age")


def _places(sentence: str) -> Found:
    """Yield city/country where the user lives or moved to, and hometown where they come from."""
    for home, triggers in ((True, p.LIVE_TRIGGERS + [p.LIVED_TRIGGER]), (False, p.FROM_TRIGGERS)):
        for trigger in triggers:
            for match in trigger.finditer(sentence):
                needs_subject = "subj" in trigger.groupindex and not match.group("subj")
                if needs_subject and not _clause_start(sentence, match.start()):
                    continue  # "брат переехал в Москву": the past tense has no person, so it needs "я"
                start = match.start("at") if "at" in trigger.groupindex else match.start()
                rest = _after(sentence, match.end())
                place, used = _place(rest, known_only=not home and bool(p.FROM_RU.search(match.group())))
                if not place or p.NEXT_IS_PAST_VERB.match(rest[used:]):
                    continue  # "я из Москвы приехала": where they came from today
                after = rest[used:]
                if trigger is p.LIVED_TRIGGER and (not (match.group("always") or p.LIVED_TAIL.match(after))
                                                   or p.LIVED_ENDED.search(after)):
                    continue  # "I've lived in Paris and Rome", "… for 5 years, then moved": places of the past
                if "at" in trigger.groupindex and p.GERUND_SUBJECT.match(after):
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
            origin = re.match(r"\s+из\s+", rest, re.IGNORECASE)  # "я дизайнер из Казани"
            town, used = _place(rest[origin.end() :], known_only=True) if origin else (None, 0)
            if town and not p.NEXT_IS_PAST_VERB.match(rest[origin.end() + used :]):
                yield match.start(), "hometown", town


def _statuses(sentence: str) -> Found:
    """Yield marital_status, diet and retirement: "I'm married", "я замужем", "I'm vegan", "я на пенсии"."""
    for key, trigger in p.STATUS_TRIGGERS:
        for match in trigger.finditer(sentence):
            if p.STATUS_END.match(_after(sentence, match.end())):
                yield match.start(), key, " ".join(match.group("status").split())


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
    yield from _parent_of(sentence)
    yield from _listed(sentence, ((p.POSSESSIVE_EN, False), (p.HAVE_EN, True), (p.POSSESSIVE_RU, False),
                                  (p.HAVE_RU, True), (p.WITH_RU, True), (p.OWN_RU, False), (p.ADOPTED_EN, True),
                                  (p.ADOPTED_RU, True)))


def _unowned_kin(sentence: str) -> Found:
    """Yield relatives and animals said with no owner: "Есть дочка Соня", "Сына зовут Миша".

    In chat these are the user's own, unless someone else owns one earlier in the message (the caller checks).
    """
    if p.DEATH.search(sentence) or p.IDIOMS.search(sentence):
        return
    yield from _bare_named(sentence)
    yield from _listed(sentence, ((p.BARE_HAVE_RU, True),))


def _listed(sentence: str, triggers: tuple[tuple[re.Pattern[str], bool], ...]) -> Found:
    """Yield the animals and relatives after each trigger; a `listing` trigger goes on along "A, B and C"."""
    for trigger, listing in triggers:
        for match in trigger.finditer(sentence):
            if not _owner_is_user(trigger, sentence, match):
                continue
            position = match.end()
            while item := _kin_or_pet(sentence, position, trigger):
                if p.ADDRESSEE.search(_clause_before(sentence, match.start())):
                    break  # "ты моя девушка": the bot is being cast, the user has no such relative
                key, value, position = item
                yield match.start(), key, value
                joiner = p.LIST_JOINER.match(sentence, position) if listing else None
                if not joiner:
                    break  # "у меня кошка Мурка и собака Рекс" goes on; "my dog and …" is another trigger
                position = joiner.end()


def _owner_is_user(trigger: re.Pattern[str], sentence: str, match: re.Match[str]) -> bool:
    """True unless a trigger that names no owner sits where the owner may be someone else."""
    if trigger is p.OWN_RU:
        return bool(p.FIRST_PERSON_RU.search(_clause_before(sentence, match.start())[-60:]))  # not "Маша любит свою"
    if trigger is p.ADOPTED_RU:
        return bool(match.group("subj")) or _clause_start(sentence, match.start())  # not "подруга завела кота"
    return True


def _bare_named(sentence: str) -> Found:
    """Yield the relative or animal in "Сына зовут Миша", "Кошку зовут Муся" when nobody else owns it."""
    for match in p.BARE_NAMED_RU.finditer(sentence):
        head, name = match.group("head"), match.group("name")
        kind, canonical = p.kind_of(head)
        nominative = p.ru_nominative(head)
        if not kind or not nominative or not names.could_be_name(name) or names.INVITATION.match(
                _after(sentence, match.end())):
            continue  # "Друзья зовут гулять", "сына зовут в армию"
        name = p.capitalise(names.nominative(name))  # "Кота зовут Барсиком"
        key = f"pet:{slug(name)}" if kind == "pet" else f"family:{slug(canonical + ' ' + name)}"
        yield match.start("head"), key, f"{nominative} {name}"


def _parent_of(sentence: str) -> Found:
    """Yield the children in "I'm a mom of two boys", "I'm 41 and a dad of three", "Я мама двоих детей"."""
    for match in p.PARENT_OF_EN.finditer(sentence):
        head = (match.group("head") or "kids").lower()
        relation = p.PARENT_HEADS.get(head, "children")
        yield match.start(), f"family:{relation}", f"{match.group('count')} {head}"
    for match in p.PARENT_OF_RU.finditer(sentence):
        head = match.group("head").lower()
        relation = p.PARENT_HEADS.get(head, "children")
        count = p.PARENT_COUNTS[match.group("count").lower()]
        yield match.start(), f"family:{relation}", f"{count} {'детей' if relation == 'children' else head}"


def _kin_or_pet(sentence: str, position: int, trigger: re.Pattern[str]) -> tuple[str, str, int] | None:
    """Return (key, value, end) for the animal or relative named at `position` after `trigger`, or None."""
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
    if trigger in (p.HAVE_EN, p.ADOPTED_EN) and not count and head.lower() in p.EN_SINGULAR:
        return None  # "I have rabbit stew": after "I have" a singular animal needs "a"
    if trigger is p.BARE_HAVE_RU and (not count and head.lower() not in p.NOMINATIVES or p.OWNER_AFTER_RU.match(after)):
        return None  # "есть кота" is no "I have a cat"; "есть кот у соседей" is theirs
    if trigger in (p.ADOPTED_EN, p.ADOPTED_RU) and kind != "pet":
        return None  # "завела подругу"
    counted = bool(count) and count.lower() not in ("a", "an", "one")
    nominative = p.ru_nominative(head)
    accusative = bool(nominative) and head.lower() != nominative and head.lower().endswith(("у", "ю"))
    name, used = _kin_name(after, nominative=head.lower() in p.NOMINATIVES, accusative=accusative)
    if name:
        value = f"{modifier + ' ' if modifier and not nominative else ''}{nominative or head} {name}"
        key = f"pet:{slug(name)}" if kind == "pet" else f"family:{slug(canonical + ' ' + name)}"
        return key, value, item.end() + used
    words = (count, modifier, head) if counted else (modifier, nominative or head)
    return f"{kind}:{canonical}", " ".join(w for w in words if w), item.end()


def _kin_name(after: str, nominative: bool, accusative: bool) -> tuple[str | None, int]:
    """Return (the name given right after an animal or relative, characters used), or (None, 0).

    After an accusative ("свою собаку Лайку") a name in "-у"/"-ю" comes back in the nominative ("Лайка").
    """
    linked = p.NAME_LINKS.match(after)  # "named Luna", "'s name is Rex", ", её зовут Мурка"
    if linked and names.could_be_name(linked.group("name")):
        return p.capitalise(names.nominative(linked.group("name"))), linked.end()
    direct = p.DIRECT_NAME.match(after)  # "my dog Rex", "кот Барсик" (not "кота Барсика")
    name = direct.group("name") if direct else ""
    if accusative and name.endswith(("у", "ю")):
        name = name[:-1] + {"у": "а", "ю": "я"}[name[-1]]
    elif not nominative:
        return None, 0
    if name and name[0].isupper() and names.could_be_name(name) and not names.is_known_word(name.lower()):
        ends = not direct.group("comma") or re.match(r"\s*(?:[,.!;)]|$)", after[direct.end() :])
        if ends:
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
            after = _after(sentence, match.end())
            if not p.STATE_NOT_AFTER.match(after) and not p.GERUND_SUBJECT.match(after):  # not "tired of"
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state
    for match in p.SUBJECTLESS_STATE_EN.finditer(sentence):  # "really sad today", "so so tired"
        state, after = " ".join(match.group("state").lower().split()), _after(sentence, match.end())
        timed = p.NOW_EN.match(after) or state in p.EN_BODILY_STATES
        if timed and p.SUBJECTLESS_END_EN.match(after) and not p.STATE_NOT_AFTER.match(after):
            yield match.start(), f"state:{slug(state)}", state
    for match in p.SUBJECTLESS_FEELING_RU.finditer(sentence):  # "сегодня очень грустно"
        after = _after(sentence, match.end())
        if p.SUBJECTLESS_END_RU.match(after) and not p.FEELING_NOT_AFTER.match(after):
            state = match.group("state").lower()
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


FINDERS = (_ages, _places, _jobs, _statuses, _kin_and_pets, _likes, _states)
