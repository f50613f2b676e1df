"""An import: each user's records from another memory (memory/importing/) through the gates a live message goes
through, then written one user per transaction (memory/store/import_rows.py), or only counted (--dry-run).

The gates are the live message's own, called and not copied: secrets masked (memory/secrets), the rules that read a
message (Companion's), orders refused (memory/orders.py, in clean_fact), values capped at MAX_VALUE_LENGTH, and the
per-user cap of MEMORY_MAX_FACTS (the store's eviction). A fact line the rules find nothing in is kept as a note,
checked as the memory page checks a typed fact (services/page_input.py).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Iterable
from zoneinfo import ZoneInfo

from memory.continuity import Topic
from memory.extract.extractor_answer import parse_topics
from memory.facts import Extraction, Fact, Relation, clean_fact, normalize_facts, slug
from memory.importing.chatgpt import Conversation
from memory.importing.export_file import ExportedUser
from memory.importing.reference import ReferenceUser, Skipped
from memory.orders import gives_orders
from memory.secrets.masking import contains_secret, mask_secrets
from memory.store.import_rows import Imported, ImportRows
from services.companion import Companion
from services.page_input import Refused, typed_value

NOTE_IMPORTANCE = 5  # a line the rules could not read: kept, but below what the user said in so many words
# Why a line was left out, by the memory page's refusal codes (services/page_input.py).
REFUSALS = {"too_long": "longer than 200 characters", "empty": "empty once cleaned",
            "instruction": "gives the assistant orders", "bad_type": "not text"}
SECRET = "holds a secret (masked, and nothing left to keep)"


@dataclass(frozen=True)
class ImportSettings:
    """The settings an import uses (named as in Config: see README's configuration table)."""

    memory_max_facts: int
    memory_max_topics: int
    timezone: str


@dataclass(frozen=True)
class PlannedUser:
    """What one user's import would write, once through the gates, and what was refused and why."""

    user_id: int
    messages: list[tuple[str, str]]
    facts: Extraction
    at: datetime  # when they last talked there (the import's time when the file does not say)
    refused: list[str] = field(default_factory=list)


@dataclass
class Summary:
    """What an import did (or, with --dry-run, would do), for its last lines."""

    users: int = 0
    messages: int = 0
    facts: Counter = field(default_factory=Counter)  # by category
    refused: Counter = field(default_factory=Counter)  # by reason
    skipped: list[str] = field(default_factory=list)  # users not read at all, each with why
    written_messages: int = 0
    written_facts: int = 0
    kept_as_history: int = 0

    def add_planned(self, messages: int, facts: list[Fact], refused: list[str]) -> None:
        """Count one user's planned messages and facts, and what of theirs was refused."""
        self.users += 1
        self.messages += messages
        self.facts.update(fact.category for fact in facts)
        self.refused.update(refused)

    def add_written(self, done: Imported) -> None:
        """Count what the store wrote for one user."""
        self.written_messages += done.messages
        self.written_facts += done.facts
        self.kept_as_history += done.history

    def lines(self, dry_run: bool) -> list[str]:
        """Return the summary as printable lines."""
        verb = "would import" if dry_run else "imported"
        categories = ", ".join(f"{category} {count}" for category, count in sorted(self.facts.items())) or "none"
        lines = [f"{verb}: {self.users} user(s), {self.messages} message(s), {sum(self.facts.values())} fact(s)"
                 f" ({categories})"]
        if not dry_run:
            lines.append(f"written: {self.written_messages} new message(s), {self.written_facts} new or changed"
                         f" fact(s), {self.kept_as_history} older value(s) kept as history (the rest were there)")
        for reason, count in sorted(self.refused.items()):
            lines.append(f"refused: {count} × {reason}")
        lines += [f"skipped: {entry}" for entry in self.skipped]
        return lines


def line_facts(line: str, local_now: datetime) -> tuple[Extraction, str | None]:
    """Return the facts a free-text fact line holds, read as the user's message would be, else the line as a note;
    or no facts and the reason it is refused."""
    masked = mask_secrets(line)
    # Companion's rules, as a turn runs them (a rule's bug costs a fact, never the import).
    found = Companion.rule_facts(masked, local_now)
    facts = [fact for fact in found.facts if not contains_secret(fact.value)]
    if facts:
        return Extraction(facts, found.relations), None
    try:
        value = typed_value(line)
    except Refused as refusal:
        return Extraction(), REFUSALS.get(refusal.code, refusal.code)
    if contains_secret(value):
        return Extraction(), SECRET
    return Extraction([Fact("other", f"other:{slug(value) or 'note'}", value, importance=NOTE_IMPORTANCE)]), None


def name_fact(name: str) -> tuple[list[Fact], str | None]:
    """Return the "name" fact for the name the other bot knew, or none and why it is refused."""
    if contains_secret(name):
        return [], "user_name " + SECRET
    facts = normalize_facts([Fact("personal", "name", name, importance=9)])
    return facts, None if facts else "user_name gives orders or is empty"


def plan_reference_user(user: ReferenceUser, now: datetime, zone: ZoneInfo) -> PlannedUser:
    """Return what the reference bot's user brings, through the gates: their name, their fact lines, their
    newest messages (secrets masked), as of when they last talked."""
    at = user.last_talked if user.last_talked is not None and user.last_talked <= now else now
    refused = list(user.refused)
    if user.last_talked is not None and user.last_talked > now:
        refused.append("last_message_time in the future (the import's time instead)")
    facts: list[Fact] = []
    relations = []
    if user.name:
        named, why = name_fact(user.name)
        facts += named
        refused += [why] if why else []
    for line in user.facts:
        found, why = line_facts(line, at.astimezone(zone))
        facts += found.facts
        relations += found.relations
        refused += [f"a fact line {why}"] if why else []
    messages = [(role, mask_secrets(content)) for role, content in user.history if content.strip()]
    return PlannedUser(user.user_id, messages, Extraction(normalize_facts(facts), relations), at, refused)


@dataclass(frozen=True)
class PlannedExport:
    """A user's /export file once through the gates: their row, the facts that pass, the rest of the lists."""

    user_id: int
    user: dict
    facts: list[Fact]
    relations: list[Relation]
    lists: dict[str, list[dict]]
    refused: list[str] = field(default_factory=list)

    @property
    def messages(self) -> list[dict]:
        """The session messages the file brings."""
        return self.lists["messages"]


def exported_fact(item: dict) -> tuple[Fact | None, str | None]:
    """Return an exported fact through a learned fact's gates (clean_fact: orders, value cap, key; no secret), with
    its dates; or None and why it is refused."""
    if item["source"] not in ("rule", "llm"):
        return None, f"a fact's source is {item['source'][:20]!r}, not rule or llm"
    if contains_secret(item["value"]):
        return None, "a fact " + SECRET
    fact = clean_fact(Fact(
        item["category"], item["key"], item["value"], item["importance"], float(item["confidence"]), item["source"],
        when=item["when"], ended=item.get("ended"), ended_on=item.get("ended_on"), shared=bool(item.get("shared")),
        created_at=datetime.fromisoformat(item["learned"]), updated_at=datetime.fromisoformat(item["updated"]),
        ended_at=datetime.fromisoformat(item["ended_at"]) if item.get("ended_at") else None,
    ))
    if fact is None:
        return None, "a fact gives the assistant orders or has no usable key or value"
    return fact, None


def plan_export(exported: ExportedUser) -> PlannedExport:
    """Return a user's /export file through the gates a live message's memory goes through: facts cleaned (orders
    refused, values capped, no secret), messages and reminders masked, topic lines read as the extractor's are."""
    refused = []
    facts = []
    for item in exported.lists["facts"]:
        fact, why = exported_fact(item)
        facts += [fact] if fact else []
        refused += [why] if why else []
    lists = dict(exported.lists)
    lists["messages"] = [{**item, "content": mask_secrets(item["content"])} for item in lists["messages"]]
    reminders = []
    for item in lists["reminders"]:
        if gives_orders(item["task"]):
            refused.append("a reminder gives the assistant orders")
        else:
            reminders.append({**item, "task": mask_secrets(item["task"])})
    lists["reminders"] = reminders
    topics = []
    for item in lists["conversations"]:
        if parse_topics(item["topics"]) == item["topics"]:
            topics.append(item)
        else:
            refused.append("a topic line gives orders, holds a secret or is not one line")
    lists["conversations"] = topics
    lists["fact_history"] = [item for item in lists["fact_history"] if not contains_secret(item["value"])]
    keys = {fact.key for fact in facts}
    relations = [Relation(item["source"], item["target"], item["relation"], float(item["strength"]))
                 for item in lists["relations"] if item["source"] in keys and item["target"] in keys]
    if exported.groups:
        refused.append(f"{exported.groups} memory(ies) in groups (their chats are not in the file)")
    return PlannedExport(int(exported.user["id"]), exported.user, facts, relations, lists, refused)


@dataclass(frozen=True)
class PlannedConversations:
    """One user's conversations from elsewhere through the gates: messages masked, the rules' facts, topic lines."""

    user_id: int
    messages: list[tuple[str, str, datetime]]
    facts: Extraction
    topics: list[Topic]
    refused: list[str] = field(default_factory=list)


def plan_conversations(user_id: int, found: list[Conversation], zone: ZoneInfo) -> PlannedConversations:
    """Return one user's ChatGPT conversations through the gates: every message masked; the user's own read by the
    rules in order, each against its own date (the assistant's words never teach); a topic line per conversation
    from its title, read as the extractor's topic lines are."""
    messages: list[tuple[str, str, datetime]] = []
    facts: list[Fact] = []
    relations: list[Relation] = []
    topics, refused = [], []
    for item in found:
        for role, words, when in item.messages:
            masked = mask_secrets(words)
            messages.append((role, masked, when))
            if role == "user":
                rules = Companion.rule_facts(masked, when.astimezone(zone))
                facts += [fact for fact in rules.facts if not contains_secret(fact.value)]
                relations += rules.relations
        line = parse_topics(item.title) if item.title else None
        if line:
            topics.append(Topic(line, item.started, item.ended))
        elif item.title:
            refused.append("a conversation's title gives orders or holds a secret")
    return PlannedConversations(user_id, messages, Extraction(normalize_facts(facts), relations), topics, refused)


class Importer:
    """Imports users through the gates into the store; a dry run counts the same and writes nothing."""

    def __init__(self, imports: ImportRows | None, config: ImportSettings, clock: Callable[[], datetime]) -> None:
        self.imports = imports  # None for a dry run, which opens no database
        self.config = config
        self.clock = clock

    async def import_reference(
        self, users: Iterable[ReferenceUser | Skipped], *, dry_run: bool,
        on_user: Callable[[PlannedUser], None] = lambda planned: None,
    ) -> Summary:
        """Import the reference bot's users one at a time (each its own transaction), calling `on_user` after each;
        return the summary. A rerun adds nothing twice (ImportRows.import_user)."""
        summary, zone = Summary(), ZoneInfo(self.config.timezone)
        for user in users:
            if isinstance(user, Skipped):
                summary.skipped.append(f"{user.user}: {user.reason}")
                continue
            planned = plan_reference_user(user, self.clock(), zone)
            await self.write(planned, summary, dry_run, read=True)
            on_user(planned)
            # SQLite's statements run in the loop's own thread, so a user's import may never pause: this pause, between
            # two users' transactions, is where an interrupt (Ctrl-C cancels the task) lands.
            await asyncio.sleep(0)
        return summary

    async def import_export(self, exported: ExportedUser, *, dry_run: bool,
                            on_user: Callable[[PlannedExport], None] = lambda planned: None) -> Summary:
        """Import a user's /export file through the gates, in one transaction; return the summary."""
        planned = plan_export(exported)
        summary = Summary()
        summary.add_planned(len(planned.messages), planned.facts, planned.refused)
        if not dry_run and self.imports is not None:
            summary.add_written(await self.imports.restore_user(
                planned.user, planned.facts, planned.lists, planned.relations, self.clock(),
                self.config.memory_max_facts))
        on_user(planned)
        return summary

    async def import_conversations(self, user_id: int, found: list[Conversation], *, dry_run: bool) -> Summary:
        """Import one user's ChatGPT conversations in one transaction; return the summary. The messages stay unread,
        so that the extraction model reads them as it reads any (memory/extract/keeper.py)."""
        planned = plan_conversations(user_id, found, ZoneInfo(self.config.timezone))
        summary = Summary()
        summary.add_planned(len(planned.messages), planned.facts.facts, planned.refused)
        if not dry_run and self.imports is not None:
            summary.add_written(await self.imports.import_conversations(
                user_id, planned.messages, planned.facts, planned.topics, self.config.memory_max_facts,
                self.config.memory_max_topics))
        return summary

    async def write(self, planned: PlannedUser, summary: Summary, dry_run: bool, *, read: bool) -> None:
        """Count the planned user in `summary` and, unless `dry_run`, write them in one transaction."""
        summary.add_planned(len(planned.messages), planned.facts.facts, planned.refused)
        if dry_run or self.imports is None:
            return
        summary.add_written(await self.imports.import_user(
            planned.user_id, planned.messages, planned.facts, planned.at, self.config.memory_max_facts, read=read))
