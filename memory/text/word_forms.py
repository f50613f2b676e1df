"""Russian and English word forms: stems (Snowball), lemmas, case forms, a name's nominative (pymorphy3).

One home for what the rules, recall, reminders' follow-ups, time zones and unlearning know of word forms, instead
of a suffix list in each. Stems come from Snowball's Russian and English stemmers (PyStemmer, its C build: the
same stems as the pure-Python snowballstemmer on all 6,360 distinct words of our corpora and LoCoMo, 0.30 µs a
word against 19.3); the rest from pymorphy3 and its OpenCorpora dictionary, which knows a word's paradigm instead
of guessing it from the ending, and guesses unknown words (surnames, foreign cities) by their likeness to known
ones. On the corpora's Russian words, 97 % of a word's forms share its commonest lemma, 84 % its commonest
Snowball stem, 64 % its commonest stem by the suffix list this replaced.

The analyzer is built once, on first use (`analyzer`), as pymorphy3 ships it, without its probability estimator
(2 MiB more, and nothing here needs the readings ranked). It holds 19 MiB (its dictionary's DAWGs are 11.6) and
takes about 0.1 s of CPU to build, so a bot only builds it once someone writes a Russian name, place or word the
rules must read. The nouns and phrases the patterns decline as they are imported come from a table of the
dictionary's answers instead (DECLINED_FILE, `python -m memory.text.declining` writes it again; a test checks it
against the dictionary), so importing the rules builds no analyzer.

Every function takes one word and never raises on odd input: an empty string, digits, Latin letters or a word the
dictionary lacks come back as they are (or as their only form).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from pathlib import Path

import pymorphy3
import Stemmer
from pymorphy3.units import DictionaryAnalyzer

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
RUSSIAN_WORD = re.compile(r"[а-яё]+(?:-[а-яё]+)*", re.IGNORECASE)
NOMINAL = frozenset({"NOUN", "ADJF", "PRTF"})  # parts of speech that have a nominative
NAME_TAGS = frozenset({"Name", "Surn", "Patr"})
# Forms a case table leaves out: informal ("в Сочах"), misspelt and distorted ones the dictionary also lists, the
# vocative ("мам", "пап"), which addresses someone instead of naming them, and an adjective's superlative.
NOT_STANDARD = frozenset({"Infr", "Erro", "Dist", "voct", "Supr"})
OBLIQUE_CASES = ("gent", "datv", "accs", "ablt", "loct")
CACHED_WORDS = 8192  # distinct words whose analysis is kept (a word's parses cost about 100 µs)
# What the dictionary says of the nouns and phrases the patterns decline at import: {"nouns": {noun: forms},
# "phrases": {phrase: [words in each case]}}, lower-cased.
DECLINED_FILE = Path(__file__).with_name("ru_declined.json")
DECLINED: dict[str, dict[str, list]] = json.loads(DECLINED_FILE.read_text(encoding="utf-8"))
# Once record_declining is called (memory/text/declining.py, the table's writer): the nouns and phrases the
# analyzer declined since, as DECLINED_FILE holds them.
_declining: dict[str, dict[str, list]] | None = None

_stemmers = threading.local()  # a Stemmer object is not to be shared between threads
_lock = threading.Lock()


def fold(word: str) -> str:
    """Return `word` lowercase, ё as е."""
    return word.lower().replace("ё", "е")


def is_russian(word: str) -> bool:
    """True when `word` holds a Cyrillic letter."""
    return CYRILLIC.search(word) is not None


def stem(word: str) -> str:
    """Return Snowball's stem of the folded word, Russian for a Cyrillic word, English otherwise ("собаку" -> "собак",
    "painting" -> "paint"); digits and other scripts come back folded."""
    folded = fold(word)
    if not folded:
        return folded
    stemmers = getattr(_stemmers, "pair", None)
    if stemmers is None:
        stemmers = _stemmers.pair = (Stemmer.Stemmer("russian"), Stemmer.Stemmer("english"))
    return stemmers[0 if is_russian(folded) else 1].stemWord(folded)


def bases(word: str) -> frozenset[str]:
    """Return what tells whether two words are forms of one (they share a base): a Russian word's lemmas, any other
    word's Snowball stem, folded ("экзамене" -> {"экзамен"}, "interviews" -> {"interview"}). Snowball's Russian
    stems are cheaper but split more of a word's forms ("экзамен" -> "экзам", "экзамене" -> "экзамен")."""
    return frozenset(lemmas(word)) if is_russian(word) else frozenset({stem(word)})


def lemmas(word: str) -> tuple[str, ...]:
    """Return the dictionary forms a Russian word may be a form of, in the dictionary's order, folded ("мою" ->
    ("мой", "мыть")); any other word, folded, as its only lemma."""
    folded = fold(word)
    if not RUSSIAN_WORD.fullmatch(folded):
        return (folded,)
    return _lemmas(folded)


