"""The fact model and the pure rules that clean, merge, choose and show facts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Iterable, Sequence

from memory.orders import gives_orders

CATEGORIES = (
    "style", "personal", "career", "interests", "pets", "family", "preferences", "location", "plans", "state", "other",
)
RELATIONS = ("owns", "likes", "dislikes", "works_at", "family_with", "located_in", "related_to")
# Slots that hold one value per user: a new value replaces the old one (which goes to fact_history).
# Every other key carries its own discriminator ("pet:murka", "likes:coffee") and never overwrites another.
SINGLE_VALUED = frozenset(
    {"name", "age", "birthday", "gender", "city", "country", "hometown", "job_title", "employer",
     "school", "field_of_study", "marital_status", "native_language", "diet"}
)
MAX_VALUE_LENGTH = 200
# Lasting wishes about the conversation itself ("style:address" = "ты", "style:tone" = "no fluff"): one value
# per aspect, always in system message zero in this order, never ranked by recall.
STYLE_ASPECTS = ("address", "language", "length", "tone", "emoji", "avoid_words", "avoid_topics")
STYLE_LINES = 8  # at most this many wishes in the prompt's block
# Aspects that collect a list: a new wish adds to it ("never say X", later "nor Y") instead of replacing it.
STYLE_LISTS = frozenset({"style:avoid_words", "style:avoid_topics"})
STATE_DAYS = 3  # a mood or condition ("tired") is shown for this many days, then dropped
# How a fact stopped being true: it ended (a job left, a city moved away from, a habit dropped), or the pet
# or relative it names died. An ended fact is the past; a death is a loss, remembered for good.
ENDINGS = ("ended", "died")
PAST_DAYS = 30  # an ended fact still matters this long after it ended (a recent change); a loss always does
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(?::[\w-]+)?$")
@dataclass(frozen=True)
class Fact:
    """One durable thing the user said about themselves."""

    category: str
    key: str
    value: str
    importance: int = 5
    confidence: float = 0.9
    source: str = "rule"  # "rule" or "llm"
    source_message_id: int | None = None
    # When a plan or event happens, in the user's local time: ISO 8601 "2026-12-04" or "2026-12-04T10:00".
    when: str | None = None
    # Set when the user said it is no longer true: how (one of ENDINGS), and the local date it ended where their
    # words said ("2026-11-30"); the store adds when memory learned it (ended_at).
    ended: str | None = None
    ended_on: str | None = None
    shared: bool = False  # the user lets it follow them from their private memory into groups (memory/scopes.py)
    # Filled in by the store:
    id: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    ended_at: datetime | None = None


@dataclass(frozen=True)
class Relation:
    """An edge of the fact graph between two of one user's facts, named by their keys."""

    source_key: str
    target_key: str
    relation: str
    strength: float = 0.8


@dataclass(frozen=True)
class Ending:
    """A known fact the user said is no longer true: the fact under `key` ended (or died) on `on`, if said."""

    key: str
    how: str = "ended"  # one of ENDINGS
    on: str | None = None  # the local date it ended ("2026-11-30"), where the words say
    source_message_id: int | None = None


@dataclass(frozen=True)
class Correction:
    """A known fact the user corrected: the fact under `key` becomes `fact` (a new value or date, maybe a new
    key: "сестра Катя" -> "сестра Оля" is family:sister_оля); the old value goes to its history."""

    key: str
    fact: Fact


@dataclass(frozen=True)
class Extraction:
    """What one extraction pass found: facts, the relations among them, the conversation's topic line, and
    the known facts that ended, were corrected or are to be forgotten."""

    facts: list[Fact] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    topics: str | None = None  # one line on what the user talked about in the messages read (LLM layer only)
    endings: list[Ending] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    forget: list[str] = field(default_factory=list)  # keys the user asked to forget (the LLM layer's; see Store.forget)


def slug(text: str) -> str:
    """Return a lowercase key suffix for a free phrase: 'Мурка' -> 'мурка', 'ice cream' -> 'ice_cream'."""
    words = re.findall(r"[^\W_]+", text.lower())
    return "_".join(words)[:40]


def normalize_value(value: str) -> str:
    """Return `value` on one line, with collapsed whitespace, capped at MAX_VALUE_LENGTH characters."""
    value = " ".join(value.split())
    value = value.strip(" \t.,;:!-—–\"'«»“”")
    if len(value) > MAX_VALUE_LENGTH:
        value = value[: MAX_VALUE_LENGTH - 1].rstrip() + "…"
    return value


def comparable(value: str) -> str:
    """Return the form used to spot duplicates: lowercase letters and digits only, ё as е."""
    return "".join(re.findall(r"[^\W_]+", value.lower().replace("ё", "е")))


def orders_in(category: str, key: str, value: str) -> bool:
    """True when a fact's value gives the assistant orders (memory/orders.py), judged as what its key files it
    as: the words a user asked never to hear (STYLE_LISTS) are mentioned, not said, and a style wish's
    imperative about the talk ("не читай мне нотации") is the wish itself."""
    wish = category.strip().lower() == "style" and key.startswith("style:")
    return gives_orders(value, mentions=key in STYLE_LISTS, wish=wish)


