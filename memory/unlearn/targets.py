"""Which of the user's facts some words of theirs mean: "мою собаку" -> pet:laika, "my ex" -> family:ex_mark,
"Барсика" -> pet:barsik, "где я работаю" -> employer. Pure.

Words are compared by stem (lowercase, ё as е, a case ending off: "Лайку" and "Лайка" are one word) and by
concept: an animal or relative word names its kind in any language or case ("собаку", "dog" -> dog), and a
few topics have their own words ("курить", "smoking" -> smoking; "работу", "where I work" -> job). A name or
another distinctive word decides on its own; without one, the concepts must all fit.
"""

from __future__ import annotations

import re
from typing import Sequence

from memory.facts import Fact
from memory.recall import ranking
from memory.rules import kin_patterns as kin

WORD = re.compile(r"[^\W_]+(?:-[^\W\d_]+)*")
# Words that say nothing about what is meant.
FILLER = frozenset("""
my our the a an about of on what that this it i me you your told said say tell everything all whole stuff thing
things info information memory please pls just whatever got have has had know knew with from for and or any
мой моя моё мое мои моего моему моим моём моем мою моей моих моими наш наша наше наши нашего нашу нашей наших
про о об обо что то это я мне меня ты тебе тебя рассказывала рассказывал говорила говорил писала писал всё все
весь вся инфу инфа информацию информация память памяти из в во на и или пожалуйста ещё еще там тут
по с со к ко у за до от для при без над под in at to by for from into onto up off out
""".split())
TOPICS = {
    "job": "job jobs work работа работу работе работы работой работаю работал работала office офис",
    "city": "live lived living city town живу жила жил город городе города",
    "age": "age old возраст возрасте лет",
    "name": "name имя зовут",
    "car": "car cars машина машину машины машиной тачка тачку авто автомобиль",
    "smoking": "smoke smokes smoking smoker cigarette cigarettes vape vaping курю курить курение курит курила курил "
               "сигареты сигарет сигарету сигарета вейп",
    "drinking": "drink drinking alcohol booze пью пить выпивать алкоголь",
    "diet": "vegan vegetarian veganism vegetarianism pescatarian meat вегетарианка вегетарианец вегетарианство "
            "веганка веган веганство мясо",
    "running": "run running jogging бег бегать бегаю бегала пробежки пробежка",
    "pet": "pet pets питомец питомца питомцы питомцев животное животные животных",
    "family": "family семья семью семьи",
    "ex": "ex бывший бывшего бывшему бывшим бывшем бывшая бывшей бывшую",
}
# Relatives' fond names the kin tables lack.
EXTRA_RELATIVES = {"бабуля": "grandmother", "бабули": "grandmother", "бабулю": "grandmother", "бабулей": "grandmother",
                   "бабуле": "grandmother", "дедуле": "grandfather", "дедулю": "grandfather",
                   "дедуля": "grandfather", "дедули": "grandfather", "gran": "grandmother", "nan": "grandmother",
                   "nana": "grandmother", "grandad": "grandfather", "granddad": "grandfather", "mum": "mother"}
PARTNERS = frozenset({"boyfriend", "girlfriend", "partner", "fiance", "husband", "wife"})
# Key slots -> the concept they are about.
SLOT_CONCEPTS = {"employer": "job", "job_title": "job", "city": "city", "country": "city", "hometown": "city",
                 "age": "age", "name": "name", "diet": "diet", "car": "car", "pet": "pet", "family": "family"}
KIN_CONCEPTS = frozenset({"pet", "family", "partner", "ex"})
_TOPIC_OF = {word: topic for topic, listed in TOPICS.items() for word in listed.split()}


def fold(word: str) -> str:
    """Return `word` lowercase, ё as е."""
    return word.lower().replace("ё", "е")


def stem(word: str) -> str:
    """Return the folded word as recall stems it, but keeping two letters at least ("Оля" and "Олю" -> "ол")."""
    return ranking.stem(fold(word), keep=2)


