"""The LLM layer of fact extraction: one structured-output call over a user's not-yet-processed messages."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from llm.answers import close_json
from llm.client import ChatModel, Tally
from llm.tokens import estimate_tokens
from memory.facts import (
    CATEGORIES,
    ENDINGS,
    INSTRUCTION,
    KEY_PATTERN,
    RELATIONS,
    SINGLE_VALUED,
    Correction,
    Ending,
    Extraction,
    Fact,
    Relation,
    normalize_facts,
    normalize_value,
    slug,
)
from memory.secrets.masking import contains_secret, mask_secrets
from memory.time.schedule import normalize_when
from memory.time.words import format_date

FACT_FIELDS = frozenset({"category", "key", "value", "importance", "confidence", "source_message_id"})
OPTIONAL_FACT_FIELDS = frozenset({"when"})  # older prompts and models leave it out
RELATION_FIELDS = frozenset({"source_key", "target_key", "relation", "strength"})
CHANGE_FIELDS = frozenset({"op", "key", "value", "when", "how", "source_message_id"})
CHANGE_OPS = ("end", "replace", "forget")
FACTS_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "category": {"type": "string", "enum": list(CATEGORIES)},
                    "key": {"type": "string"},
                    "value": {"type": "string"},
                    "importance": {"type": "integer"},
                    "confidence": {"type": "number"},
                    "source_message_id": {"type": "integer"},
                    "when": {"type": ["string", "null"]},
                },
                "required": sorted(FACT_FIELDS | OPTIONAL_FACT_FIELDS),
                "additionalProperties": False,
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source_key": {"type": "string"},
                    "target_key": {"type": "string"},
                    "relation": {"type": "string", "enum": list(RELATIONS)},
                    "strength": {"type": "number"},
                },
                "required": sorted(RELATION_FIELDS),
                "additionalProperties": False,
            },
        },
        "topics": {"type": ["string", "null"]},
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(CHANGE_OPS)},
                    "key": {"type": "string"},
                    "value": {"type": ["string", "null"]},
                    "when": {"type": ["string", "null"]},
                    "how": {"type": ["string", "null"]},
                    "source_message_id": {"type": "integer"},
                },
                "required": sorted(CHANGE_FIELDS),
                "additionalProperties": False,
            },
        },
    },
    "required": ["facts", "relations", "topics", "changes"],
    "additionalProperties": False,
}

CONTEXT_MARGIN = 64  # the chat template's own tokens around the messages
MIN_PROMPT_TOKENS = 1024
# The companion's replies are context for the user's words, not sources: this much of each is enough.
REPLY_CONTEXT_CHARS = 300
KNOWN_SHARE = 4  # the known facts take at most a quarter of the prompt budget
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)


class ExtractionError(Exception):
    """The model's answer held no JSON, so nothing can be stored from it; try again later."""


def build_extraction_messages(
    instructions: str, messages: list[dict], known: list[Fact], zone: ZoneInfo | None = None,
    topics_so_far: str | None = None,
) -> list[dict]:
    """Return the chat messages of one extraction call: the system prompt and one user message with the input.

    `instructions` is the template of the system prompt (prompts/extract_facts.md, read once at start-up).
    Messages with an "at" are grouped under their local date in `zone`, so that "tomorrow" can be resolved.
    `topics_so_far` is the topic line of the conversation these messages continue, for the model to rewrite.
    """
    system = instructions
    for name, values in (
        ("{categories}", CATEGORIES),
        ("{relations}", RELATIONS),
        ("{single_valued}", sorted(SINGLE_VALUED)),
    ):
        system = system.replace(name, ", ".join(values))
    known_lines = [known_line(fact) for fact in known] or ["(none yet)"]
    so_far = quote_line(topics_so_far) if topics_so_far else "(a new conversation)"
    lines = ["Known facts about the user:", *known_lines, "", f"Topics of this conversation so far: {so_far}", "",
             "Conversation:"]
    day = None
    for message in messages:
        at: datetime | None = message.get("at")
        if at is not None and zone is not None and at.astimezone(zone).date() != day:
            day = at.astimezone(zone).date()
            lines.append(f"--- {format_date(at.astimezone(zone))} ---")
        lines.append(conversation_line(message))
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def known_line(fact: Fact) -> str:
    """Return a known fact as the prompt lists it: "- key (category): value [when: …] [past: died]"."""
    when = f" [when: {fact.when}]" if fact.when else ""
    return f"- {fact.key} ({fact.category}): {fact.value}{when}" + (f" [past: {fact.ended}]" if fact.ended else "")