def lemma(word: str) -> str:
    """Return the first dictionary form of a Russian word, folded ("работаю" -> "работать"); other words folded."""
    return lemmas(word)[0]


def case_forms(noun: str) -> frozenset[str]:
    """Return the case forms of a Russian noun given in the nominative, in its number, spelt as `noun` is (capitals
    and ё or е): "Москва" -> Москвы, Москве, Москву, Москвой, Москвою... An indeclinable noun ("Сочи"), a phrase
    ("Нижний Новгород"), a word that is no noun in the nominative, or a non-Russian word gives {noun} alone."""
    if not RUSSIAN_WORD.fullmatch(noun):
        return frozenset({noun})
    return frozenset(_spelt_like(form, noun) for form in _case_forms(noun.lower()))


def nominatives(word: str) -> list[str]:
    """Return the nominatives, in the same number, that a Russian noun or adjective may be a form of, folded:
    "нижнем" -> ["нижний", "нижнее"], "набережных" -> ["набережные"], "орле" -> ["орел"]; empty for a word that is
    no such form."""
    folded = fold(word)
    if not RUSSIAN_WORD.fullmatch(folded):
        return []
    return list(_nominatives(folded))


def nominative(name: str, case: str | None = None) -> str:
    """Return a Russian name, surname or nickname given in another case in the nominative, spelt as `name` is
    ("Лёлей" -> "Лёля", "Ивановой" -> "Иванова", "Анной-Марией" -> "Анна-Мария", "ЗАЙКОЙ" -> "ЗАЙКА"); a word that
    may already be a nominative ("Андрей", "Рой"), an unknown or Latin one ("Kate"), as written.

    `case` is the case the sentence puts the name in, where it tells ("ablt" after "зови меня"): a reading in that
    case then wins over a rarer nominative ("Аней" is also a man's name, but "зовите меня Аней" means Аня)."""
    if "-" in name:
        return _double_name_nominative(name.split("-"), case)
    if not RUSSIAN_WORD.fullmatch(name):
        return name
    found = _name_nominative(name.lower(), case)
    return _spelt_like(found, name) if found else name


def _double_name_nominative(parts: list[str], case: str | None) -> str:
    """Return a hyphenated name in the nominative. Its parts stand in one case, so where one part is plainly in
    another case and one may be a nominative ("Анне-Марии": "Анне" is also the French Anne), the case that
    turns every part is the one meant (the dative: "Анна-Мария")."""
    found = [nominative(part, case) for part in parts]
    if case is None and found != parts and any(new == old for new, old in zip(found, parts, strict=True)):
        for oblique in OBLIQUE_CASES:
            again = [nominative(part, oblique) for part in parts]
            if all(new != old for new, old in zip(again, parts, strict=True)):
                return "-".join(again)
    return "-".join(found)


def place_nominative(place: str) -> str:
    """Return a Russian place name of one or more words given in another case in the nominative, its capitals
    as written and its ё as the dictionary has it: "Великом Новгороде" -> "Великий Новгород", "Набережных Челнах"
    -> "Набережные Челны", "Орле" -> "Орёл". A name that may be a nominative already ("Сочи"), one of hyphenated or
    non-Russian words, or words that are no adjectives before a noun, as written."""
    words = place.split()
    if not words or not all(RUSSIAN_WORD.fullmatch(word) and "-" not in word for word in words):
        return place
    found = _place_nominative(tuple(word.lower() for word in words))
    if found is None:
        return place
    return " ".join(_spelt_like(form, word, dictionary_yo=True) for form, word in zip(found, words, strict=True))


def phrase_case_forms(phrase: str) -> frozenset[str]:
    """Return the case forms of a Russian noun, or of adjectives before a noun, given in the nominative, the words
    agreeing, lower-cased: "девичья фамилия" -> девичьей фамилии, девичью фамилию, девичьей фамилией...; a
    hyphenated noun declines its last part ("пин-код" -> пин-кода, пин-кодом: the dictionary would decline both).
    A phrase of other words, or one the dictionary cannot decline, gives {phrase} alone, lower-cased."""
    words = phrase.lower().split()
    if not words or not all(RUSSIAN_WORD.fullmatch(word) for word in words):
        return frozenset({phrase.lower()})
    *adjectives, noun = words
    head, _, last = noun.rpartition("-")
    found = _phrase_case_forms(tuple(adjectives), last)
    return frozenset(" ".join(form[:-1] + (f"{head}-{form[-1]}" if head else form[-1],)) for form in found)


