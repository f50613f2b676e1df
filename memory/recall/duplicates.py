"""Near-duplicates among one user's facts: the same thing remembered twice, found by slot and wording or by
the facts' embeddings. Pure: the facts, `now` and the stored vectors in, the pairs and a summary out.

Two tests, either suffices:
- **The slot**: two facts of one slot (the key before the colon) that say the same thing in other words: the
  same value up to case, punctuation and ё; the same discriminator in two alphabets ("pet:murka" from the LLM,
  "pet:мурка" from the rules); or the words of one value all found in the other ("Мурка" and "кошка Мурка"),
  names compared across Cyrillic and Latin, relatives and animals by what they are ("кошка" = "cat"). A
  single-valued slot (city, job_title) holding two facts is a duplicate only when the values say the same; two
  values that differ are a contradiction, which this does not count.
- **The vectors**: the cosine of the two facts' stored embeddings at or above the embedder's own threshold
  (`DUPLICATE_SIMILARITY`; each model has its own scale of cosines). It catches translations and synonyms
  ("Moscow" / "Москва", "программист" / "разработчик"), in one single-valued slot or across two slots ("job_title"
  / "profession"). Not within one multi-valued slot: both texts begin with the slot ("likes: чай", "likes: кофе"),
  and there the cosine of two different things is as high as of one thing said twice (bench/duplicates.py).

Never a pair, whatever the vectors say: two different single-valued slots (the city and the hometown may both be
Kazan: two answers to two questions); different relatives or animals (a sister and a brother, a son and a
son-in-law, a cat and a dog); a relative or pet and a fact of another slot ("брат Лёша" and "friend: друг Лёша");
a like and a dislike (a contradiction).

Left out: style wishes (one fact per aspect by construction, and short wishes about one conversation read alike
while meaning different things: "коротко" and "без воды"), and a state ("tired") once it is no longer current.
Ended facts are compared only with each other: the old city and the new one, or the dog that died and the new
one, are history kept on purpose, not a duplicate; the same loss remembered twice is.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memory.facts import SINGLE_VALUED, Fact, comparable, is_current, is_style, slug
from memory.text.word_forms import fold, is_russian, stem
from memory.unlearn.plan import latin_letters
from memory.unlearn.targets import concepts_of, fact_words, words_of

# The cosine at or above which two facts' vectors make them duplicates, by the embedder's name (Embedder.name):
# the best recall at precision >= 0.90 on bench/duplicates_corpus.json, kept only where a threshold chosen on
# half the pairs holds on the other half (bench/duplicates.py; docs/memory.md, "Near-duplicates"). e5 is kept
# (0.96: its cosines crowd high, related facts at 0.91-0.95). Hashing is not: its trigram cosines mostly
# measure the words two texts share, which the slot test reads better; a threshold chosen on half the pairs fell
# to precision 0.86 on the other. Nor is a remote model: text-embedding-3-small and the rest were not measured,
# and a guessed scale would be wrong in either direction.
DUPLICATE_SIMILARITY: dict[str, float] = {"multilingual-e5-small-q4": 0.96}
KIN_SLOTS = frozenset({"family", "pet"})
# Relatives by marriage, which the kin tables (memory/rules/kin_patterns.py) lack: without them "family:son_in_law"
# reads as a son. Marked like an ex, so that a son and a son-in-law are two people.
IN_LAWS = frozenset("""
зять невестка сноха свекровь свекор свёкор теща тёща тесть золовка деверь шурин свояк свояченица
""".split())
# Slots that say opposite things about the same object: liking tea and not liking it is a contradiction, not a
# duplicate.
OPPOSITES = (frozenset({"likes", "dislikes"}),)
KIN_CATEGORIES = frozenset({"family", "pets"})
PREFIX_LETTERS = 3  # a name in two alphabets matches by a common start this long ("мурк" / "murka")


@dataclass(frozen=True)
class DuplicatePair:
    """Two of one user's facts that say the same thing (`first` comes before `second` in the facts given)."""

    first: Fact
    second: Fact
    reason: str  # "slot" (same slot, same thing in other words) or "vector" (cosine at or above the threshold)
    similarity: float | None = None  # the cosine of their vectors, where both have one