def known_within(known: list[Fact], tokens: int) -> list[Fact]:
    """Return the known facts the prompt lists within `tokens`: the most important, then the latest said.

    They are there so that the model updates a slot instead of adding a second one; a user with hundreds
    of facts would otherwise leave no room in the prompt for their messages.
    """
    ranked = sorted(known, key=lambda fact: (-fact.importance, -(fact.updated_at or fact.created_at or EPOCH)
                                             .timestamp()))
    shown, used = set(), 0
    for fact in ranked:
        used += estimate_tokens(known_line(fact))
        if used > tokens:
            break
        shown.add(id(fact))
    return [fact for fact in known if id(fact) in shown]


def conversation_line(message: dict) -> str:
    """Return one message as marked input: '[user #ID] text' or '[assistant, context only] text'."""
    if message["role"] == "user":
        marker = f"[user #{message['id']}]"
    else:
        marker = f"[{message['role']}, context only]"
    # The user's words were masked as they arrived (handlers/transport/inbox.py, chat/transcriber.py).
    # Continuation lines are indented so no text can forge a marker at the start of a line.
    content = message["content"] if message["role"] == "user" else shorten_reply(message["content"])
    text_lines = content.splitlines() or [""]
    return "\n".join([f"{marker} {text_lines[0]}", *(f"    {line}" for line in text_lines[1:])])


def shorten_reply(text: str, limit: int = REPLY_CONTEXT_CHARS) -> str:
    """Return the companion's reply as context: up to `limit` characters, cut after a whole word, with "…"."""
    return text if len(text) <= limit else cut_after_word(text[:limit])


