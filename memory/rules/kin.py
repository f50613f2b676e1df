"""The fact rules for pets and family: "my dog Rex", "I have two kids", "у меня есть сестра Оля", "Сына зовут Миша".

Whether a match is the user's plain statement is judged in rules.py (guards.py); the words and patterns
live in kin_patterns.py.
"""

from __future__ import annotations

import re
from operator import itemgetter

from memory.facts import slug
from memory.rules import fact_patterns as p
from memory.rules import kin_patterns as kin
from memory.rules import names
from memory.rules.guards import Found, clause_before, clause_start, words_after
from memory.text.prefilter import Shortlist, first_match, matches

# (trigger, whether it goes on along a list), for relatives and animals with an owner, and for those without
OWNED = Shortlist(((kin.POSSESSIVE_EN, False), (kin.HAVE_EN, True), (kin.POSSESSIVE_RU, False), (kin.HAVE_RU, True),
                   (kin.WITH_RU, True), (kin.OWN_RU, False), (kin.ADOPTED_EN, True), (kin.ADOPTED_RU, True)),
                  itemgetter(0))
UNOWNED = Shortlist(((kin.BARE_HAVE_RU, True),), itemgetter(0))


def kin_and_pets(sentence: str) -> Found:
    """Yield pets and relatives from "my dog Rex", "I have two kids", "у меня есть сестра Оля", "моя жена"."""
    if first_match(kin.DEATH, sentence) or first_match(kin.IDIOMS, sentence):
        return  # "my dog died", "my partner in crime"
    for match in matches(kin.INVERTED_HAVE_RU, sentence):  # "Муж у меня врач"
        head = match.group("head")
        kind, canonical = kin.kind_of(head)
        if kind:
            yield match.start("head"), f"{kind}:{canonical}", kin.ru_nominative(head) or head
    yield from _parent_of(sentence)
    yield from _listed(sentence, OWNED)


def unowned_kin(sentence: str) -> Found:
    """Yield relatives and animals said with no owner: "Есть дочка Соня", "Сына зовут Миша".

    In chat these are the user's own, unless someone else owns one earlier in the message (the caller checks).
    """
    if first_match(kin.DEATH, sentence) or first_match(kin.IDIOMS, sentence):
        return
    yield from _bare_named(sentence)
    yield from _listed(sentence, UNOWNED)


def _listed(sentence: str, triggers: Shortlist[tuple[re.Pattern[str], bool]]) -> Found:
    """Yield the animals and relatives after each trigger; a `listing` trigger goes on along "A, B and C"."""
    for trigger, listing in triggers.possible(sentence):
        for match in trigger.finditer(sentence):
            if not _owner_is_user(trigger, sentence, match):
                continue
            position = match.end()
            while item := _kin_or_pet(sentence, position, trigger):
                if kin.ADDRESSEE.search(clause_before(sentence, match.start())):
                    break  # "ты моя девушка": the bot is being cast, the user has no such relative
                key, value, position = item
                yield match.start(), key, value
                joiner = kin.LIST_JOINER.match(sentence, position) if listing else None
                if not joiner:
                    break  # "у меня кошка Мурка и собака Рекс" goes on; "my dog and …" is another trigger
                position = joiner.end()


def _owner_is_user(trigger: re.Pattern[str], sentence: str, match: re.Match[str]) -> bool:
    """True unless a trigger that names no owner sits where the owner may be someone else."""
    if trigger is kin.OWN_RU:
        return bool(kin.FIRST_PERSON_RU.search(clause_before(sentence, match.start())[-60:]))  # not "Маша любит свою"
    if trigger is kin.ADOPTED_RU:
        return bool(match.group("subj")) or clause_start(sentence, match.start())  # not "подруга завела кота"
    return True


