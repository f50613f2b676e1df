"""Which of the user's facts some words of theirs mean: "мою собаку" -> pet:laika, "my ex" -> family:ex_mark,
"Барсика" -> pet:barsik, "где я работаю" -> employer. Pure.

Words are compared by Snowball stem (lowercase, ё as е: "Лайку" and "Лайка" are one word) and by concept: an
animal or relative word names its kind in any language or case ("собаку", "dog" -> dog), and a few topics have
their own words ("курить", "smoking" -> smoking; "работу", "where I work" -> job). Word forms come from
memory/text/word_forms.py: a Russian word is looked up by its lemmas, an English topic word by its stem. A name or
another distinctive word decides on its own; without one, the concepts must all fit.
"""

from __future__ import annotations

import re
from typing import Sequence

from memory.facts import Fact
from memory.rules import kin_patterns as kin
from memory.text.word_forms import fold, is_russian, lemmas, stem

WORD = re.compile(r"[^\W_]+(?:-[^\W\d_]+)*")
# Words that say nothing about what is meant: English ones as written, Russian ones by lemma ("моего", "мою" and
# "моими" are forms of "мой", memory/text/word_forms.py knows which); slang the dictionary lacks as written ("инфу").
FILLER = frozenset("""
my our the a an about of on what that this it i me you your told said say tell everything all whole stuff thing
things info information memory please pls just whatever got have has had know knew with from for and or any
in at to by into onto up off out
мой наш про о об обо что то это я ты рассказывать говорить писать весь инфа инфу информация память из в во на и
или пожалуйста ещё еще там тут по с со к ко у за до от для при без над под
""".split())
# A topic's own words: English ones matched by Snowball stem ("smokes", "smoking" -> "smoke"), Russian ones by
# lemma ("курю", "курила" -> "курить"; "работе" -> "работа"). "лет" is matched as written (its lemma is "год").
TOPICS = {
    "job": "job work office работа работать офис",
    "city": "live city town жить город",
    "age": "age old возраст лет",
    "name": "name имя звать",
    "car": "car машина тачка авто автомобиль",
    "smoking": "smoke smoker cigarette vape курить курение сигарета вейп",
    "drinking": "drink alcohol booze пить выпивать алкоголь",
    "diet": "vegan vegetarian veganism vegetarianism pescatarian meat вегетарианка вегетарианец вегетарианство "
            "веганка веган веганство мясо",
    "running": "run jog бег бегать пробежка",
    "pet": "pet питомец животное",
    "family": "family семья",
    "ex": "ex бывший",
}
# Relatives' fond names the kin tables lack (Russian ones by lemma: "бабулю", "бабулей" are "бабуля").
EXTRA_RELATIVES = {"бабуля": "grandmother", "дедуля": "grandfather", "gran": "grandmother", "nan": "grandmother",
                   "nana": "grandmother", "grandad": "grandfather", "granddad": "grandfather", "mum": "mother"}
PARTNERS = frozenset({"boyfriend", "girlfriend", "partner", "fiance", "husband", "wife"})
# Key slots -> the concept they are about.
SLOT_CONCEPTS = {"employer": "job", "job_title": "job", "city": "city", "country": "city", "hometown": "city",
                 "age": "age", "name": "name", "diet": "diet", "car": "car", "pet": "pet", "family": "family"}
KIN_CONCEPTS = frozenset({"pet", "family", "partner", "ex"})


def word_keys(word: str) -> tuple[str, ...]:
    """Return what a word is looked up by here: itself lowercase (folded, then with its ё), then its Russian lemmas
    or its English stem ("курила" -> курила, курить; "smoking" -> smoking, smoke)."""
    folded = fold(word)
    if is_russian(folded):
        return (folded, word.lower(), *lemmas(folded))
    return (folded, stem(folded))


def _listed_key(word: str) -> str:
    """Return the key a topic word stands under: a Russian lemma as it is, an English word by its stem."""
    return word if is_russian(word) else stem(word)


_TOPIC_OF = {_listed_key(word): topic for topic, listed in TOPICS.items() for word in listed.split()}


def concepts_of(word: str) -> set[str]:
    """Return what a word names: "pet"/"family" and the species or relation, a topic, or nothing."""
    lowered = fold(word)
    keys = word_keys(word)
    table_keys = keys if is_russian(lowered) else keys[:1]  # the English tables list their plurals
    found = set()
    for kind, table in (("pet", kin.EN_SPECIES), ("pet", kin.RU_SPECIES), ("family", kin.EN_RELATIVES),
                        ("family", kin.RU_RELATIVES), ("family", EXTRA_RELATIVES)):
        canonical = next((table[key] for key in table_keys if key in table), None)
        if canonical:
            found |= {kind, f"{'species' if kind == 'pet' else 'rel'}:{canonical}"}
            if canonical in PARTNERS:
                found.add("partner")
    if lowered.startswith("ex-") or lowered.startswith("бывш"):
        found |= {"ex", *concepts_of(lowered.removeprefix("ex-"))} if lowered.startswith("ex-") else {"ex"}
    topic = next((_TOPIC_OF[key] for key in keys if key in _TOPIC_OF), None)
    if topic:
        found.add(topic)
    return found


def is_filler(word: str) -> bool:
    """True for a word that says nothing about what is meant: an English one listed, or a form of a Russian one."""
    lowered = fold(word)
    return lowered in FILLER or (is_russian(lowered) and any(lemma in FILLER for lemma in lemmas(lowered)))


def words_of(text: str) -> list[str]:
    """Return the words of `text` that may name something (fillers and single letters left out)."""
    return [word for word in WORD.findall(text) if len(word) > 1 and not is_filler(word)]


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