def clean_fact(fact: Fact) -> Fact | None:
    """Return the fact normalised and clamped, or None when it is unusable.

    A value that gives the assistant orders is an injection attempt, not something about the user: it is
    refused here whether the rules or the LLM found it (memory/orders.py). The words a user asked never to
    hear (STYLE_LISTS) are mentioned, not said: "не переживай" there is no order."""
    value = normalize_value(fact.value)
    key = fact.key.strip().lower()
    if not value or not KEY_PATTERN.match(key) or orders_in(fact.category, key, value):
        return None
    category = fact.category if fact.category in CATEGORIES else "other"
    if category == "style" and not key.startswith("style:"):  # "debt" filed as a wish is a fact, not a way to talk
        category = "other"
    if key == "style:address":  # Russian ты or вы, whatever way the model put it ("на «ты»", "Ты")
        value = next((form for form in ("ты", "вы") if form == comparable(value.removeprefix("на "))), "")
        if not value:
            return None
    importance = min(10, max(1, int(fact.importance)))
    confidence = min(1.0, max(0.0, float(fact.confidence)))
    return replace(fact, key=key, value=value, category=category, importance=importance, confidence=confidence)


def normalize_facts(facts: Iterable[Fact]) -> list[Fact]:
    """Return cleaned facts, one per key (the last wins), and no value repeated under two keys."""
    by_key: dict[str, Fact] = {}
    for fact in facts:
        cleaned = clean_fact(fact)
        if cleaned is not None:
            by_key.pop(cleaned.key, None)
            by_key[cleaned.key] = cleaned
    seen: set[tuple[str, str]] = set()
    result = []
    for fact in by_key.values():
        marker = (fact.key.split(":")[0], comparable(fact.value))
        if marker not in seen:
            seen.add(marker)
            result.append(fact)
    return result


def is_current(fact: Fact, now: datetime) -> bool:
    """False for a fact that ended and for a state ("tired") older than STATE_DAYS; every other fact is current."""
    if fact.ended is not None:
        return False
    if fact.category != "state" or fact.updated_at is None:
        return True
    return now - fact.updated_at <= timedelta(days=STATE_DAYS)


def is_loss(fact: Fact) -> bool:
    """True for a pet or relative who died."""
    return fact.ended == "died"


def still_matters(fact: Fact, now: datetime) -> bool:
    """True for an ended fact the prompt still shows as the past: a loss always, any other for PAST_DAYS."""
    if fact.ended is None:
        return False
    return is_loss(fact) or fact.ended_at is None or now - fact.ended_at <= timedelta(days=PAST_DAYS)


def prompt_candidates(facts: Sequence[Fact], now: datetime) -> list[Fact]:
    """Return the facts recall may choose for the prompt: current ones, and ended ones that still matter (shown
    as the past); not the name and the style wishes (each has its own place in the prompt)."""
    return [fact for fact in facts if (is_current(fact, now) or still_matters(fact, now))
            and fact.key != "name" and fact.category != "style"]


def is_style(fact: Fact) -> bool:
    """True for a lasting wish about how to talk to the user."""
    return fact.category == "style"


def style_wishes(facts: Sequence[Fact]) -> list[Fact]:
    """Return the user's style wishes for the prompt: known aspects in STYLE_ASPECTS order, then others newest
    first, at most STYLE_LINES."""
    rank = {f"style:{aspect}": index for index, aspect in enumerate(STYLE_ASPECTS)}
    wishes = [fact for fact in facts if is_style(fact)]
    newest_first = sorted(wishes, key=lambda f: f.updated_at.timestamp() if f.updated_at else 0.0, reverse=True)
    return sorted(newest_first, key=lambda f: rank.get(f.key, len(rank)))[:STYLE_LINES]


def with_list_merged(existing: Fact | None, new: Fact) -> Fact:
    """Return `new`, for a list aspect (STYLE_LISTS) holding the items of `existing` too: "empower, synergy"."""
    if existing is None or new.key not in STYLE_LISTS:
        return new
    items: dict[str, str] = {}
    for item in f"{existing.value}, {new.value}".split(","):
        if comparable(item):
            items.setdefault(comparable(item), item.strip())
    return replace(new, value=normalize_value(", ".join(items.values())))


def by_importance(facts: Sequence[Fact]) -> list[Fact]:
    """Return the facts most important first, then the most recently updated."""
    return sorted(facts, key=lambda f: (f.importance, f.updated_at.timestamp() if f.updated_at else 0.0), reverse=True)


def choose_for_prompt(facts: Sequence[Fact], now: datetime, limit: int) -> list[Fact]:
    """Return at most `limit` current facts, most important first, then the most recently updated."""
    return by_importance(prompt_candidates(facts, now))[:limit]


def merge_action(existing: Fact | None, new: Fact, same_family: Iterable[str]) -> str:
    """Return what to do with `new`: 'insert', 'skip' (a duplicate), 'touch' (same value again) or 'replace'.

    A fact that ended comes back only when said again after it ended (a message read later that was written
    before it ended is skipped). `same_family` holds the comparable values of the user's other facts whose key
    has the same prefix ("likes:"), so "likes:coffee" and "likes:кофе_по_утрам" with the same text are not stored twice.
    """
    if existing is None:
        return "skip" if comparable(new.value) in set(same_family) else "insert"
    if existing.ended is not None:  # an ended fact records the message that ended it as its source
        later = None in (new.source_message_id, existing.source_message_id) or (
            new.source_message_id > existing.source_message_id)  # type: ignore[operator]
        return "replace" if later else "skip"  # said again since: current once more; read from before: past
    if comparable(existing.value) == comparable(new.value) and new.when in (None, existing.when):
        return "touch"  # the same again; a new date for it ("the exam moved to Monday") is a change
    return "replace"


def memory_enabled(settings: dict) -> bool:
    """True unless the user turned memory off (/memory off): then nothing new is learned."""
    return settings.get("memory", "on") != "off"


def facts_matching(facts: Sequence[Fact], words: str) -> list[Fact]:
    """Return the facts whose key or value contains every word of `words` ("/forget dog")."""
    wanted = [comparable(word) for word in words.split() if comparable(word)]
    if not wanted:
        return []
    return [fact for fact in facts if all(word in comparable(f"{fact.key} {fact.value}") for word in wanted)]
