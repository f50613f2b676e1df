""""Why did you say that?": what each reply's prompt held of memory, read back, and a memory marked wrong from it.

Every reply is stored with `Used`: the ids of the facts always in its prompt (the most important), of those recall
chose for that message, of the style wishes, the earlier conversations' topic lines and the reminders it showed.
`Why.explain` reads one reply's list as it stands now, only within the memory its chat may see (in a group: that
group's memory of the member and what they still share, never the rest of their private memory). `Why.mark_wrong`
is the ✗: the memory is retired (recorded as marked wrong, its value kept as its history; services/forgetting.py),
with Undo for UNDO_MINUTES.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Sequence

from memory.changes import Forgotten
from memory.continuity import Topic
from memory.facts import Fact
from memory.reminder import Reminder
from memory.scopes import Scope, visible_in_group
from memory.store.fact_rows import FactQueries
from memory.store.reminder_rows import ReminderQueries
from memory.store.scope_rows import ScopeQueries
from memory.store.topic_rows import TopicQueries
from memory.store.turn_rows import StoredReply, TurnQueries
from services.forgetting import Forgetter

# The kinds of memory a prompt holds, in the order the list shows them.
WISHES, FACTS, RECALLED, TOPICS, REMINDERS = "wishes", "facts", "recalled", "topics", "reminders"
MARKABLE = (WISHES, FACTS, RECALLED, TOPICS)  # what ✗ may retire; a reminder is cancelled with /reminders


@dataclass(frozen=True)
class Used:
    """What one reply's prompt held of memory, by id: `facts` always there (the most important), `recalled` chosen
    by recall for that very message, and the wishes, topic lines and reminders it showed."""

    wishes: tuple[int, ...] = ()
    facts: tuple[int, ...] = ()
    recalled: tuple[int, ...] = ()
    topics: tuple[int, ...] = ()
    reminders: tuple[int, ...] = ()

    @classmethod
    def of(cls, facts: Sequence[Fact], recalled: Sequence[Fact], wishes: Sequence[Fact], topics: Sequence[Topic],
           reminders: Sequence[Reminder]) -> Used:
        """Return the record of a prompt that held these."""
        def ids(items: Sequence[Fact] | Sequence[Topic] | Sequence[Reminder]) -> tuple[int, ...]:
            return tuple(item.id for item in items if item.id is not None)

        return cls(ids(wishes), ids(facts), ids(recalled), ids(topics), ids(reminders))

    def to_json(self) -> str:
        """Return the record as the store keeps it: a small JSON object of id lists."""
        return json.dumps({kind.name: list(getattr(self, kind.name)) for kind in fields(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> Used:
        """Return the record kept as `text`; anything unreadable reads as nothing used."""
        try:
            data = json.loads(text or "{}")
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        return cls(**{kind.name: tuple(item for item in data.get(kind.name, ()) if isinstance(item, int)
                                       and not isinstance(item, bool)) if isinstance(data.get(kind.name), list)
                      else () for kind in fields(cls)})

    @property
    def count(self) -> int:
        """How many memories the prompt held."""
        return sum(len(getattr(self, kind.name)) for kind in fields(self))


@dataclass(frozen=True)
class Remembered:
    """One line of a reply's "why" list."""

    kind: str  # WISHES, FACTS, RECALLED, TOPICS or REMINDERS
    id: int
    value: str | None  # None: no longer kept (forgotten, or no longer shared with the group)

    @property
    def markable(self) -> bool:
        """True when ✗ may retire it: it is still kept, and not a reminder."""
        return self.value is not None and self.kind in MARKABLE


@dataclass(frozen=True)
class Explanation:
    """A reply and the memories its prompt held, as they are now."""

    reply: StoredReply
    lines: list[Remembered]


