"""The companion writes first: follow-ups on dated events, birthday greetings and check-ins after silence.

A sweep reads what is due from the store (one indexed query), decides for each item by the outreach policy
(services/outreach_policy.py) on the user's own clock (memory/time/schedule.py), writes each message with one
model call, claims it in the store and only then sends it: at most once, even across crashes.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Awaitable, Callable
from zoneinfo import ZoneInfo

from llm.client import ChatModel, ModelUnavailable, Tally
from memory.continuity import recalled_topics
from memory.due import DueItem
from memory.facts import choose_for_prompt, is_style
from memory.store.claims import ClaimQueries
from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.outreach_rows import ProactiveQueries
from memory.store.topic_rows import TopicQueries
from memory.time.schedule import parse_when, user_zone
from memory.usage import next_reset
from metrics import Metrics
from prompts.character_card import Personas
from prompts.outreach_prompt import build_outreach_messages
from services.limits import LimitSettings, limit_reached
from services.outreach_policy import Manners, decide, recurrence, talked_about

log = logging.getLogger(__name__)

SWEEP_LIMIT = 500  # items read per sweep; more wait for the next one
CONCURRENT_WRITES = 4
RETRY_AFTER = timedelta(minutes=15)  # the model failed: the item waits this long
CLAIM = timedelta(minutes=10)  # on PostgreSQL, how long a machine keeps an item it is writing to itself
SKIP = "SKIP"
GREETING_WORDS = frozenset(
    "hi hello hey there how are you doing what's up whats good morning evening afternoon dear friend "
    "привет приветик здравствуй здравствуйте хай как ты дела поживаешь доброе утро добрый день вечер дорогой "
    "дорогая друг".split()
)
WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")

# (user id, text, first message ever written first, Telegram language) -> "sent", "blocked" or "failed"
Sender = Callable[[int, str, bool, str | None], Awaitable[str]]


def is_bare_greeting(text: str) -> bool:
    """True when `text` is only a greeting ("Hi! How are you?"), with nothing that shows the user is remembered."""
    words = WORDS.findall(text.lower())
    return not words or all(word in GREETING_WORDS for word in words)


def usable_text(raw: str) -> str | None:
    """Return the model's message if it may be sent: not SKIP, not empty, not a bare greeting; else None."""
    text = raw.strip()
    if not text or text.strip(" .!\"'").upper() == SKIP or is_bare_greeting(text):
        return None
    return text


def event_start(when: str, zone: ZoneInfo) -> datetime | None:
    """Return when a dated event began in `zone` (midnight for a date alone)."""
    parsed = parse_when(when)
    if parsed is None:
        return None
    day, moment = parsed
    return datetime.combine(day, moment or datetime.min.time(), tzinfo=zone)


@dataclass(frozen=True)
class OutreachSettings:
    """The settings writing first uses (named as in Config: see README's configuration table)."""

    quiet_hours: tuple[int, int] | None
    proactive_daily_max: int
    followup_after_hours: float
    history_limit: int
    prompt_max_tokens: int
    reply_max_tokens: int
    memory_prompt_facts: int
    timezone: str
    limits: LimitSettings