def parts_of_speech(word: str) -> frozenset[str]:
    """Return every part of speech the dictionary reads a Russian word as (pymorphy3's tags: "NOUN", "VERB",
    "PREP", "NPRO"...): "спроси" -> {"VERB"}, "у" -> {"PREP", "INTJ"}; empty for a non-Russian word."""
    folded = fold(word)
    if not RUSSIAN_WORD.fullmatch(folded):
        return frozenset()
    return _parts_of_speech(folded)


def record_declining() -> dict[str, dict[str, list]]:
    """Forget the table and record from now on what the analyzer declines; return the record (kept up to date)."""
    global _declining
    DECLINED["nouns"].clear()
    DECLINED["phrases"].clear()
    _declining = {"nouns": {}, "phrases": {}}
    return _declining


def analyzer() -> pymorphy3.MorphAnalyzer:
    """Return the one pymorphy3 analyzer for Russian, built on first use (once, though two threads ask at once)."""
    with _lock:
        return _analyzer()


# ---- the analyzer ------------------------------------------------------------------------------------------


@functools.cache
def _analyzer() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer(lang="ru", probability_estimator_cls=None)


# ---- what the analyzer says, cached -----------------------------------------------------------------------


@functools.lru_cache(maxsize=CACHED_WORDS)
def _lemmas(folded: str) -> tuple[str, ...]:
    found = dict.fromkeys(fold(parse.normal_form) for parse in analyzer().parse(folded))
    return tuple(found) or (folded,)


@functools.lru_cache(maxsize=CACHED_WORDS)
def _case_forms(lowered: str) -> tuple[str, ...]:
    """Return the forms of every paradigm in which the dictionary has `lowered` as a nominative noun (an adjective
    where it has no noun: "знакомый"), each in its own number and gender: "львов" declines as the city and as the
    surname. A word the dictionary lacks declines by pymorphy3's likeliest guess alone."""
    if " " in lowered:
        return (lowered,)
    known = DECLINED["nouns"].get(lowered)
    if known is not None:
        return tuple(known)
    found = declined_noun(lowered)
    if _declining is not None:
        _declining["nouns"][lowered] = list(found)
    return found


def declined_noun(lowered: str) -> tuple[str, ...]:
    """Return `_case_forms(lowered)` as the analyzer gives it."""
    parses = [parse for parse in analyzer().parse(lowered) if parse.tag.case == "nomn" and _same(parse.word, lowered)]
    nominal = [parse for parse in parses if parse.tag.POS == "NOUN"] or [p for p in parses if p.tag.POS in NOMINAL]
    known = [parse for parse in nominal if _known(parse)]
    forms = [lowered]
    for parse in known or nominal[:1]:
        tag = parse.tag
        forms += [form.word for form in parse.lexeme if form.tag.POS == tag.POS and form.tag.number == tag.number
                  and form.tag.gender == tag.gender and not NOT_STANDARD & form.tag.grammemes]
    return tuple(dict.fromkeys(forms))


@functools.lru_cache(maxsize=CACHED_WORDS)
def _nominatives(folded: str) -> tuple[str, ...]:
    found = []
    for parse in analyzer().parse(folded):
        if parse.tag.POS in NOMINAL and parse.tag.case != "nomn":
            inflected = parse.inflect({"nomn"})
            if inflected is not None:
                found.append(fold(inflected.word))
    return tuple(dict.fromkeys(found))


@functools.lru_cache(maxsize=CACHED_WORDS)
def _name_nominative(lowered: str, case: str | None) -> str | None:
    """Return the nominative of a name (or a noun used as one) in another case, or None to keep it as written.

    Someone's name is animate: where the word has an animate reading, only those count, so the dictionary's rare
    inanimate "барсиком" does not keep the cat "Барсиком" from being "Барсик". It names one person, so a plural
    nominative ("Маши", "Марии") keeps no word as it is."""
    nouns = [parse for parse in analyzer().parse(lowered) if parse.tag.POS == "NOUN"]
    nouns = [parse for parse in nouns if parse.tag.animacy == "anim"] or nouns
    told = [parse for parse in nouns if case and parse.tag.case == case]
    told = [parse for parse in told if "Fixd" not in parse.tag.grammemes] or told  # told "Анне", Анна's dative
    if not nouns or not told and any(parse.tag.case == "nomn" and parse.tag.number != "plur" for parse in nouns):
        return None  # no noun, or it may be a nominative already ("Рой", "Андрей", "Мэри", "Нелли")
    others = told or [parse for parse in nouns if parse.tag.case != "nomn"]
    named = [parse for parse in others if NAME_TAGS & parse.tag.grammemes]
    inflected = (named or others)[0].inflect({"nomn"}) if others else None
    return inflected.word if inflected is not None else None


