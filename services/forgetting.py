"""Forgetting, in one place: every way a user's memory is erased or a part of it forgotten, its Undo and its purge.

The decisions are made here and only here, for the user who asks and only in their own memory. What a sentence
means is planned purely in memory/unlearn/ (plan.py: which known facts the words name; scrub.py: which sentences
mention them); the rows change in the store (memory/store/forget_rows.py: forget, restore, purge, and the plain
deletes in their own rows). Handlers and the other services only call this. Every way to forget, and where it
enters:

- /forget, then its Yes button: everything about the user goes (`erase`); handlers/forget_commands.forget_answer.
- The memory page's "Forget everything" (POST api/forget, confirmed): `erase`, through MemoryPage.forget_all.
- /forget <words>, then Yes: the facts that match every word; `hold_words` lists them and keeps the words in the
  user's settings (the button carries no data of theirs), `forget_held` deletes them; handlers/forget_commands.
- "Forget that …" said in conversation ("забудь про мою собаку", "не запоминай это"): `forget_said` carries out
  the plan of memory/unlearn/plan.py, from Companion.reply. The facts go, the session and topic lines are scrubbed
  of them, and an Undo record is kept; "forget everything" and a request that could mean several facts change
  nothing here: the bot asks (handlers/forget_commands.send_unlearned).
- The fact picked among several on the "which one?" buttons: `forget`; handlers/forget_commands.forget_button.
- The forget requests the model finds in an extraction pass: `forget`, from memory/extract/keeper.py (given this
  service when bot.py builds it).
- Undo of any of the three above, within UNDO_MINUTES: `undo`; handlers/forget_commands.forget_button.
- /profile's delete buttons: `delete_fact`, `delete_topic`; handlers/privacy.profile_button.
- The memory page's deletes (DELETE api/facts/<id>, api/topics/<id>, api/reminders/<id>): `delete_fact`,
  `delete_topic`, `delete_reminder`, through MemoryPage. Final at once: the page's own Undo is its script holding
  the call back for 5 seconds.
- The Undo button of a "✎ remembered" note: `fact_of` finds the fact it was shown for, `delete_fact` deletes it;
  handlers/notes.undo_button.
- An edited message that no longer says what the rules learned from it: `delete_facts`, from Companion.edit.
- ✗ on a memory of a reply's "why" list (/why, services/why.py): `retire`, with Undo as a forget's; the fact is
  recorded as marked wrong, its value kept as its history (memory_events), the session left as it is.
- The purge that makes a forget final: `purge`, every minute (handlers/jobs.purge_forgotten_job). An Undo record
  past its UNDO_MINUTES goes, and with it the last of what it kept.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable, Sequence

from memory.changes import Forgotten
from memory.facts import Fact, facts_matching
from memory.store.account_rows import AccountRows
from memory.store.event_rows import WRONG
from memory.store.fact_rows import FactQueries
from memory.store.forget_rows import ForgetQueries
from memory.store.reminder_rows import ReminderQueries
from memory.store.topic_rows import TopicQueries
from memory.store.turn_rows import Turn
from memory.store.user_rows import UserRows
from memory.unlearn.plan import Plan
from memory.unlearn.scrub import scrubber
from memory.unlearn.targets import words_of

log = logging.getLogger(__name__)
UNDO_MINUTES = 15  # how long the Undo button of a forget works; after that nothing of it is kept
# What the session keeps of a message that asked to forget: the model sees that something was asked, not what.
REQUEST_MARK = "(they asked you to forget something; it is forgotten)"
HELD_WORDS = "forget_words"  # the setting that keeps /forget <words> until its Yes


@dataclass(frozen=True)
class Unlearned:
    """What a forget request came to, for the bot's own line about it."""

    forgotten: Forgotten | None = None  # carried out: the facts that went and the Undo record
    ask: list[Fact] = field(default_factory=list)  # it could mean any of these: ask which
    forget_all: bool = False  # "forget everything": point to /forget and its confirmation
    unmatched: list[str] = field(default_factory=list)  # the words that named nothing remembered
    rest: str = ""  # the words of the message that were not the request: the model answers those