class Outreach:
    """Sweeps the schedule and writes what is due; `send` (the handlers' own) delivers to Telegram."""

    def __init__(
        self, claims: ClaimQueries, facts: FactQueries, outreach: ProactiveQueries, topics: TopicQueries,
        model: ChatModel, config: OutreachSettings, personas: Personas, send: Sender, clock: Callable[[], datetime], *,
        meter: UsageMeter, metrics: Metrics | None = None,
    ) -> None:
        self.claims = claims
        self.facts = facts
        self.outreach = outreach
        self.topics = topics
        self.meter = meter  # counts the tokens each message costs, and says when a user's day is spent
        self.model = model
        self.config = config
        self.personas = personas  # a user who chose a persona hears from it, in its own session
        self.clock = clock
        self.manners = Manners(config.quiet_hours, config.proactive_daily_max, config.followup_after_hours)
        self.send = send
        self._slots = asyncio.Semaphore(CONCURRENT_WRITES)
        self.metrics = metrics or Metrics()  # counts the messages Telegram took, by kind

    def zone(self, item: DueItem) -> ZoneInfo:
        """Return the user's zone: chosen with /timezone, else their city's, else BOT_TIMEZONE."""
        return ZoneInfo(user_zone(item.settings, item.city, self.config.timezone)[0])

    async def sweep(self) -> int:
        """Send what is due now (one message per user per sweep); move the rest to when it may go. Return sent."""
        now = self.clock()
        ready: dict[int, DueItem] = {}
        moves: list[tuple[DueItem, datetime | None]] = []
        for item in await self.outreach.due_items(now, SWEEP_LIMIT):
            decision = decide(item, now, self.manners, self.zone(item))
            if decision.action != "send":
                moves.append((item, decision.at))
            else:
                ready.setdefault(item.user_id, item)  # a second one waits: the daily cap is counted again
        await self.outreach.move_items(moves)
        sent = await asyncio.gather(*(self._write_quietly(item) for item in ready.values()))
        return sum(sent)

    async def _write_quietly(self, item: DueItem) -> bool:
        async with self._slots:
            try:
                return await self.write(item)
            except ModelUnavailable as error:
                log.warning("could not write a %s (%s); trying again later", item.kind, type(error).__name__)
                await self.outreach.move_items([(item, self.clock() + RETRY_AFTER)])
                return False

    async def write(self, item: DueItem) -> bool:
        """Write one due item with the model, claim it and send it; return True if Telegram took it."""
        zone = self.zone(item)
        persona = self.personas.chosen(item.settings)
        history = await self.outreach.timed_history(item.user_id, self.config.history_limit, persona.key)
        next_due = recurrence(item, zone)
        if item.kind == "followup" and self._already_told(item, history, zone):
            await self.outreach.move_items([(item, None)])
            return False
        now = self.clock()
        if self.claims.on_postgres and not await self.claims.take_item(item, now, now + CLAIM):
            return False  # another machine is writing it
        if await limit_reached(self.meter, self.config.limits, item.user_id, now, zone):  # it waits for their midnight
            await self.outreach.move_items([(item, next_reset(now, zone))])
            return False
        facts = await self.facts.facts(item.user_id)
        chosen = choose_for_prompt(facts, now, self.config.memory_prompt_facts)
        previous = next((at for role, _content, at in reversed(history) if role == "user"), None)
        messages = build_outreach_messages(
            self.personas.prompt(persona, next((f.value for f in facts if f.key == "name"), None), None), item,
            [*chosen, *(f for f in facts if f.key == "name" or is_style(f))],
            [{"role": role, "content": content} for role, content, _at in history],
            now, zone, previous, self.config.prompt_max_tokens,
            recalled_topics(await self.topics.topics(item.user_id, 6), None, self._first_said(history), timedelta(0)),
        )
        tally = Tally()
        try:
            raw = await self.model.complete(messages, tally=tally, max_tokens=self.config.reply_max_tokens)
        finally:
            await self.meter.record_usage(item.user_id, self.clock(), tokens=tally.tokens, while_stored=True)
        text = usable_text(raw)
        if text is None:  # the model saw they already told it, or had nothing specific to say
            await self.outreach.move_items([(item, next_due)])
            return False
        now = self.clock()
        later = decide(item, now, self.manners, zone)
        if later.action != "send":  # a slow model took it past the start of quiet hours, or past its day
            await self.outreach.move_items([(item, later.at)])
            return False
        message_id = await self.outreach.claim_item(
            item, text, now, now.astimezone(zone).date().isoformat(), next_due, self.config.history_limit, persona.key
        )
        if message_id is None:  # they wrote meanwhile, or the fact changed: nothing to send
            return False
        # From here on the item is taken: a crash before Telegram answers loses it, never doubles it.
        outcome = await self.send(item.user_id, text, item.proactive_day is None, item.language_code)
        if outcome == "blocked":
            await self.outreach.mark_blocked(item.user_id, message_id, self.clock(), first=item.proactive_day is None)
        elif outcome == "sent":
            self.metrics.wrote_first(item.kind)
        return outcome == "sent"

    @staticmethod
    def _first_said(history: list[tuple[str, str, datetime]]) -> datetime | None:
        """When the first of the user's messages still in the session was written."""
        return next((at for role, _content, at in history if role == "user"), None)

    @staticmethod
    def _already_told(item: DueItem, history: list[tuple[str, str, datetime]], zone: ZoneInfo) -> bool:
        began = event_start(item.when or "", zone)
        later = [content for role, content, at in history if role == "user" and began is not None and at >= began]
        return talked_about(item.fact_value or "", later)
