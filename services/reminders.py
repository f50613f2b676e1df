"""Reminders the user asks for: understood within the turn, delivered at their time exactly once.

`Reminders.hear` reads the user's own words for a request (memory/reminders/requests.py: rules first, one small
model call where the rules see a request they cannot place in time) and sets, asks about, cancels or moves one;
the handlers say what came of it in a line of the bot's own, before the model's reply, which knows of it.
`Reminders.sweep` sends what is due, quiet hours or not (the user asked for it): each reminder is taken in the
store before it goes and finished once Telegram has accepted it, so only a crash in the moment between the two
sends it again. A recurring one is planned again from its rule, never from when it was delivered.
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
from memory.extract.extractor_answer import ExtractionError, first_json
from memory.recall.ranking import terms
from memory.reminder import ACTIVE, CANCELLED, PENDING, Reminder
from memory.reminders.kinds import AskReminder, CancelReminder, MoveReminder, SetReminder, TooOften, Unclear
from memory.reminders.repeat import Repeat, local
from memory.reminders.requests import read_request
from memory.reminders.times import MAX_AHEAD
from memory.reminders.typed_answers import read_answer
from memory.store.fact_rows import FactQueries
from memory.store.reminder_rows import ReminderQueries
from memory.store.user_rows import UserRows
from memory.time.schedule import local_zone
from metrics import Metrics
from prompts.system import quote

log = logging.getLogger(__name__)

MAX_ACTIVE = 50  # active reminders a user may have
LATE_LIMIT = timedelta(hours=12)  # missed by more (the bot was down): skipped, and the user told once
LATE_NOTE = timedelta(minutes=2)  # delivered later than this: the message says how late
CLAIM = timedelta(minutes=2)  # how long a machine holds a reminder it is sending
RETRY = timedelta(minutes=1)  # Telegram refused to take it: tried again after this
SWEEP_LIMIT = 5000  # reminders read per sweep; more wait for the next one
CONCURRENT_SENDS = 64  # sends in flight at once (Telegram's rate budget paces them)
FARTHEST = MAX_AHEAD  # a time the model proposes further ahead is not taken (ten years)
STEPS = 20_000  # occurrences stepped over to find a recurring reminder's next time after an outage
MODEL_ANSWER_TOKENS = 200
ASKED_LIMIT = 10_000  # questions "when?" remembered at once, awaiting an answer in words (the oldest go first)
# Words without which a message is no reminder request, cancel or move: the rest of the turn skips the parser.
CUES = re.compile(r"напом|remind|забыт|forget|перенес|передвин|move|reschedul|отмен|cancel|удали|delete|"
                  r"ping|nudge|poke|buzz|text\s+me|message\s+me|пни|пнуть|дёрн|дерн|дёрга|дерга|толкни|маякни|ткни|тыкни",
                  re.I)
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "task": {"type": "string"},
        "at": {"type": ["string", "null"]},
        "repeat": {"type": ["string", "null"]},
        "ask": {"type": ["string", "null"]},
    },
    "required": ["task", "at", "repeat", "ask"],
    "additionalProperties": False,
}

# (reminder, how late it goes or None) -> "sent", "blocked" or "failed"
Sender = Callable[[Reminder, timedelta | None], Awaitable[str]]
# Told of a time by which a sweep must run (a reminder was set or moved to then): handlers/reminder_timer.py.
Wake = Callable[[datetime], None]


def _no_wake(at: datetime) -> None:
    """No timer to tell (a service without delivery, or the tests that sweep by hand)."""


@dataclass(frozen=True)
class Outcome:
    """What a message did to the user's reminders, for the bot's own line and for the model's system message."""

    kind: str  # "set", "ask", "unclear", "too_many", "too_often", "cancelled", "which", "no_match", "moved", "no_last"
    reminder: Reminder | None = None  # set, moved or cancelled; for "ask", the pending one
    choices: tuple[datetime, ...] = ()  # "ask": the times to choose from (aware, the user's zone)
    matches: tuple[Reminder, ...] = ()  # "which": the reminders a cancel could mean
    question: str | None = None  # "unclear" or an offered "ask": the model's question to the user, if it had one
    offered: bool = False  # "ask": times offered because no one could tell when, not a bare hour's two halves
    task: str = ""


