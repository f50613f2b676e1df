"""The memory page's service: what one user's page shows, and each change it asks for, made through the store.

Every call is for the signed-in user only: an id that is not theirs is simply not found. A typed value or date
is checked as a learned fact is (services/page_input.py); an edit is a correction, so the old value goes to
fact_history and the next turn's system message zero has the new one. Its deletes and "Forget everything" are
the Forgetter's (services/forgetting.py), where every way to forget lives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable
from zoneinfo import ZoneInfo

from memory.continuity import Topic
from memory.facts import Correction, Extraction, Fact, Relation, comparable, is_style
from memory.reminder import Reminder
from memory.scopes import FROM_GROUPS, Scope, private_scope
from memory.store.account_rows import AccountRows
from memory.store.fact_rows import FactQueries
from memory.store.reminder_rows import ReminderQueries
from memory.store.scope_rows import ScopeQueries
from memory.store.topic_rows import TopicQueries
from memory.store.user_rows import UserRows
from memory.time.schedule import city_of, local_zone, plan_followup, user_zone
from metrics import Metrics
from services.forgetting import Forgetter
from services.page_input import Refused, edited_fact, new_fact, settings_changes
from services.why import Explanation, Why

REPLIES = 10  # replies the page lists with what each used (the session keeps about this many)


@dataclass(frozen=True)
class GroupMemory:
    """What the bot keeps of the user in one group: what they said there and what it learned from it."""

    title: str | None
    facts: list[Fact]
    topics: list[Topic]
    replies: list[Explanation] = field(default_factory=list)  # its newest replies to them there, newest first


@dataclass(frozen=True)
class Snapshot:
    """Everything the page shows of one user."""

    name: str | None
    facts: list[Fact]
    relations: list[Relation]
    topics: list[Topic]
    settings: dict
    reminders: list[Reminder] = field(default_factory=list)  # the active ones, soonest first
    replies: list[Explanation] = field(default_factory=list)  # the newest replies in private, with what each used
    groups: list[GroupMemory] = field(default_factory=list)  # their memory in each group, in the order first met


@dataclass(frozen=True)
class PageSettings:
    """The settings the memory page uses (named as in Config: see README's configuration table)."""

    memory_max_facts: int
    followup_after_hours: float
    timezone: str


class MemoryPage:
    """Reads and changes one user's memory for the page; a refusal is raised as Refused."""

    def __init__(
        self, accounts: AccountRows, facts: FactQueries, reminders: ReminderQueries, scopes: ScopeQueries,
        topics: TopicQueries, users: UserRows, config: PageSettings, clock: Callable[[], datetime],
        forgetter: Forgetter, why: Why, metrics: Metrics | None = None,
    ) -> None:
        self.metrics = metrics or Metrics()  # counts the facts typed or edited here
        self.accounts = accounts
        self.facts = facts
        self.reminders = reminders
        self.scopes = scopes
        self.topics = topics
        self.users = users
        self.config = config
        self.clock = clock
        self.forgetter = forgetter
        self.why = why

    async def snapshot(self, user_id: int) -> Snapshot:
        """Return the user's name, facts, relations, topic lines (newest first), settings, active reminders
        (soonest first), the newest replies with what each used, and their memory in each group."""
        facts, relations = await self.facts.fact_graph(user_id)
        groups = []
        for member in await self.scopes.memberships(user_id):
            scope = Scope(member.key, user_id, member.chat_id, member.title)
            groups.append(GroupMemory(member.title, await self.facts.facts(member.key),
                                      await self.topics.topics(member.key), await self.why.earlier(scope, REPLIES)))
        return Snapshot(
            await self.users.user_name(user_id), facts, relations, await self.topics.topics(user_id),
            await self.users.settings(user_id), await self.reminders.reminders(user_id),
            await self.why.earlier(private_scope(user_id), REPLIES), groups,
        )

    async def edit(self, user_id: int, fact_id: int, changes: dict) -> Fact:
        """Give one of the user's facts a new value and/or date; return it as stored."""
        facts = await self.facts.facts(user_id)
        old = _by_id(facts, fact_id)
        if is_style(old):  # a wish is one of a few set forms ("ты", "no fluff"): it is changed by saying it
            raise Refused("not_editable")
        fact = edited_fact(old, changes)
        await self._save(user_id, facts, Extraction(corrections=[Correction(old.key, fact)]))
        return _by_id(await self.facts.facts(user_id), fact_id)

    async def add(self, user_id: int, fields: dict) -> tuple[Fact, bool]:
        """Add a fact typed by hand; return it as stored and whether it is new (False: it was already known)."""
        fact = new_fact(fields)
        await self.users.meet_user(user_id, self.clock())
        facts = await self.facts.facts(user_id)
        saved = await self._save(user_id, facts, Extraction(facts=[fact]))
        if saved:
            return next(f for f in await self.facts.facts(user_id) if f.id == saved[0].id), True
        known = await self.facts.facts(user_id)
        same = [f for f in known if f.key == fact.key or comparable(f.value) == comparable(fact.value)]
        return (same or [fact])[0], False

    async def share(self, user_id: int, fact_id: int, shared: bool) -> Fact:
        """Let one of the user's facts (or wishes) cross, or stop it: a private one into the groups they talk in, one
        said in a group into their private chat; return it as stored."""
        for key in await self.scopes.memories_of(user_id):
            if await self.scopes.set_shared(key, fact_id, shared):
                if key != user_id:  # their private turns look for such facts only while some is shared
                    crossing = bool(await self.scopes.shared_from_groups(user_id))
                    await self.users.set_setting(user_id, FROM_GROUPS, crossing, self.clock())
                return _by_id(await self.facts.facts(key), fact_id)
        raise Refused("not_found")

    async def delete_fact(self, user_id: int, fact_id: int) -> None:
        """Delete one of the user's facts (or style wishes), in private or one learned in a group."""
        for key in await self.scopes.memories_of(user_id):
            if await self.forgetter.delete_fact(key, fact_id):
                return
        raise Refused("not_found")

    async def delete_topic(self, user_id: int, topic_id: int) -> None:
        """Delete one of the user's topic lines, in private or of a conversation in a group."""
        for key in await self.scopes.memories_of(user_id):
            if await self.forgetter.delete_topic(key, topic_id):
                return
        raise Refused("not_found")

    async def delete_reminder(self, user_id: int, reminder_id: int) -> None:
        """Cancel one of the user's active reminders: it is never sent again."""
        if not await self.forgetter.delete_reminder(user_id, reminder_id):
            raise Refused("not_found")

    async def change_settings(self, user_id: int, fields: dict) -> tuple[dict, list[Fact]]:
        """Set the user's zone, check-ins and memory switch; return all their settings, and their facts (the
        zone may come from their city)."""
        now = self.clock()
        for key, value in settings_changes(fields).items():
            await self.users.set_setting(user_id, key, value, now)
        return await self.users.settings(user_id), await self.facts.facts(user_id)

    async def export(self, user_id: int) -> bytes:
        """Return everything stored about the user, and their zone, as indented JSON (the /export file)."""
        data = await self.accounts.export_user(user_id)
        settings = (data["user"] or {}).get("settings", {})
        zone, source = user_zone(settings, city_of(await self.facts.facts(user_id)), self.config.timezone)
        data["timezone"] = {"zone": zone, "source": source}
        return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")

    async def forget_all(self, user_id: int) -> tuple[int, int]:
        """Erase everything kept about the user, as /forget does; return (messages, facts) deleted."""
        return await self.forgetter.erase(user_id)

    async def _save(self, user_id: int, facts: list[Fact], extraction: Extraction) -> list[Fact]:
        now = self.clock()
        zone: ZoneInfo = local_zone(await self.users.settings(user_id), facts, self.config.timezone)
        saved = await self.facts.save_facts(
            user_id, extraction, now, self.config.memory_max_facts,
            plan=lambda fact: plan_followup(fact, zone, now, self.config.followup_after_hours), via="page",
        )
        self.metrics.memory_written("page", len(saved))
        return saved


def _by_id(facts: list[Fact], fact_id: int) -> Fact:
    found = next((fact for fact in facts if fact.id == fact_id), None)
    if found is None:
        raise Refused("not_found")
    return found
