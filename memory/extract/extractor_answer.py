"""Reading the LLM extractor's answer: the facts, relations, topic line and changes it may hold, each checked
(sourced from the user's own messages, well formed, no instruction or secret) before anything is stored. Pure."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from llm.answers import close_json
from memory.facts import (
    ENDINGS,
    KEY_PATTERN,
    RELATIONS,
    Correction,
    Ending,
    Extraction,
    Fact,
    Relation,
    normalize_facts,
    normalize_value,
    orders_in,
    slug,
)
from memory.orders import gives_orders
from memory.secrets.masking import contains_secret, mask_secrets
from memory.time.schedule import normalize_when

FACT_FIELDS = frozenset({"category", "key", "value", "importance", "confidence", "source_message_id"})
OPTIONAL_FACT_FIELDS = frozenset({"when"})  # older prompts and models leave it out
RELATION_FIELDS = frozenset({"source_key", "target_key", "relation", "strength"})
CHANGE_FIELDS = frozenset({"op", "key", "value", "when", "how", "source_message_id"})
CHANGE_OPS = ("end", "replace", "forget")

FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)


class ExtractionError(Exception):
    """The model's answer held no JSON, so nothing can be stored from it; try again later."""


def parse_extraction(raw: str, allowed_message_ids: set[int], known: Iterable[Fact] = ()) -> Extraction:
    """Return the valid facts, relations and changes in the model's answer; raise ExtractionError when it holds
    no JSON. `known` are the user's facts: a change must name one of their keys."""
    data = first_json(raw)
    known_by_key = {fact.key: fact for fact in known}
    if isinstance(data, list):
        data = {"facts": data}  # a bare list is the facts alone
    fact_items, relation_items, change_items = data.get("facts"), data.get("relations"), data.get("changes")
    fact_items = fact_items if isinstance(fact_items, list) else []
    relation_items = relation_items if isinstance(relation_items, list) else []
    change_items = change_items if isinstance(change_items, list) else []
    facts = normalize_facts(
        fact for fact in (parse_fact(item, allowed_message_ids) for item in fact_items) if fact is not None
    )
    topics = parse_topics(data.get("topics") if isinstance(data, dict) else None)
    keys = {fact.key for fact in facts} | set(known_by_key)
    relations: dict[tuple[str, str, str], Relation] = {}
    for item in relation_items:
        relation = parse_relation(item, keys)
        if relation is not None:
            relations[(relation.source_key, relation.target_key, relation.relation)] = relation
    endings: dict[str, Ending] = {}
    corrections: dict[str, Correction] = {}
    forget: list[str] = []
    for item in change_items:
        change = parse_change(item, allowed_message_ids, known_by_key)
        if isinstance(change, Ending):
            endings.setdefault(change.key, change)
        elif isinstance(change, Correction):
            corrections.setdefault(change.key, change)
        elif change is not None and change not in forget:
            forget.append(change)
    return Extraction(facts=facts, relations=list(relations.values()), topics=topics, endings=list(endings.values()),
                      corrections=list(corrections.values()), forget=forget)


def parse_change(item: Any, allowed_message_ids: set[int], known: dict[str, Fact]) -> Ending | Correction | str | None:
    """Return the change an answer item describes (an Ending, a Correction, or the key to forget), or None when
    it is malformed, unsourced, unsafe, or names no known fact."""
    if not isinstance(item, dict) or not {"op", "key", "source_message_id"} <= set(item) <= CHANGE_FIELDS:
        return None
    op, key = item["op"], item["key"]
    if op not in CHANGE_OPS or not isinstance(key, str) or as_integer(item["source_message_id"]) not in \
            allowed_message_ids:
        return None
    fact = known.get(repair_key(key))
    if fact is None:
        return None
    message_id = as_integer(item["source_message_id"])
    if op == "forget":
        return fact.key
    if op == "end":
        how = item.get("how") or "ended"
        if how not in ENDINGS or (how == "died" and fact.category not in ("pets", "family")):
            return None  # "my phone died", "the Honda died on the M25": no pet or relative
        when = normalize_when(item.get("when"))
        return Ending(fact.key, how, when[:10] if when else None, message_id)
    value, when = as_text(item.get("value")), normalize_when(item.get("when"))
    if value is not None and (gives_orders(value) or contains_secret(value)):
        return None
    value = normalize_value(value) if value else fact.value
    if not value or (value == fact.value and when in (None, fact.when)):
        return None
    return Correction(fact.key, replace(fact, value=value, when=when or fact.when, source="llm",
                                        source_message_id=message_id))