def remembered(used: Used, facts: Sequence[Fact], topics: Sequence[Topic],
               reminders: Sequence[Reminder]) -> list[Remembered]:
    """Return the lines of a "why" list: each memory `used` names, with its value where it is among those still kept
    and visible (`facts`, `topics`, `reminders`), else None. Pure."""
    values: dict[str, dict[int | None, str]] = {
        WISHES: {fact.id: fact.value for fact in facts}, FACTS: {fact.id: fact.value for fact in facts},
        RECALLED: {fact.id: fact.value for fact in facts}, TOPICS: {topic.id: topic.text for topic in topics},
        REMINDERS: {reminder.id: reminder.task for reminder in reminders},
    }
    return [Remembered(kind, item, values[kind].get(item)) for kind in (WISHES, FACTS, RECALLED, TOPICS, REMINDERS)
            for item in getattr(used, kind)]


class Why:
    """Reads back what a reply's prompt held, and retires a memory marked wrong from it."""

    def __init__(self, facts: FactQueries, reminders: ReminderQueries, scopes: ScopeQueries, topics: TopicQueries,
                 turns: TurnQueries, forgetter: Forgetter) -> None:
        self.facts = facts
        self.reminders = reminders
        self.scopes = scopes
        self.topics = topics
        self.turns = turns
        self.forgetter = forgetter

    async def explain(self, scope: Scope, chat_message_id: int | None = None, reply_id: int | None = None
                      ) -> Explanation | None:
        """Return the reply in `scope` that Telegram's `chat_message_id` carried, or the stored reply `reply_id`, or
        else the newest one, with its memories as they are now; None when it is no longer in the session."""
        reply = await self.turns.reply_used(scope.key, chat_message_id, reply_id)
        return None if reply is None else await self._explained(scope, reply)

    async def earlier(self, scope: Scope, limit: int) -> list[Explanation]:
        """Return the newest `limit` replies still in the scope's session with their memories, newest first."""
        return [await self._explained(scope, reply) for reply in await self.turns.replies_used(scope.key, limit)]

    async def mark_wrong(self, scope: Scope, kind: str, item: int) -> Forgotten | None:
        """Retire the memory `item` of `kind` that the scope may see, as marked wrong by its user, with Undo; None
        when it is not theirs to mark (gone, another user's, or not visible there)."""
        if kind == TOPICS:
            if not any(topic.id == item for topic in await self.topics.topics(scope.key)):
                return None
            return await self.forgetter.retire(scope.key, [], [item])
        if kind not in MARKABLE:
            return None
        for key, facts in await self._facts_by_memory(scope):
            chosen = [fact for fact in facts if fact.id == item]
            if chosen:
                return await self.forgetter.retire(key, chosen, [])
        return None

    async def undo(self, scope: Scope, undo_id: int) -> bool:
        """Put back what a ✗ in `scope` retired, within UNDO_MINUTES; False when it has expired or is not theirs."""
        # A ✗ in private may have retired a fact said in a group; one in a group, a fact the user shared into it.
        keys = await self.scopes.memories_of(scope.owner) if scope.private else [scope.key, scope.owner]
        for key in keys:
            if await self.forgetter.undo(key, undo_id) is not None:
                return True
        return False

    async def _explained(self, scope: Scope, reply: StoredReply) -> Explanation:
        facts = [fact for _, kept in await self._facts_by_memory(scope) for fact in kept]
        topics = await self.topics.topics(scope.key)
        reminders = await self.reminders.reminders(scope.owner) if scope.private else []
        return Explanation(reply, remembered(Used.from_json(reply.used), facts, topics, reminders))

    async def _facts_by_memory(self, scope: Scope) -> list[tuple[int, list[Fact]]]:
        """Return the facts the scope may see by the memory holding them: the scope's own, then what the user shares
        into it now (in a group: from their private memory; in private: from their memories in groups)."""
        own = await self.facts.facts(scope.key)
        if scope.private:
            crossing: dict[int, list[Fact]] = {}
            for key, fact in await self.scopes.shared_from_groups(scope.owner):
                crossing.setdefault(key, []).append(fact)
            return [(scope.key, own), *crossing.items()]
        seen = visible_in_group(own, await self.scopes.shared_facts(scope.owner))
        return [(scope.key, own), (scope.owner, seen[len(own):])]