@functools.lru_cache(maxsize=CACHED_WORDS)
def _place_nominative(lowered: tuple[str, ...]) -> tuple[str, ...] | None:
    """Return the nominative of each word of a place's name: the last a noun, a place's where the dictionary
    has one (Geox), the words before it adjectives in its case, number and gender; None to keep it as written."""
    *adjectives, noun = lowered
    parses = [parse for parse in analyzer().parse(noun) if parse.tag.POS == "NOUN"]
    if not parses or any(parse.tag.case == "nomn" for parse in parses):
        return None
    head = ([parse for parse in parses if "Geox" in parse.tag.grammemes] or parses)[0]
    tag = head.tag
    found = [head.inflect({"nomn"})]
    for word in adjectives:
        agreeing = [parse for parse in analyzer().parse(word) if parse.tag.POS == "ADJF" and parse.tag.case == tag.case
                    and parse.tag.number == tag.number and (tag.number == "plur" or parse.tag.gender == tag.gender)]
        found.insert(-1, agreeing[0].inflect({"nomn"}) if agreeing else None)
    if any(form is None for form in found):
        return None
    return tuple(form.word for form in found)


@functools.lru_cache(maxsize=CACHED_WORDS)
def _parts_of_speech(folded: str) -> frozenset[str]:
    return frozenset(str(parse.tag.POS) for parse in analyzer().parse(folded) if parse.tag.POS)


def _phrase_case_forms(adjectives: tuple[str, ...], noun: str) -> tuple[tuple[str, ...], ...]:
    """Return the words of a phrase in each case, the adjectives in the noun's gender, number and (in the
    accusative) animacy; the phrase alone where the dictionary has no nominative noun or adjective for a word."""
    phrase = " ".join((*adjectives, noun))
    known = DECLINED["phrases"].get(phrase)
    if known is not None:
        return tuple(tuple(words) for words in known)
    found = declined_phrase(adjectives, noun)
    if _declining is not None:
        _declining["phrases"][phrase] = [list(words) for words in found]
    return found


def declined_phrase(adjectives: tuple[str, ...], noun: str) -> tuple[tuple[str, ...], ...]:
    """Return `_phrase_case_forms(adjectives, noun)` as the analyzer gives it."""
    unchanged = ((*adjectives, noun),)
    nouns = [parse for parse in analyzer().parse(noun) if parse.tag.POS == "NOUN" and parse.tag.case == "nomn"]
    head = ([parse for parse in nouns if _known(parse)] or nouns or [None])[0]
    if head is None:
        return unchanged
    tag = head.tag
    agreement = {tag.number} | ({tag.gender} if tag.number == "sing" else set())
    # Only a masculine or plural adjective's accusative tells animate from inanimate ("первого питомца").
    animate = {tag.animacy} if tag.animacy and (tag.gender == "masc" or tag.number == "plur") else set()
    readings = []
    for adjective in adjectives:
        parses = [parse for parse in analyzer().parse(adjective)
                  if parse.tag.POS == "ADJF" and parse.tag.case == "nomn"]
        if not parses:
            return unchanged
        readings.append(parses[0])
    found = []
    for case in ("nomn", *OBLIQUE_CASES):
        noun_form = head.inflect({case})
        wanted = {case} | agreement | (animate if case == "accs" else set())
        forms = [reading.inflect(wanted) for reading in readings]
        if noun_form is None or None in forms:
            return unchanged
        found.append((*(form.word for form in forms if form is not None), noun_form.word))
    return tuple(dict.fromkeys(found))


def _known(parse: pymorphy3.analyzer.Parse) -> bool:
    """True when a parse is the dictionary's, not a guess from the word's likeness to others."""
    return type(parse.methods_stack[0][0]) is DictionaryAnalyzer  # FakeDictionary, a guesser, is a subclass


def _same(found: str, lowered: str) -> bool:
    """True when pymorphy3's spelling of a word is the word's, but for ё it may have put in."""
    return fold(found) == fold(lowered)


def _spelt_like(form: str, model: str, dictionary_yo: bool = False) -> str:
    """Return `form` with `model`'s capitals (all, or the first letter of each hyphenated part) and, where `model`
    writes е for ё, without ё, unless `dictionary_yo` keeps the dictionary's ё (a place: "Орле" -> "Орёл")."""
    if "ё" not in model.lower() and not dictionary_yo:
        form = form.replace("ё", "е")
    if model.isupper() and len(model) > 1:
        return form.upper()
    parts, model_parts = form.split("-"), model.split("-")
    capitalised = [part[:1].isupper() for part in model_parts]
    if len(parts) != len(model_parts):
        capitalised = [capitalised[0]] * len(parts)
    return "-".join(part[:1].upper() + part[1:] if up else part for part, up in zip(parts, capitalised, strict=True))