@dataclass(frozen=True)
class DuplicateSummary:
    """How much of one user's memory is said twice, for /stats."""

    pairs: int  # pairs of near-duplicate facts
    involved: int  # facts in at least one pair
    compared: int  # facts that were compared (current and past facts; not style wishes or stale states)

    @property
    def share(self) -> float:
        """Return the share of compared facts that are in a pair (0.0 when there are none)."""
        return self.involved / self.compared if self.compared else 0.0


def duplicate_threshold(embedder: str) -> float | None:
    """Return the cosine at or above which `embedder`'s vectors make two facts duplicates, or None when its scale
    was never measured (then only the slot test counts)."""
    return DUPLICATE_SIMILARITY.get(embedder)


def compared_facts(facts: Sequence[Fact], now: datetime) -> tuple[list[Fact], list[Fact]]:
    """Return (the current facts, the ended ones) that near-duplicates are looked for among, each in its own
    group: no style wishes, no state past its days."""
    kept = [fact for fact in facts if not is_style(fact)]
    return [fact for fact in kept if is_current(fact, now)], [fact for fact in kept if fact.ended is not None]


def near_duplicates(
    facts: Sequence[Fact], now: datetime, vectors: Mapping[int, np.ndarray] | None = None,
    threshold: float | None = None,
) -> list[DuplicatePair]:
    """Return the pairs of near-duplicate facts among one user's `facts`, in the order the facts are given.

    `vectors` are the stored embeddings by fact id, all from one model; `threshold` is that model's
    (`duplicate_threshold`). Without either, only the slot test counts; a fact without a vector is still
    compared by its slot.
    """
    pairs: list[DuplicatePair] = []
    for group in compared_facts(facts, now):
        shapes = [_Shape.of(fact) for fact in group]
        similarity = _similarities(group, vectors or {})
        for i, first in enumerate(shapes):
            for j in range(i + 1, len(shapes)):
                second = shapes[j]
                if _never(first, second):
                    continue
                cosine = similarity.get((i, j))
                if _same_in_other_words(first, second):
                    pairs.append(DuplicatePair(first.fact, second.fact, "slot", cosine))
                elif (threshold is not None and cosine is not None and cosine >= threshold
                      and _by_vector(first, second)):
                    pairs.append(DuplicatePair(first.fact, second.fact, "vector", cosine))
    return pairs


def duplicate_summary(facts: Sequence[Fact], now: datetime, pairs: Sequence[DuplicatePair]) -> DuplicateSummary:
    """Return the count of `pairs` (near_duplicates of `facts`) and how many of the compared facts they hold."""
    current, past = compared_facts(facts, now)
    involved = {pair.first.key for pair in pairs} | {pair.second.key for pair in pairs}  # a user's keys are unique
    return DuplicateSummary(pairs=len(pairs), involved=len(involved), compared=len(current) + len(past))


@dataclass(frozen=True)
class _Shape:
    """What the tests read of a fact, worked out once per fact."""

    fact: Fact
    slot: str
    discriminator: str  # in Latin letters ("мурка" -> "murka"), "" when the key has none
    value: str  # comparable()
    kin: frozenset[str]  # the relatives and animals it names ("rel:sister", "species:cat", "ex"), key and value
    about_kin: bool  # about one of their people or animals (family, pets)
    words: frozenset[tuple[str, bool]]  # (stem in Latin letters, written in Cyrillic) or (a kin concept, False)

    @classmethod
    def of(cls, fact: Fact) -> _Shape:
        slot, _, discriminator = fact.key.partition(":")
        # One text however it was typed or pasted: "й" composed or as и + breve, fullwidth letters, ligatures.
        value = unicodedata.normalize("NFKC", fact.value)
        kin = {concept for concept in fact_words(fact)[1] if ":" in concept or concept == "ex"}
        if "in_law" in discriminator or "-in-law" in value.lower() or IN_LAWS & set(words_of(fold(value))):
            kin.add("in_law")
        # The value says what the fact is; a key's discriminator only when the value has no words ("🐈").
        found = words_of(value) or words_of(discriminator.replace("_", " "))
        words = {(concept, False) for concept in kin}  # "family:son_tom" = "Tom, 7" is about a son
        for word in found:
            kinds = {concept for concept in concepts_of(word) if ":" in concept}
            words |= {(kind, False) for kind in kinds} or {(_latin(stem(fold(word))), is_russian(fold(word)))}
        about_kin = slot in KIN_SLOTS or fact.category in KIN_CATEGORIES
        return cls(fact, slot, _latin(slug(discriminator)) if discriminator else "", comparable(value),
                   frozenset(kin), about_kin, frozenset(words))