@dataclass(frozen=True)
class ForTurn:
    """What a turn's system message zero says of reminders: those the model may see (none in a group, whose
    members must not read the user's tasks) and what the message did to them."""

    listed: tuple[Reminder, ...] = ()
    note: str | None = None


NO_REMINDERS = ForTurn()

@dataclass(frozen=True)
class ReminderSettings:
    """The settings reminders use (named as in Config: see README's configuration table)."""

    timezone: str
    model_attempt_timeout_s: float


class Reminders:
    """Sets, lists, cancels and moves a user's reminders, and delivers the due ones with `send`."""

    def __init__(
        self, facts: FactQueries, reminders: ReminderQueries, users: UserRows, model: ChatModel,
        config: ReminderSettings, clock: Callable[[], datetime], instructions: str, send: Sender | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.facts = facts
        self.reminders = reminders
        self.users = users
        self.model = model
        self.config = config
        self.clock = clock
        self.instructions = instructions  # prompts/reminder.md, for a request the rules cannot place in time
        self.send = send
        self._wake: Wake = _no_wake  # the timer that runs `sweep` (handlers/reminder_timer.py), once it starts
        self._sends = asyncio.Semaphore(CONCURRENT_SENDS)
        self.metrics = metrics or Metrics()  # what came of each reminder due, and how late the sent ones went
        # (user, chat) -> the pending reminder the bot last asked "when?" about there, and the times it offered:
        # the user's next message there may answer in words instead of pressing a button (`_answered`)
        self._asked: dict[tuple[int, int], tuple[int, tuple[datetime, ...]]] = {}

    async def zone(self, user_id: int) -> ZoneInfo:
        """Return the user's zone: chosen with /timezone, else their city's, else BOT_TIMEZONE."""
        return local_zone(await self.users.settings(user_id), await self.facts.facts(user_id), self.config.timezone)

    async def hear(
        self, user_id: int, chat_id: int, words: str, update_id: int | None = None, asker: str | None = None,
        heard_at: datetime | None = None,
    ) -> Outcome | None:
        """Act on a request about reminders in the user's own `words` and return what came of it; None when the
        words ask nothing of the kind. `chat_id` is where a reminder set now is delivered (a group mentions
        `asker`); `update_id` the message, so that a turn resumed after a crash does not set one twice.
        `heard_at`: when the message reached the bot, if known; "через 1 минуту" counts from then, not from
        whenever its turn got this far."""
        asked = self._asked.pop((user_id, chat_id), None)
        if asked is None and not CUES.search(words):
            return None
        zone = await self.zone(user_id)
        now = min(heard_at or self.clock(), self.clock()).astimezone(zone)
        if asked is not None:
            answered = await self._answered(user_id, asked, words, now)
            if answered is not None or not CUES.search(words):
                return answered
        try:
            request = read_request(words, now)
        except Exception:  # noqa: BLE001 - a bug in a rule costs the reminder, never the reply
            log.exception("the reminder rules failed on a message; answering without them")
            return None
        if request is None:
            return None
        question: str | None = None  # the model's question, when it could not say when
        offered = False
        await self.users.meet_user(user_id, self.clock())  # a first message may be a request
        if isinstance(request, CancelReminder):
            return await self._cancel(user_id, chat_id, request.about)
        if isinstance(request, MoveReminder):
            return await self._move(user_id, chat_id, request, now)
        if isinstance(request, TooOften):
            return Outcome("too_often", task=request.task)
        if isinstance(request, Unclear):
            placed = await self._ask_model(words, request.task, now)
            if isinstance(placed, Outcome):
                if not placed.task:
                    return placed
                # Neither the rules nor the model placed it: the user picks a time with a button or says one;
                # nothing is set until then, and never a guess.
                request = AskReminder(placed.task, tuple(SetReminder(placed.task, at) for at in fallback_choices(now)))
                question, offered = placed.question, True
            else:
                request = placed
        if isinstance(request, AskReminder):
            first = request.choices[0]
            pending = await self.reminders.add_reminder(
                user_id, chat_id, request.task, first.at, None, zone.key, self.clock(), asker=asker,
                update_id=update_id, state=PENDING,
            )
            choices = tuple(choice.at for choice in request.choices)
            if pending is not None:
                while len(self._asked) >= ASKED_LIMIT:  # the oldest question unanswered is dropped
                    (asked_user, asked_chat), (asked_id, _) = next(iter(self._asked.items()))
                    del self._asked[(asked_user, asked_chat)]
                    await self.reminders.drop_pending(asked_user, asked_id)
                self._asked[(user_id, chat_id)] = (pending.id, choices)
            return Outcome("ask", pending, choices, task=request.task, question=question, offered=offered)
        return await self._set(user_id, chat_id, request, zone, update_id, asker)

    async def _set(
        self, user_id: int, chat_id: int, request: SetReminder, zone: ZoneInfo, update_id: int | None,
        asker: str | None,
    ) -> Outcome:
        made = await self.reminders.add_reminder(
            user_id, chat_id, request.task, request.at, request.repeat.rule() if request.repeat else None, zone.key,
            self.clock(), asker=asker, limit=MAX_ACTIVE, update_id=update_id,
        )
        return Outcome("set", self._due(made), task=request.task) if made else Outcome("too_many", task=request.task)

    async def choose(self, user_id: int, reminder_id: int, at: datetime) -> Reminder | None:
        """Set the pending reminder the bot asked about for the chosen time (from the button: checked to be ahead,
        within FARTHEST); None when it was chosen already, or the time has passed."""
        if not self.clock() < at <= self.clock() + FARTHEST:
            return None
        return self._due(await self.reminders.activate_reminder(user_id, reminder_id, at, MAX_ACTIVE))

    async def _answered(
        self, user_id: int, asked: tuple[int, tuple[datetime, ...]], words: str, now: datetime
    ) -> Outcome | None:
        """The message after the bot asked "when?": set the pending reminder when the words are only a time (or
        the half of the day that picks one of those offered), and say so; else drop the question and return None,
        so that the words are read as any other message (a new request among them)."""
        reminder_id, choices = asked
        at = read_answer(words, choices, now)
        if at is not None and at <= self.clock() + FARTHEST:
            chosen = self._due(await self.reminders.activate_reminder(user_id, reminder_id, at, MAX_ACTIVE))
            if chosen is not None:
                return Outcome("set", chosen, task=chosen.task)
        await self.reminders.drop_pending(user_id, reminder_id)  # answered otherwise, or a button was pressed
        return None

    def wake_with(self, wake: Wake) -> None:
        """From now on, tell `wake` of each time by which a sweep must run: a reminder set or moved to then, or a
        refused send's retry (the timer that runs `sweep`, handlers/reminder_timer.py)."""
        self._wake = wake

    def _due(self, reminder: Reminder | None) -> Reminder | None:
        """Tell the timer when a reminder just set or moved is due; return it."""
        if reminder is not None and reminder.state == ACTIVE:
            self._wake(reminder.due_at)
        return reminder

    async def _within(self, user_id: int, chat_id: int) -> list[Reminder]:
        """Return the user's active reminders a message in `chat_id` may act on: all of them in their private
        chat, only those set in it in a group (whose members must not see the others' tasks)."""
        active = await self.reminders.reminders(user_id)
        return active if chat_id == user_id else [r for r in active if r.chat_id == chat_id]

    async def _cancel(self, user_id: int, chat_id: int, about: str) -> Outcome:
        active = await self._within(user_id, chat_id)
        matches = matching(active, about) if about else active
        if len(matches) == 1 and await self.reminders.cancel_reminder(user_id, matches[0].id):
            return Outcome("cancelled", matches[0])
        if len(matches) > 1:
            return Outcome("which", matches=tuple(matches[:10]), task=about)
        return Outcome("no_match", task=about)

    async def _move(self, user_id: int, chat_id: int, request: MoveReminder, now: datetime) -> Outcome:
        last = max(await self._within(user_id, chat_id), key=lambda r: r.id, default=None)  # the last one set
        if last is None:
            return Outcome("no_last")
        zone = ZoneInfo(last.zone)
        at = request.moved(last.due_at.astimezone(zone), now.astimezone(zone))
        if at is None or at <= self.clock() or not await self.reminders.move_reminder(user_id, last.id, at):
            return Outcome("unclear", last, task=last.task)
        return Outcome("moved", self._due(await self.reminders.reminder(user_id, last.id)))

    async def shift(self, user_id: int, reminder_id: int, by: timedelta) -> Reminder | None:
        """Move the user's active reminder `by` later (Change time's buttons); None when it is no longer active."""
        found = await self.reminders.reminder(user_id, reminder_id)
        if found is None or found.state != ACTIVE:
            return None
        if not await self.reminders.move_reminder(user_id, found.id, max(found.due_at, self.clock()) + by):
            return None
        return self._due(await self.reminders.reminder(user_id, found.id))

    async def snooze(self, user_id: int, reminder_id: int, by: timedelta) -> Reminder | None:
        """Remind of a delivered reminder's task again `by` from now, as a one-off of its own (a recurring one
        keeps its rule); None when it was cancelled, or the user has the most reminders they may have."""
        found = await self.reminders.reminder(user_id, reminder_id)
        if found is None or found.state == CANCELLED:
            return None
        now = self.clock()
        return self._due(await self.reminders.add_reminder(
            user_id, found.chat_id, found.task, now + by, None, found.zone, now, asker=found.asker, limit=MAX_ACTIVE))

    async def _ask_model(self, words: str, task: str, now: datetime) -> SetReminder | Outcome:
        """One small structured call for a request the rules cannot place in time; an answer that names no
        usable time becomes a question to the user."""
        messages = [
            {"role": "system", "content": self.instructions},
            {"role": "user", "content": f"Now: {now:%A, %Y-%m-%d %H:%M} ({now.tzinfo}).\nRequest: {words}"},
        ]
        try:
            raw = await self.model.complete_json(
                messages, "reminder", ANSWER_SCHEMA, max_tokens=MODEL_ANSWER_TOKENS,
                timeout=self.config.model_attempt_timeout_s, tally=Tally(), shape_shown=True,
            )
        except ModelUnavailable as error:
            log.warning("could not ask the model when to remind (%s)", type(error).__name__)
            return Outcome("unclear", task=task)
        return read_model_answer(raw, task, now, words)

    async def for_turn(self, user_id: int, private: bool) -> tuple[tuple[Reminder, ...], list[str]]:
        """Return the user's active reminders, soonest first, and the tasks of those missed while the bot was down
        that they have not been told of (told once: this clears them). One read on every message; the write only
        when something was missed. In a group neither: its members must not read the user's tasks."""
        if not private:
            return (), []
        listed = await self.reminders.reminders(user_id, missed_too=True)
        missed = await self.reminders.take_missed(user_id) if any(r.missed for r in listed) else []
        return tuple(r for r in listed if r.state == ACTIVE), missed

    async def sweep(self) -> int:
        """Send every reminder due now; return how many Telegram took."""
        now = self.clock()
        due = await self.reminders.due_reminders(now, SWEEP_LIMIT)
        sent = await asyncio.gather(*(self._deliver(reminder, now) for reminder in due))
        return sum(sent)

    async def next_due(self) -> datetime | None:
        """Return when the next sweep has something to take: the soonest reminder no machine holds (in the past
        when more are waiting than a sweep reads); None when no reminder is active."""
        return await self.reminders.next_reminder_due(self.clock())

    async def _deliver(self, reminder: Reminder, now: datetime) -> bool:
        assert self.send is not None
        async with self._sends:
            if not await self.reminders.take_reminder(reminder, now, now + CLAIM):
                return False  # another machine has it, or it changed meanwhile
            late = self.clock() - reminder.due_at
            if late > LATE_LIMIT:
                await self.reminders.skip_reminder(reminder, next_time(reminder, self.clock()))
                self.metrics.reminder("missed")
                return False
            try:
                outcome = await self.send(reminder, late if late > LATE_NOTE else None)
            except Exception:  # noqa: BLE001 - one reminder's failure must not stop the sweep
                log.exception("sending a reminder failed")
                outcome = "failed"
            self.metrics.reminder(outcome, late.total_seconds() if outcome == "sent" else None)
            if outcome == "failed":
                retry = self.clock() + RETRY
                await self.reminders.release_reminder(reminder, retry)
                self._wake(retry)
                return False
            # Blocked: it cannot arrive; a one-off is done, a recurring one waits for its next time.
            await self.reminders.finish_reminder(reminder, self.clock(), next_time(reminder, self.clock()))
            return outcome == "sent"


def next_time(reminder: Reminder, now: datetime) -> datetime | None:
    """Return when a recurring reminder is next due after `now`, stepping from its last planned time by its rule
    (so it never drifts); None for a one-off (or a rule that no longer reads)."""
    repeat = Repeat.parse(reminder.rule) if reminder.rule else None
    if repeat is None:
        return None
    at = reminder.due_at.astimezone(ZoneInfo(reminder.zone))
    for _ in range(STEPS):
        at = repeat.next_after(at)
        if at > now:
            return at
    return repeat.first_after(now.astimezone(ZoneInfo(reminder.zone)))


def matching(reminders: list[Reminder], about: str) -> list[Reminder]:
    """Return the reminders whose task shares a word with `about`, in any form ("про маму" finds "позвонить маме"),
    by recall's stems."""
    wanted = {term for term in terms(about) if len(term) > 2} - NOT_NAMES
    return [r for r in reminders if wanted & set(terms(r.task))]


NOT_NAMES = frozenset(terms("про the one about что чтобы напоминание напоминания reminder reminders"))


def fallback_choices(now: datetime) -> tuple[datetime, ...]:
    """Return the times offered on buttons when no one could tell when to remind: in an hour, this evening at
    19:00 (while that is more than an hour off), tomorrow at 09:00; `now` aware, in the user's zone."""
    in_an_hour = now + timedelta(hours=1)
    if in_an_hour.second or in_an_hour.microsecond:  # on to the next whole minute, which a button can name
        in_an_hour = in_an_hour.replace(second=0, microsecond=0) + timedelta(minutes=1)
    evening = local(now.date(), (19, 0), now.tzinfo)
    tomorrow = local(now.date() + timedelta(days=1), (9, 0), now.tzinfo)
    return (in_an_hour, *([evening] if evening > in_an_hour else []), tomorrow)


def read_model_answer(raw: str, task: str, now: datetime, words: str = "") -> SetReminder | Outcome:
    """Return the reminder the model's JSON answer names, or an "unclear" Outcome (with its question) when it
    names no time ahead within FARTHEST, or a rule that does not read.

    Checked before anything is set: the time is ahead and within FARTHEST, the rule reads ("hour/1" is taken as
    "hour"), and the task is the user's: one that shares no word with their `words` (when given) gives way to
    the rules' task, so a model that invents a task cannot set it."""
    try:
        data = first_json(raw)
    except ExtractionError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    said = str(data.get("task") or "").strip()[:500]
    task = said if said and (not words or _from_words(said, words)) else task
    question = data.get("ask") if isinstance(data.get("ask"), str) else None
    unclear = Outcome("unclear", question=question and question[:300], task=task)
    try:
        at = datetime.fromisoformat(str(data.get("at"))).replace(tzinfo=now.tzinfo, second=0, microsecond=0)
    except ValueError:
        return unclear
    rule = re.sub(r"^(\w+)/1\b", r"\1", data["repeat"].strip()) if isinstance(data.get("repeat"), str) else None
    repeat = Repeat.parse(rule) if rule else None
    if data.get("repeat") and repeat is None:
        return unclear
    if not now < at <= now + FARTHEST:
        return unclear
    return SetReminder(task, at, repeat)


def _from_words(task: str, words: str) -> bool:
    """True when `task` shares a word (stemmed) with the user's `words`."""
    return bool(set(terms(task)) & set(terms(words)))


NOTES = {
    "set": "they asked for a reminder, and it is now set (listed above): {task}.",
    "moved": "they moved a reminder; it is now as listed above: {task}.",
    "cancelled": "they cancelled the reminder {task}; it is gone.",
    "ask": "they asked for a reminder of {task}; the bot asked them which time. Nothing is set until they choose.",
    "unclear": "they asked about a reminder, but no time could be understood; the bot asked them when. Nothing"
               " changed.",
    "too_many": "they asked for a reminder, but it is not set: they have the most a user may have, 50.",
    "too_often": "they asked for a reminder repeating more often than once an hour: not set, the bot said so.",
    "which": "they asked to cancel a reminder; several match, and the bot asked which. None is cancelled yet.",
    "no_match": "they asked to cancel a reminder, but none of theirs matches: nothing changed.",
    "no_last": "they asked to move a reminder, but they have none: nothing changed.",
}


def model_note(outcome: Outcome) -> str:
    """Return what the message did to the user's reminders, for system message zero (the bot's own line has
    already told them)."""
    task = outcome.reminder.task if outcome.reminder is not None else outcome.task
    return NOTES[outcome.kind].format(task=quote(task) if task else "(no task named)")