def parse_cut_answer(raw: str, allowed_message_ids: set[int], known: Iterable[Fact] = ()) -> Extraction:
    """Return the whole facts and relations of an answer cut off mid-JSON; an empty Extraction when none."""
    repaired = close_json(raw)
    if repaired is None:
        return Extraction()
    try:
        return parse_extraction(repaired, allowed_message_ids, known)
    except ExtractionError:
        return Extraction()


def parse_topics(value: Any) -> str | None:
    """Return the topic line on one line, at most MAX_VALUE_LENGTH characters; None when absent or unsafe."""
    text = as_text(value)
    if text is None or isinstance(value, (int, float)):
        return None
    text = normalize_value(mask_secrets(text))
    if not text or gives_orders(text) or text.lower() in ("null", "none"):
        return None
    return text


def first_json(raw: str) -> dict | list:
    """Return the first JSON object (or list of objects) in `raw`, inside ``` fences or prose; else raise."""
    fenced = FENCE.search(raw)
    decoder = json.JSONDecoder()
    for text in ([fenced.group(1)] if fenced else []) + [raw]:
        for start, char in enumerate(text):
            if char not in "{[":
                continue
            try:
                data = decoder.raw_decode(text, start)[0]
            except (ValueError, RecursionError):
                continue
            # A list of numbers in prose ("see [12]") is not the answer.
            if isinstance(data, dict) or (isinstance(data, list) and all(isinstance(item, dict) for item in data)):
                return data
    raise ExtractionError(f"no JSON in the model's answer: {raw[:80]!r}")


def parse_fact(item: Any, allowed_message_ids: set[int]) -> Fact | None:
    """Return the fact an answer item describes, or None when it is malformed, unsourced or unsafe."""
    if not isinstance(item, dict) or not FACT_FIELDS <= set(item) <= FACT_FIELDS | OPTIONAL_FACT_FIELDS:
        return None
    category, key, value = item["category"], item["key"], as_text(item["value"])
    importance, confidence = as_number(item["importance"]), as_number(item["confidence"])
    message_id = as_integer(item["source_message_id"])
    if not isinstance(category, str) or not isinstance(key, str) or value is None:
        return None
    if importance is None or confidence is None or message_id not in allowed_message_ids:
        return None  # an id outside the user's messages means the fact came from the assistant
    if orders_in(category, repair_key(key), value) or contains_secret(value):
        return None
    return Fact(
        category=category.strip().lower(),
        key=repair_key(key),
        value=value,
        importance=round(importance),
        confidence=confidence,
        source="llm",
        source_message_id=message_id,
        when=normalize_when(item.get("when")),
    )


def parse_relation(item: Any, keys: set[str]) -> Relation | None:
    """Return the relation an answer item describes, or None when malformed or naming a key not in `keys`."""
    if not isinstance(item, dict) or set(item) != RELATION_FIELDS:
        return None
    source, target, kind = item["source_key"], item["target_key"], item["relation"]
    strength = as_number(item["strength"])
    if not all(isinstance(part, str) for part in (source, target, kind)) or strength is None:
        return None
    source, target, kind = repair_key(source), repair_key(target), kind.strip().lower()
    if kind not in RELATIONS or source not in keys or target not in keys or source == target:
        return None
    return Relation(source_key=source, target_key=target, relation=kind, strength=min(1.0, max(0.0, strength)))


def repair_key(key: str) -> str:
    """Return `key` lowercased, and when malformed ("Job Title", "family:sister:olya") rebuilt from its words."""
    key = key.strip().lower()
    if KEY_PATTERN.match(key):
        return key
    slot, _, discriminator = key.partition(":")
    return f"{slug(slot)}:{slug(discriminator)}" if discriminator else slug(slot)


def as_text(value: Any) -> str | None:
    """Return a string value as is and a number as text ("age": 30); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    return None


def as_number(value: Any) -> float | None:
    """Return a finite number given as a number or numeric string; None for anything else."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def as_integer(value: Any) -> int | None:
    """Return a whole number given as a number or numeric string; None for anything else."""
    number = as_number(value)
    return int(number) if number is not None and number.is_integer() else None