def cut_after_word(head: str) -> str:
    """Return the start of a text that was cut, ending after its last whole word (when that keeps most of it)."""
    space = head.rfind(" ")
    return (head[:space] if space > len(head) // 2 else head).rstrip() + "…"


def parse_extraction(raw: str, allowed_message_ids: set[int], known: Iterable[Fact] = ()) -> Extraction:
    """Return the valid facts, relations and changes in the model's answer; raise ExtractionError when it holds
    no JSON. `known` are the user's facts: a change must name one of their keys."""
    data = first_json(raw)
    known = {fact.key: fact for fact in known}
    if isinstance(data, list):
        fact_items, relation_items, change_items = data, [], []
    else:
        fact_items, relation_items, change_items = data.get("facts"), data.get("relations"), data.get("changes")
    fact_items = fact_items if isinstance(fact_items, list) else []
    relation_items = relation_items if isinstance(relation_items, list) else []
    change_items = change_items if isinstance(change_items, list) else []
    facts = normalize_facts(
        fact for fact in (parse_fact(item, allowed_message_ids) for item in fact_items) if fact is not None
    )
    topics = parse_topics(data.get("topics") if isinstance(data, dict) else None)
    keys = {fact.key for fact in facts} | set(known)
    relations: dict[tuple[str, str, str], Relation] = {}
    for item in relation_items:
        relation = parse_relation(item, keys)
        if relation is not None:
            relations[(relation.source_key, relation.target_key, relation.relation)] = relation
    endings: dict[str, Ending] = {}
    corrections: dict[str, Correction] = {}
    forget: list[str] = []
    for item in change_items:
        change = parse_change(item, allowed_message_ids, known)
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
    if value is not None and (INSTRUCTION.search(value) or contains_secret(value)):
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
    if not text or INSTRUCTION.search(text) or text.lower() in ("null", "none"):
        return None
    return text


def quote_line(text: str) -> str:
    """Return `text` as one JSON string, so a stored line cannot pose as input markers."""
    return json.dumps(text, ensure_ascii=False)


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
    if INSTRUCTION.search(value) or contains_secret(value):
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


class LLMExtractor:
    """Asks the chat model for the durable facts in a batch of a user's messages, in prompts that fit."""

    def __init__(
        self, model: ChatModel, instructions: str, max_prompt_tokens: int = 6000, timeout: float = 120.0,
        max_answer_tokens: int = 3072,
    ) -> None:
        self.model = model
        self.instructions = instructions
        self.max_prompt_tokens = max_prompt_tokens
        self.timeout = timeout
        self.max_answer_tokens = max_answer_tokens  # an answer that reaches it is cut: the batch is halved

    def prompt_budget(self) -> int:
        """Return the most tokens one extraction prompt may hold: EXTRACT_MAX_PROMPT_TOKENS, less where the
        server's context window (once known) leaves less room beside the answer."""
        context = self.model.features.context_tokens
        if context is None:
            return self.max_prompt_tokens
        return max(MIN_PROMPT_TOKENS, min(self.max_prompt_tokens, context - self.max_answer_tokens - CONTEXT_MARGIN))

    def fit(
        self, messages: list[dict], known: list[Fact], zone: ZoneInfo | None = None, topics_so_far: str | None = None,
        budget: int | None = None,
    ) -> list[dict]:
        """Return the first of `messages` whose prompt stays within `budget` tokens (the prompt budget when None).

        At least one message is kept: when it alone is too long, its text is shortened to fit.
        """
        return fit_batch(
            self.instructions, messages, self.listed(known), zone, topics_so_far, budget or self.prompt_budget()
        )

    def listed(self, known: list[Fact]) -> list[Fact]:
        """Return the known facts the prompt lists: those that fit a quarter of the prompt budget."""
        return known_within(known, self.prompt_budget() // KNOWN_SHARE)

    async def extract(
        self, messages: list[dict], known: list[Fact], zone: ZoneInfo | None = None, topics_so_far: str | None = None,
        tally: Tally | None = None,
    ) -> Extraction:
        """Return the facts the user's messages state and their topic line; raise ModelUnavailable or
        ExtractionError to retry later, TooLong to send fewer messages.

        Dates the user names ("on Friday") come back resolved against each message's own date in `zone`.
        `topics_so_far` is the line of the conversation the messages continue: the answer rewrites it.
        `tally` gets the tokens the calls cost.
        """
        user_ids = {message["id"] for message in messages if message["role"] == "user"}
        if not user_ids:
            return Extraction()
        raw = await self.model.complete_json(
            build_extraction_messages(self.instructions, messages, self.listed(known), zone, topics_so_far),
            "facts", FACTS_SCHEMA,
            max_tokens=self.max_answer_tokens, timeout=self.timeout, tally=tally or Tally(),
        )
        return parse_extraction(raw, user_ids, known)


def prompt_tokens(messages: list[dict]) -> int:
    """Return the estimated tokens of an extraction prompt."""
    return sum(estimate_tokens(message["content"]) for message in messages)


def fit_batch(
    instructions: str, messages: list[dict], known: list[Fact], zone: ZoneInfo | None, topics_so_far: str | None,
    budget: int,
) -> list[dict]:
    """Return the longest run of `messages` from the first whose extraction prompt is within `budget` tokens.

    A run without a message of the user's is no use: then their first message goes alone, shortened to fit
    (the companion's words before it are context only, and are passed over).
    """
    fitting = 0
    for count in range(1, len(messages) + 1):
        batch = build_extraction_messages(instructions, messages[:count], known, zone, topics_so_far)
        if prompt_tokens(batch) > budget:
            break
        fitting = count
    users = [message for message in messages if message["role"] == "user"]
    if not users or any(message["role"] == "user" for message in messages[:fitting]):
        return messages[:fitting]
    first = users[0]
    alone = build_extraction_messages(instructions, [{**first, "content": ""}], known, zone, topics_so_far)
    room = budget - prompt_tokens(alone)
    return [{**first, "content": shorten(first["content"], max(room, 16))}]


def shorten(text: str, tokens: int) -> str:
    """Return the start of `text` within about `tokens` tokens, cut after a whole word and marked with "…"."""
    if estimate_tokens(text) <= tokens:
        return text
    return cut_after_word(text.encode("utf-8")[: max(0, tokens - 2) * 4].decode("utf-8", errors="ignore"))
