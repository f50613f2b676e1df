"""The LLM layer of fact extraction: one structured-output call over a user's not-yet-processed messages."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from llm.client import ChatModel, Tally
from llm.tokens import estimate_tokens
from memory.extract.extractor_answer import (
    CHANGE_FIELDS,
    CHANGE_OPS,
    FACT_FIELDS,
    OPTIONAL_FACT_FIELDS,
    RELATION_FIELDS,
    parse_extraction,
)
from memory.facts import (
    CATEGORIES,
    RELATIONS,
    SINGLE_VALUED,
    Extraction,
    Fact,
)
from memory.heard import FORWARD, split_quote
from memory.time.time_in_words import format_date

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
ROOM_BESIDE = 1000  # the full instructions are used when they leave this many tokens for facts and messages
KNOWN_SHARE = 4  # the known facts take at most a quarter of the prompt budget
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

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
    """Return one message as marked input: '[user #ID] text', or a context-only line for the assistant's replies
    and for what the user passed on without saying it (a forward, a quote before their own words)."""
    if message["role"] != "user":
        return marked_lines(f"[{message['role']}, context only]", shorten_reply(message["content"]))
    if message.get("kind") == FORWARD:
        return marked_lines("[forwarded by the user, someone else's words, context only]", message["content"])
    quote, own = split_quote(message["content"])
    line = marked_lines(f"[user #{message['id']}]", own)
    return line if quote is None else marked_lines("[quoted by the user, context only]", quote) + "\n" + line


def marked_lines(marker: str, content: str) -> str:
    """Return `content` after its marker; continuation lines are indented, so no text can forge a marker at the
    start of a line. (The user's words were masked as they arrived: transport/inbox.py and
    services/transcriber.py.)"""
    text_lines = content.splitlines() or [""]
    return "\n".join([f"{marker} {text_lines[0]}", *(f"    {line}" for line in text_lines[1:])])


def shorten_reply(text: str, limit: int = REPLY_CONTEXT_CHARS) -> str:
    """Return the companion's reply as context: up to `limit` characters, cut after a whole word, with "…"."""
    return text if len(text) <= limit else cut_after_word(text[:limit])


def cut_after_word(head: str) -> str:
    """Return the start of a text that was cut, ending after its last whole word (when that keeps most of it)."""
    space = head.rfind(" ")
    return (head[:space] if space > len(head) // 2 else head).rstrip() + "…"


def quote_line(text: str) -> str:
    """Return `text` as one JSON string, so a stored line cannot pose as input markers."""
    return json.dumps(text, ensure_ascii=False)


class LLMExtractor:
    """Asks the chat model for the durable facts in a batch of a user's messages, in prompts that fit."""

    def __init__(
        self, model: ChatModel, instructions: str, max_prompt_tokens: int = 6000, timeout: float = 120.0,
        max_answer_tokens: int = 3072, brief: str | None = None,
    ) -> None:
        self.model = model
        self.full_instructions = instructions
        self.brief = brief  # the short instructions, for a prompt budget the full ones would nearly fill
        self._full_tokens = estimate_tokens(instructions)
        self.max_prompt_tokens = max_prompt_tokens
        self.timeout = timeout
        self.max_answer_tokens = max_answer_tokens  # an answer that reaches it is cut: the batch is halved

    def prompt_budget(self) -> int:
        """Return the most tokens one extraction prompt may hold: EXTRACT_MAX_PROMPT_TOKENS, less where the
        server's context window (once known) leaves less room beside the answer (and a reasoning model's thinking)."""
        features = self.model.features
        if features.context_tokens is None:
            return self.max_prompt_tokens
        answer = features.answer_cap(self.max_answer_tokens) or self.max_answer_tokens
        return max(MIN_PROMPT_TOKENS, min(self.max_prompt_tokens, features.context_tokens - answer - CONTEXT_MARGIN))

    @property
    def instructions(self) -> str:
        """Return the instructions the prompt budget leaves room for: the full ones when they leave ROOM_BESIDE
        tokens for the known facts and the messages, else the brief ones (where given)."""
        if self.brief is None or self.prompt_budget() - self._full_tokens >= ROOM_BESIDE:
            return self.full_instructions
        return self.brief

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
        # Only the user's own messages may be cited: a fact sourced from a forward is dropped.
        user_ids = {message["id"] for message in messages
                    if message["role"] == "user" and message.get("kind") != FORWARD}
        if not user_ids:
            return Extraction()
        instructions = self.instructions
        raw = await self.model.complete_json(
            build_extraction_messages(instructions, messages, self.listed(known), zone, topics_so_far),
            "facts", FACTS_SCHEMA,
            max_tokens=self.max_answer_tokens, timeout=self.timeout, tally=tally or Tally(),
            shape_shown=instructions is self.brief,  # the brief ones end with the answer's shape
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