def concepts_of(word: str) -> set[str]:
    """Return what a word names: "pet"/"family" and the species or relation, a topic, or nothing."""
    lowered = fold(word)
    found = set()
    for kind, table in (("pet", kin.EN_SPECIES), ("pet", kin.RU_SPECIES), ("family", kin.EN_RELATIVES),
                        ("family", kin.RU_RELATIVES), ("family", EXTRA_RELATIVES)):
        canonical = table.get(lowered) or table.get(word.lower())
        if canonical:
            found |= {kind, f"{'species' if kind == 'pet' else 'rel'}:{canonical}"}
            if canonical in PARTNERS:
                found.add("partner")
    if lowered.startswith("ex-") or lowered.startswith("бывш"):
        found |= {"ex", *concepts_of(lowered.removeprefix("ex-"))} if lowered.startswith("ex-") else {"ex"}
    if lowered in _TOPIC_OF:
        found.add(_TOPIC_OF[lowered])
    return found


def words_of(text: str) -> list[str]:
    """Return the words of `text` that may name something (fillers and single letters left out)."""
    return [word for word in WORD.findall(text) if len(word) > 1 and fold(word) not in FILLER]


def fact_words(fact: Fact) -> tuple[set[str], set[str]]:
    """Return (the stems of a fact's distinctive words, the concepts it is about), from its key and value."""
    slot, _, discriminator = fact.key.partition(":")
    concepts = {SLOT_CONCEPTS.get(slot, slot)}
    stems = set()
    key_words = words_of(discriminator.replace("_", " "))
    for word in key_words + words_of(fact.value):
        found = concepts_of(word)
        # A topic word in a value says little ("job interview" is no job); in the key it names the fact.
        concepts |= found if word in key_words else {concept for concept in found if concept in KIN_CONCEPTS
                                                     or ":" in concept}
        if not found or word[:1].isupper():
            stems.add(stem(word))
    if "ex" in concepts:
        concepts.discard("partner")  # an ex-husband is no partner now
    return stems, concepts


def facts_meant(about: str, facts: Sequence[Fact], slots: Sequence[str] = ()) -> list[Fact]:
    """Return the facts `about` (the user's words) names, among those of `slots` ("employer", "pet", "partner",
    "plans"; empty: any). A distinctive word (a name, "Тойоту") decides; otherwise every concept the words
    name must fit ("мою собаку": a pet that is a dog). Words that name nothing mean every fact of the slots."""
    candidates = [fact for fact in facts if _in_slots(fact, slots)]
    named = words_of(about)
    wanted_stems = {stem(word) for word in named if not concepts_of(word)}
    wanted = set().union(*(concepts_of(word) for word in named)) if named else set()
    if "ex" in wanted:
        wanted.discard("partner")  # "моего бывшего мужа" is no partner now
    if not named:
        return candidates if slots else []
    by_stem = [fact for fact in candidates if wanted_stems & fact_words(fact)[0] and _fits(wanted, fact)]
    if by_stem or not wanted or _names(named):
        return by_stem  # a name that matches nothing ("собаку Боба") means nothing of theirs
    return [fact for fact in candidates if _fits(wanted, fact, strict=True)]


def _names(words: list[str]) -> bool:
    """True when the words hold a capitalised name that is no kin or topic word ("Боба", not "Grandpa")."""
    return any(word[:1].isupper() and not concepts_of(word) for word in words)


def _fits(wanted: set[str], fact: Fact, strict: bool = False) -> bool:
    """True when the concepts `wanted` agree with the fact's: all of them (strict), or none against it."""
    concepts = fact_words(fact)[1]
    if "ex" in concepts and "ex" not in wanted and wanted & ({f"rel:{p}" for p in PARTNERS} | {"partner"}):
        return False  # "my husband" is not the ex-husband
    if strict:
        return bool(wanted) and wanted <= concepts
    specific = {concept for concept in wanted if ":" in concept}
    kinds = {concept.split(":")[0] for concept in specific}
    return all(concept in concepts for concept in specific) or not kinds & {c.split(":")[0] for c in concepts}


def _in_slots(fact: Fact, slots: Sequence[str]) -> bool:
    slot = fact.key.partition(":")[0]
    if not slots:
        return True
    for wanted in slots:
        if wanted == "partner" and slot == "family" and "partner" in fact_words(fact)[1]:
            return True
        if wanted == "plans" and (slot == "plan" or fact.category == "plans"):
            return True
        if wanted == slot or (wanted in ("pet", "family") and fact.category in ("pets" if wanted == "pet" else
                                                                                  "family",)):
            return True
    return False