def _bare_named(sentence: str) -> Found:
    """Yield the relative or animal in "Сына зовут Миша", "Кошку зовут Муся" when nobody else owns it."""
    for match in matches(kin.BARE_NAMED_RU, sentence):
        head, name = match.group("head"), match.group("name")
        kind, canonical = kin.kind_of(head)
        nominative = kin.ru_nominative(head)
        if not kind or not nominative or not names.could_be_name(name) or names.INVITATION.match(
                words_after(sentence, match.end())):
            continue  # "Друзья зовут гулять", "сына зовут в армию"
        name = p.capitalise(names.nominative(name))  # "Кота зовут Барсиком"
        key = f"pet:{slug(name)}" if kind == "pet" else f"family:{slug(canonical + ' ' + name)}"
        yield match.start("head"), key, f"{nominative} {name}"


def _parent_of(sentence: str) -> Found:
    """Yield the children in "I'm a mom of two boys", "I'm 41 and a dad of three", "Я мама двоих детей"."""
    for match in matches(kin.PARENT_OF_EN, sentence):
        head = (match.group("head") or "kids").lower()
        relation = kin.PARENT_HEADS.get(head, "children")
        yield match.start(), f"family:{relation}", f"{match.group('count')} {head}"
    for match in matches(kin.PARENT_OF_RU, sentence):
        head = match.group("head").lower()
        relation = kin.PARENT_HEADS.get(head, "children")
        count = kin.PARENT_COUNTS[match.group("count").lower()]
        yield match.start(), f"family:{relation}", f"{count} {'детей' if relation == 'children' else head}"


def _kin_or_pet(sentence: str, position: int, trigger: re.Pattern[str]) -> tuple[str, str, int] | None:
    """Return (key, value, end) for the animal or relative named at `position` after `trigger`, or None."""
    item = kin.KIN_ITEM.match(sentence, position)
    if not item:
        return None
    count, modifier, head = item.group("count"), item.group("modifier"), item.group("head")
    kind, canonical = kin.kind_of(head)
    if not kind or (modifier and modifier.lower() not in kin.MODIFIERS[kind]):
        return None
    after = words_after(sentence, item.end())
    next_word = re.match(r"\s*([\w'-]+)", after)
    if (next_word and next_word.group(1).lower() in kin.COMPOUND_HEADS) or kin.RU_NEGATED_AFTER.match(after):
        return None  # "my cat videos", "у меня собаки нет"
    if trigger in (kin.HAVE_EN, kin.ADOPTED_EN) and not count and head.lower() in kin.EN_SINGULAR:
        return None  # "I have rabbit stew": after "I have" a singular animal needs "a"
    if trigger is kin.BARE_HAVE_RU and (not count and head.lower() not in kin.NOMINATIVES
                                         or kin.OWNER_AFTER_RU.match(after)):
        return None  # "есть кота" is no "I have a cat"; "есть кот у соседей" is theirs
    if trigger in (kin.ADOPTED_EN, kin.ADOPTED_RU) and kind != "pet":
        return None  # "завела подругу"
    counted = bool(count) and count.lower() not in ("a", "an", "one")
    nominative = kin.ru_nominative(head)
    accusative = bool(nominative) and head.lower() != nominative and head.lower().endswith(("у", "ю"))
    name, used = _kin_name(after, nominative=head.lower() in kin.NOMINATIVES, accusative=accusative)
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
    linked = kin.NAME_LINKS.match(after)  # "named Luna", "'s name is Rex", ", её зовут Мурка"
    if linked and names.could_be_name(linked.group("name")):
        return p.capitalise(names.nominative(linked.group("name"))), linked.end()
    direct = kin.DIRECT_NAME.match(after)  # "my dog Rex", "кот Барсик" (not "кота Барсика")
    name = direct.group("name") if direct else ""
    if accusative and name.endswith(("у", "ю")):
        name = name[:-1] + {"у": "а", "ю": "я"}[name[-1]]
    elif not nominative:
        return None, 0
    if direct and name and name[0].isupper() and names.could_be_name(name) and not names.is_known_word(name.lower()):
        ends = not direct.group("comma") or re.match(r"\s*(?:[,.!;)]|$)", after[direct.end() :])
        if ends:
            return p.capitalise(name), direct.end()
    return None, 0
