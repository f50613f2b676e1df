"""Memory upkeep off the reply path: the LLM reads a user's unread messages and merges what it finds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Awaitable, Callable, Iterator, Protocol, Sequence
from zoneinfo import ZoneInfo

from llm.client import AnswerCut, ModelUnavailable, Tally, TooLong
from llm.gate import Preempted
from memory.changes import Forgotten
from memory.continuity import continues, conversation_topic, first_conversation
from memory.extract.extractor import MIN_PROMPT_TOKENS, LLMExtractor
from memory.extract.extractor_answer import ExtractionError, parse_cut_answer
from memory.facts import Extraction, Fact, memory_enabled
from memory.recall.embeddings import EmbeddingsMissing
from memory.recall.recaller import FactRecaller
from memory.store.claims import ClaimQueries
from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.scope_rows import ScopeQueries
from memory.store.topic_rows import TopicQueries
from memory.store.user_rows import UserRows
from memory.time.schedule import local_zone, plan_followup
from metrics import Metrics

log = logging.getLogger(__name__)

CONCURRENT_EXTRACTIONS = 4
CLAIM = timedelta(minutes=15)  # on PostgreSQL, how long a machine keeps a user's extraction pass to itself


class Forgets(Protocol):
    """What carries out the forget requests the model finds: the Forgetter of services/forgetting.py, where every way
    to forget lives (with Undo, the session scrubbed)."""

    async def forget(self, user_id: int, facts: Sequence[Fact]) -> Forgotten: ...


@dataclass(frozen=True)
class KeeperSettings:
    """The settings the keeper uses (named as in Config: see README's configuration table)."""

    memory_extract_delay_s: float
    memory_extract_every: int
    memory_retry_s: float
    memory_batch: int
    memory_max_facts: int
    memory_max_topics: int
    conversation_gap_minutes: float
    followup_after_hours: float
    timezone: str


class MemoryKeeper:
    """Runs LLM extraction, one pass per user at a time and a few users at once; nothing is stored half-way."""

    def __init__(
        self,
        claims: ClaimQueries, facts: FactQueries, scopes: ScopeQueries, topics: TopicQueries, users: UserRows,
        extractor: LLMExtractor,
        config: KeeperSettings,
        clock: Callable[[], datetime],
        recaller: FactRecaller | None = None,
        on_learned: Callable[[int, list[Fact]], Awaitable[None]] | None = None,
        forgetter: Forgets | None = None,
        on_forgotten: Callable[[int, Forgotten], Awaitable[None]] | None = None,
        *,
        meter: UsageMeter,
        metrics: Metrics | None = None,
    ) -> None:
        self.claims = claims
        self.facts = facts
        self.scopes = scopes
        self.topics = topics
        self.users = users
        self.meter = meter  # counts the tokens each pass costs
        self.metrics = metrics or Metrics()  # counts the facts each pass writes
        self.extractor = extractor
        self.config = config
        self.clock = clock
        self.recaller = recaller  # embeds what was learned
        self.on_learned = on_learned  # told about new facts (the handlers' "✎ remembered" notes)
        self.forgetter = forgetter  # carries out the forget requests the model finds
        self.on_forgotten = on_forgotten  # told what went (the handlers' confirmation with Undo)
        self._running: set[int] = set()
        self._slots = asyncio.Semaphore(CONCURRENT_EXTRACTIONS)
        # After a failure a user waits memory_retry_s; kept in memory, so a restart simply tries once more.
        self._retry_at: dict[int, float] = {}
        # Set on shutdown: passes still waiting for a slot give up (their messages stay unread for next time).
        self.stopping = asyncio.Event()
        # Users in a turn now, and when each last had a reply delivered (seconds since the epoch): the idle delay
        # counts from the delivered reply, not from the message (a slow model's reply may take a minute).
        self._talking: dict[int, int] = {}
        self._replied_at: dict[int, float] = {}

    @contextlib.contextmanager
    def conversation(self, user_id: int) -> Iterator[None]:
        """Hold the user's extraction pass off while their turn runs; the idle delay starts when it ends."""
        self._talking[user_id] = self._talking.get(user_id, 0) + 1
        try:
            yield
        finally:
            self._talking[user_id] -= 1
            if not self._talking[user_id]:
                del self._talking[user_id]
            self._replied_at[user_id] = self.clock().timestamp()

    @property
    def passes(self) -> int:
        """How many extraction passes run now."""
        return len(self._running)

    def idle(self, user_id: int, idle_since: float) -> bool:
        """True when the user is in no turn and had no reply delivered after `idle_since` (epoch seconds)."""
        return user_id not in self._talking and self._replied_at.get(user_id, 0.0) <= idle_since

    def extracts_now(self, unread: int) -> bool:
        """True when a turn leaves a multiple of MEMORY_EXTRACT_EVERY unread messages: extract without waiting
        for the user to fall idle. Only at the multiple: a pass takes a while, and the next turns must not
        queue more."""
        return bool(unread) and unread % self.config.memory_extract_every == 0

    def embeds_now(self, user_id: int, learned: bool) -> bool:
        """True when a turn is to be followed by an embedding pass, which only an in-process model has: the turn
        learned facts, or its recall found facts without a vector (after an embedding outage or a change of
        model; a remote model takes those along with the next queries instead)."""
        recaller = self.recaller
        return recaller is not None and recaller.embeds_eagerly and (learned or recaller.lacks_vectors(user_id))

    async def sweep(self) -> None:
        """Extract for every user who has been idle long enough and has unread messages."""
        idle_since = self.clock().timestamp() - self.config.memory_extract_delay_s
        found = await self.facts.users_due_for_extraction(datetime.fromtimestamp(idle_since, timezone.utc))
        due = iter([user_id for user_id in found if self.idle(user_id, idle_since)])
        self._replied_at = {user: at for user, at in self._replied_at.items() if at > idle_since}  # stays small

        async def work_through() -> None:  # as many as may extract at once take the next user, until none is left
            for user_id in due:
                await self.extract_quietly(user_id)

        # Not one task per user: after a restart 10,000 may be due, and their waiting tasks held about 10 MiB
        # (bench/memory.py, issue 27).
        await asyncio.gather(*(work_through() for _ in range(CONCURRENT_EXTRACTIONS)))

    async def extract_quietly(self, user_id: int) -> list[Fact]:
        """Extract for one user unless a pass is already running or a failure is recent; log the outcome."""
        if user_id in self._running or self._retry_at.get(user_id, 0) > time.monotonic():
            return []
        shared = self.claims.on_postgres  # other machines may extract too: take the user's pass first
        if shared and not await self.claims.claim_extraction(user_id, self.clock(), self.clock() + CLAIM):
            return []
        self._running.add(user_id)
        retry_at = None  # after a failure, no machine tries again before this
        work = Pass(started=time.monotonic())
        try:
            async with self._slots:
                if self.stopping.is_set():
                    return []
                saved = await self.extract_pending(user_id, work)
        except Stopped:
            return []
        except Preempted:
            # A conversation needed the model server's slot: nothing was kept, the messages stay unread, and
            # the pass comes again once the user has been idle MEMORY_EXTRACT_DELAY_SECONDS after that reply.
            log.info("a memory pass gave way to a conversation; it comes again when the user is idle")
            return []
        except (ModelUnavailable, ExtractionError, TooLong) as error:
            log.warning("fact extraction failed (%s: %s); trying again in %.0fs", type(error).__name__, error,
                        self.config.memory_retry_s)
            self._retry_at[user_id] = time.monotonic() + self.config.memory_retry_s
            retry_at = self.clock() + timedelta(seconds=self.config.memory_retry_s)
            return []
        finally:
            self._running.discard(user_id)
            if shared:
                await self.claims.release_extraction(user_id, retry_at)
        self._retry_at.pop(user_id, None)
        self.metrics.memory_written("llm", len(saved))
        if work.calls:
            log.info("memory: %s", work.summary(len(saved)))
        if saved:
            await self.embed_learned(user_id)
        if saved and self.on_learned is not None:
            await self.on_learned(user_id, saved)
        for forgotten in work.forgotten:
            if forgotten.facts and self.on_forgotten is not None:
                await self.on_forgotten(user_id, forgotten)
        return saved

    async def embed_learned(self, user_id: int) -> int:
        """Embed the user's facts that lack a vector (the newly learned ones, and any an outage or a change of model
        left) now with an in-process model; return how many. A remote one takes them with the next queries."""
        if self.recaller is None or not self.recaller.embeds_eagerly:
            return 0
        return await self.embed_quietly(user_id)

    async def embed_quietly(self, user_id: int) -> int:
        """Embed the user's facts that lack a vector; an error is logged and left for a later pass."""
        if self.recaller is None:
            return 0
        try:
            return await self.recaller.embed_missing(user_id)
        except (EmbeddingsMissing, Preempted):  # none on the server, or a conversation took its slot: later
            return 0
        except Exception as error:  # noqa: BLE001 - embedding is an optimisation; recall falls back without it
            log.warning("embedding facts failed (%s); trying again later", type(error).__name__)
            return 0

    def _planner(self, zone: ZoneInfo, now: datetime, pending: list[dict]) -> Callable[[Fact], datetime | None]:
        """Return when to write first about a fact found in `pending`, judged against the message that told it."""
        # "Today at 10", said at 9:50 and read at 10:05, was still ahead when it was told.
        told = {message["id"]: message["at"] for message in pending}
        after = self.config.followup_after_hours
        return lambda fact: plan_followup(fact, zone, told.get(fact.source_message_id, now), after)

    async def extract_pending(self, user_id: int, work: Pass | None = None) -> list[Fact]:
        """Read the user's unread messages in batches and save the facts found; return the new or changed ones.

        A batch never spans two conversations, so each pass also writes (or rewrites) one conversation's topic
        line, and its prompt fits the extractor's budget: what does not fit waits for the next batch. A server
        that finds a prompt too long (or the answer does not fit its cap) gets half as many messages. Errors
        from the model or its output propagate; the messages stay unread and are tried again later.
        """
        work = work if work is not None else Pass(started=time.monotonic())
        saved: list[Fact] = []
        gap = timedelta(minutes=self.config.conversation_gap_minutes)
        most, budget = self.config.memory_batch, None  # lowered when the server finds a batch too long
        while True:
            forgets_seen = await self.facts.forget_count(user_id)  # before reading: a forget since voids the pass
            pending = await self.facts.pending_messages(user_id, self.config.memory_batch)
            if not pending:
                return saved
            batch = first_conversation(pending, gap)[:most]
            owner = await self.scopes.owner_of(user_id)  # a member's memory in a group: their settings, their day
            settings = await self.users.settings(owner)
            known = await self.facts.facts(user_id)
            zone = local_zone(settings, known, self.config.timezone)
            ongoing = None
            if memory_enabled(settings) and any(message["role"] == "user" for message in batch):
                latest = await self.topics.topics(user_id, 1)
                first_said = next(message["at"] for message in batch if message["role"] == "user")
                ongoing = latest[0] if latest and continues(latest[0], first_said, gap) else None
                batch = self.extractor.fit(batch, known, zone, ongoing.text if ongoing else None, budget)
                work.calls += 1
                tally = Tally()
                try:
                    extraction = await self._unless_stopping(self.extractor.extract(
                        batch, known, zone, ongoing.text if ongoing else None, tally=tally
                    ))
                except AnswerCut as error:
                    if len(batch) > 1:
                        most = self._halved(batch, error)
                        continue
                    # One message whose answer still runs past the cap: keep its whole facts, go on.
                    extraction = parse_cut_answer(error.text, {batch[0]["id"]}, known)
                except TooLong as error:
                    most, budget = self._smaller(batch, budget, error)
                    continue
                finally:  # an answer that could not be read was still paid for
                    work.tokens += tally.tokens
                    work.estimated = work.estimated or tally.estimated
                    await self.meter.record_usage(owner, self.clock(), tokens=tally.tokens, while_stored=True)
            else:  # memory is off, or only the bot's own replies: nothing to learn; mark them read
                extraction = Extraction()
            said = [message["at"] for message in batch if message["role"] == "user"]
            work.read += len(said)
            now = self.clock()
            saved += await self.facts.save_facts(
                user_id, extraction, now, self.config.memory_max_facts, extracted_upto=batch[-1]["id"],
                plan=self._planner(zone, now, batch), topic=conversation_topic(extraction.topics, ongoing, said),
                max_topics=self.config.memory_max_topics, forgets_seen=forgets_seen,
            )
            if extraction.forget and self.forgetter is not None:
                meant = [fact for fact in await self.facts.facts(user_id) if fact.key in extraction.forget]
                if meant:
                    work.forgotten.append(await self.forgetter.forget(user_id, meant))
            if len(batch) == len(pending) and len(pending) < self.config.memory_batch:
                return saved

    async def _unless_stopping(self, call: Awaitable[Extraction]) -> Extraction:
        """Return what `call` returns; at shutdown, give it up (a slow server's answer may be minutes away)."""
        task = asyncio.ensure_future(call)
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise Stopped("the bot is stopping; the messages stay unread for next time")
        return task.result()

    @staticmethod
    def _halved(batch: list[dict], error: TooLong) -> int:
        log.info("an extraction batch of %d messages was too long (%s); reading half as many", len(batch), error)
        return len(batch) // 2

    def _smaller(self, batch: list[dict], budget: int | None, error: TooLong) -> tuple[int, int | None]:
        """Return the batch size and prompt budget to try after `error`: half the messages, or for a single
        message half the prompt (its text is shortened); raise TooLong when even that cannot get smaller."""
        if len(batch) > 1:
            return self._halved(batch, error), budget
        budget = (budget or self.extractor.prompt_budget()) // 2
        if budget < MIN_PROMPT_TOKENS:
            raise error
        log.info("an extraction prompt was too long (%s); shortening the message to %d tokens", error, budget)
        return 1, budget


class Stopped(Exception):
    """A pass given up at shutdown."""


@dataclass
class Pass:
    """What one extraction pass did, for its log line."""

    started: float
    calls: int = 0
    read: int = 0  # the user's messages read
    tokens: int = 0
    estimated: bool = False
    forgotten: list[Forgotten] = field(default_factory=list)  # what the model's forget requests removed

    def summary(self, learned: int) -> str:
        """Return the pass as one line: facts learned, messages read, model calls, tokens and seconds."""
        tokens = f"{'~' if self.estimated else ''}{self.tokens} tokens"
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        seconds = time.monotonic() - self.started
        return f"learned {learned} facts from {self.read} messages ({calls}, {tokens}, {seconds:.1f} s)"