def _latin(text: str) -> str:
    """Return `text` in Latin letters, x as ks: "Рекс" and "Rex" are one name."""
    return latin_letters(text).replace("x", "ks")


def _never(first: _Shape, second: _Shape) -> bool:
    """True for two facts that are different things whatever their vectors say."""
    if first.slot != second.slot and first.slot in SINGLE_VALUED and second.slot in SINGLE_VALUED:
        return True  # the city and the hometown: two questions, each with its answer
    if first.kin and second.kin and first.kin != second.kin:
        return True  # a sister and a brother, a cat and a dog
    if {first.slot, second.slot} in OPPOSITES:
        return True  # likes tea, dislikes tea
    # A relative or pet is never the same as a fact of another slot: "брат Лёша" is not "friend: друг Лёша", "сын
    # ходит в школу 57" is not the user's school, whatever their vectors say.
    return (first.about_kin or second.about_kin) and first.slot != second.slot


def _by_vector(first: _Shape, second: _Shape) -> bool:
    """True when the cosine of the pair's vectors may make them duplicates: not within one multi-valued slot, where
    both texts start with the same slot ("likes: чай", "likes: кофе") and the cosine of two different things
    is as high as of one thing said twice (bench/duplicates.py); the slot test alone judges those."""
    return first.slot != second.slot or first.slot in SINGLE_VALUED


def _same_in_other_words(first: _Shape, second: _Shape) -> bool:
    """True for two facts of one slot that say the same thing."""
    if first.slot != second.slot:
        return False
    if first.value and first.value == second.value:
        return True
    if first.discriminator and first.discriminator == second.discriminator:
        return True  # "pet:murka" and "pet:мурка": the LLM's key and the rules' key for one cat
    return _covers(first.words, second.words) or _covers(second.words, first.words)


def _covers(fewer: frozenset[tuple[str, bool]], more: frozenset[tuple[str, bool]]) -> bool:
    """True when every word of `fewer` (not none) is among `more`: "Мурка" in "кошка Мурка"."""
    return bool(fewer) and all(any(_same_word(word, other) for other in more) for word in fewer)


def _same_word(word: tuple[str, bool], other: tuple[str, bool]) -> bool:
    """True for one word: the same stem, or one name in two alphabets, whose stems differ at the end ("мурк" from
    "Мурка", "murka" from "Murka")."""
    (text, cyrillic), (other_text, other_cyrillic) = word, other
    if text == other_text:
        return True
    if cyrillic == other_cyrillic or ":" in text or ":" in other_text:
        return False
    shorter, longer = sorted((text, other_text), key=len)
    return len(shorter) >= PREFIX_LETTERS and longer.startswith(shorter)


def _similarities(group: Sequence[Fact], vectors: Mapping[int, np.ndarray]) -> dict[tuple[int, int], float]:
    """Return the cosine of each pair (i < j) of the group's facts that both have a vector of one dimension."""
    rows = [(index, np.asarray(vectors[fact.id], dtype=np.float32).ravel()) for index, fact in enumerate(group)
            if fact.id is not None and fact.id in vectors]
    found: dict[tuple[int, int], float] = {}
    for dim in {len(vector) for _, vector in rows}:
        same = [(index, vector) for index, vector in rows if len(vector) == dim]
        matrix = np.stack([vector for _, vector in same])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
        cosines = unit @ unit.T
        for a, (i, _) in enumerate(same):
            for b in range(a + 1, len(same)):
                found[(i, same[b][0])] = float(cosines[a, b])
    return found