class Forgetter:
    """Every way to forget (see the module's docstring), on the user's own memory only."""

    def __init__(
        self, accounts: AccountRows, facts: FactQueries, forgetting: ForgetQueries, reminders: ReminderQueries,
        topics: TopicQueries, users: UserRows, clock: Callable[[], datetime],
    ) -> None:
        self.accounts = accounts
        self.facts = facts
        self.forgetting = forgetting
        self.reminders = reminders
        self.topics = topics
        self.users = users
        self.clock = clock

    async def erase(self, user_id: int) -> tuple[int, int]:
        """Erase everything kept about the user (/forget's Yes, the page's "Forget everything"); return (messages,
        facts) deleted."""
        return await self.accounts.forget_user(user_id)

    async def hold_words(self, user_id: int, words: str) -> list[Fact]:
        """Return the user's facts that match every word of `words` ("/forget dog"), keeping the words for
        forget_held when there are any."""
        matches = facts_matching(await self.facts.facts(user_id), words)
        if matches:
            await self.users.set_setting(user_id, HELD_WORDS, words, self.clock())
        return matches

    async def forget_held(self, user_id: int) -> int:
        """Delete the facts that match the words hold_words kept (as they match now); return how many went."""
        words = (await self.users.settings(user_id)).get(HELD_WORDS, "")
        matches = facts_matching(await self.facts.facts(user_id), words) if words else []
        return await self.delete_facts(user_id, [fact.id for fact in matches if fact.id is not None])

    async def forget_said(self, turn: Turn, text: str, plan: Plan) -> Unlearned:
        """Forget what the plan of `text` says for the user of `turn`, and keep the request itself out of the
        session; "forget everything" and a request that could mean several facts change nothing."""
        rest = rest_of(text, plan.requests)
        if plan.forget_all or plan.ask or not (plan.forget or plan.forget_this):
            return Unlearned(ask=plan.ask, forget_all=plan.forget_all, unmatched=plan.unmatched, rest=rest)
        edits: dict[int, str | None] = {turn.message_id: f"{REQUEST_MARK} {rest}".strip()}
        facts = list(plan.forget)
        if plan.forget_this and _says_more_before(text, plan.requests):
            edits[turn.message_id] = REQUEST_MARK  # "У меня долги. Не запоминай это.": this very message
            rest = ""
        elif plan.forget_this:
            previous = _previous_exchange(turn)
            edits.update({message_id: None for message_id in previous})
            facts += [fact for fact in turn.facts if fact.source_message_id in previous and fact not in facts]
        forgotten = await self.forget(turn.user_id, facts, edits)
        return Unlearned(forgotten=forgotten, unmatched=plan.unmatched, rest=rest)

    async def forget(
        self, user_id: int, facts: Sequence[Fact], edits: dict[int, str | None] | None = None
    ) -> Forgotten:
        """Delete `facts` (the user's), scrub every session message and topic line that mentions them, apply
        `edits` (message id -> new content, None: drop it), and keep it all for Undo."""
        forgotten = await self.forgetting.forget(
            user_id, [fact.id for fact in facts if fact.id is not None], scrubber(facts), self.clock(),
            timedelta(minutes=UNDO_MINUTES), edits,
        )
        log.info("memory: forgot %d facts and scrubbed %d messages at the user's request", len(forgotten.facts),
                 forgotten.messages)
        return forgotten

    async def retire(self, user_id: int, facts: Sequence[Fact], topic_ids: Sequence[int]) -> Forgotten:
        """Retire `facts` and the topic lines `topic_ids` of the user's memory as marked wrong by them (✗): they
        leave the prompts, the fact's value stays in its history, and Undo puts them back within UNDO_MINUTES.
        What the user said stays in the session: a wrong memory is the bot's mistake, not their words."""
        forgotten = await self.forgetting.forget(
            user_id, [fact.id for fact in facts if fact.id is not None], lambda text: text, self.clock(),
            timedelta(minutes=UNDO_MINUTES), event=WRONG, topic_ids=list(topic_ids),
        )
        log.info("memory: %d facts and %d topic lines marked wrong by their user", len(forgotten.facts),
                 len(topic_ids))
        return forgotten

    async def undo(self, user_id: int, undo_id: int) -> list[Fact] | None:
        """Put back what the forget `undo_id` removed, if it is the user's and still kept; return the facts."""
        restored = await self.forgetting.restore_forgotten(user_id, undo_id, self.clock())
        if restored is None:
            return None
        return [fact for fact in await self.facts.facts(user_id) if fact.id in restored]

    async def fact_of(self, user_id: int, fact_id: int) -> Fact | None:
        """Return the user's fact `fact_id`, or None (another user's is never found)."""
        return next((fact for fact in await self.facts.facts(user_id) if fact.id == fact_id), None)

    async def delete_fact(self, user_id: int, fact_id: int) -> bool:
        """Delete one of the user's facts (or style wishes) for good; False when it is not theirs or gone."""
        return await self.delete_facts(user_id, [fact_id]) == 1

    async def delete_facts(self, user_id: int, fact_ids: list[int]) -> int:
        """Delete those of `fact_ids` that are the user's, for good (no Undo record); return how many went."""
        return await self.facts.delete_facts(user_id, fact_ids, self.clock())

    async def delete_topic(self, user_id: int, topic_id: int) -> bool:
        """Delete one of the user's topic lines; False when it is not theirs or gone."""
        return await self.topics.delete_topic(user_id, topic_id) == 1

    async def delete_reminder(self, user_id: int, reminder_id: int) -> bool:
        """Cancel one of the user's active reminders: it is never sent again; False when there is none."""
        return await self.reminders.cancel_reminder(user_id, reminder_id)

    async def purge(self) -> int:
        """Delete every Undo record whose UNDO_MINUTES have passed, and what it kept; return how many went."""
        return await self.forgetting.purge_forgotten(self.clock())


def rest_of(text: str, requests: list[str]) -> str:
    """Return `text` without its request sentences, or "" when what is left says nothing ("пожалуйста")."""
    rest = text
    for sentence in requests:
        rest = rest.replace(sentence, " ")
    rest = re.sub(r"\s+", " ", rest).strip(" ,.;!?")
    return rest if len(words_of(rest)) >= 2 else ""


def _says_more_before(text: str, requests: list[str]) -> bool:
    """True when the message says something before its request: "this" is then that, not the message before."""
    first = min((text.find(sentence) for sentence in requests if sentence in text), default=0)
    return len(words_of(text[:first])) >= 2


def _previous_exchange(turn: Turn) -> list[int]:
    """Return the ids of the user's message before this one and of the replies to it."""
    earlier = [(message_id, message["role"]) for message_id, message in zip(turn.ids, turn.history, strict=True)
               if message_id < turn.message_id]
    users = [index for index, (_, role) in enumerate(earlier) if role == "user"]
    if not users:
        return []
    return [message_id for message_id, _ in earlier[users[-1] :]]
