"""What a message's changes do to the user's facts: which end, which are corrected, which are forgotten, and
when the bot must ask instead. Pure: the changes (memory/rules/) and the known facts in, a Plan out.

Precision first: an ending or a correction applies only when its words mean exactly one fact; a forget
request that could mean two different things of one kind ("my sister", with two sisters) is asked about,
never guessed; one that means nothing is said to mean nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

from memory.changes import END, FORGET, FORGET_ALL, FORGET_THIS, REPLACE, Change
from memory.facts import Correction, Ending, Fact, comparable, normalize_value, slug
from memory.orders import gives_orders
from memory.unlearn.targets import concepts_of, fact_words, facts_meant, stem, words_of


@dataclass(frozen=True)
class Plan:
    """What to do to the user's memory for one message."""

    endings: list[Ending] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    forget: list[Fact] = field(default_factory=list)
    forget_this: bool = False  # forget what they just said
    forget_all: bool = False  # "forget everything": pointed to /forget, never done on a sentence
    ask: list[Fact] = field(default_factory=list)  # a forget request could mean any of these: ask which
    unmatched: list[str] = field(default_factory=list)  # what forget requests named that matches no fact
    requests: list[str] = field(default_factory=list)  # the sentences asking to forget, kept out of the session

    @property
    def forgets(self) -> bool:
        """True when the message asks to forget anything (answered by the bot, not the model)."""
        return bool(self.forget or self.forget_this or self.forget_all or self.ask or self.unmatched)


def plan_changes(changes: Sequence[Change], facts: Sequence[Fact], message_id: int | None = None) -> Plan:
    """Return the plan for `changes` against the user's `facts` (the current ones and the past)."""
    endings: dict[str, Ending] = {}
    corrections: dict[str, Correction] = {}
    forget: dict[str, Fact] = {}
    ask: list[Fact] = []
    unmatched: list[str] = []
    current = [fact for fact in facts if fact.ended is None]
    for change in changes:
        if change.op == END:
            meant = _one(facts_meant(change.about, current, change.slots))
            if meant is not None and (change.how != "died" or meant.category in ("pets", "family")):
                endings.setdefault(meant.key, Ending(meant.key, change.how or "ended", change.on, message_id))
                for plan in _plans_about(meant, current) if change.how == "died" else []:
                    endings.setdefault(plan.key, Ending(plan.key, "ended", change.on, message_id))
        elif change.op == REPLACE:
            correction = _correction(change, facts, message_id)
            if correction is not None:
                corrections.setdefault(correction.key, correction)
        elif change.op == FORGET:
            all_meant = facts_meant(change.about, facts, change.slots)
            if not all_meant:
                unmatched.append(change.about)
            elif len(all_meant) > 1 and not change.plural and _distinct_kin(all_meant):
                ask += [fact for fact in all_meant if fact not in ask]
            else:
                forget.update((fact.key, fact) for fact in all_meant)
    requests = list(dict.fromkeys(change.sentence for change in changes if change.op in (FORGET, FORGET_THIS,
                                                                                           FORGET_ALL)))
    return Plan(
        endings=list(endings.values()), corrections=list(corrections.values()), forget=list(forget.values()),
        forget_this=any(change.op == FORGET_THIS for change in changes),
        forget_all=any(change.op == FORGET_ALL for change in changes), ask=ask if not forget else [],
        unmatched=unmatched, requests=[sentence for sentence in requests if sentence],
    )


def _plans_about(fact: Fact, facts: Sequence[Fact]) -> list[Fact]:
    """Return the plans that name the relative or pet of `fact` ("день рождения мамы" for a mother who died):
    they end with it, so that no birthday greeting or follow-up asks after them."""
    stems, concepts = fact_words(fact)
    kin = {concept for concept in concepts if concept.startswith(("rel:", "species:"))}
    plans = [other for other in facts if other.category == "plans" or other.key.startswith("plan:")]
    return [plan for plan in plans if (stems & fact_words(plan)[0]) or (kin & fact_words(plan)[1])]


def _one(facts: list[Fact]) -> Fact | None:
    return facts[0] if len(facts) == 1 else None


def _distinct_kin(facts: list[Fact]) -> bool:
    """True when the facts are two different pets or relatives (or two of another kind with discriminators)."""
    slots = [fact.key.partition(":")[0] for fact in facts if ":" in fact.key]
    return len(slots) > len(set(slots))


def _correction(change: Change, facts: Sequence[Fact], message_id: int | None) -> Correction | None:
    """Return the correction a REPLACE change makes, when its words mean exactly one fact and change it."""
    meant = _one(facts_meant(change.about, facts, change.slots))
    if meant is None:
        return None
    if change.when is not None:
        if change.when == meant.when:
            return None
        return Correction(meant.key, replace(meant, when=change.when, source_message_id=message_id))
    if not change.new:
        return None
    value, key = corrected_value(meant, change.about, change.new)
    if value is None or comparable(value) == comparable(meant.value) or gives_orders(value):
        return None  # the same again, or an order to the assistant put where the value was
    return Correction(meant.key, replace(meant, key=key, value=value, source_message_id=message_id))


def corrected_value(fact: Fact, about: str, new: str) -> tuple[str | None, str]:
    """Return the fact's value with the words `about` names put right as `new`, and its key to match:
    "сестра Катя" with "Катя" -> "Оля" gives "сестра Оля" and family:sister_оля."""
    named = words_of(about)
    stems = {stem(word) for word in named}
    kinds = set().union(*(concepts_of(word) for word in named)) if named else set()
    tokens = fact.value.split()
    hits = [index for index, token in enumerate(tokens)
            if stem(token.strip(",.")) in stems or ({c for c in concepts_of(token) if ":" in c} & kinds)]
    if not hits or len(hits) == len(tokens):
        value = new
    else:
        value = " ".join(tokens[: hits[0]] + [new] + tokens[hits[-1] + 1 :])
    value = normalize_value(value)
    slot, _, discriminator = fact.key.partition(":")
    if not discriminator:
        return value, fact.key
    old = {slug(tokens[index]) for index in hits}
    latin = {latin_letters(word) for word in old}  # a key the model wrote in Latin: family:sister_katya
    parts = [slug(new) if part in old else latin_letters(slug(new)) if part in latin else part
             for part in discriminator.split("_")]
    return value, f"{slot}:{'_'.join(parts)}"


LATIN = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                 "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya".split(), strict=True))


def latin_letters(word: str) -> str:
    """Return a Russian word in Latin letters, as keys are often written ("катя" -> "katya")."""
    return "".join(LATIN.get(letter, letter) for letter in word).replace("-", "")
