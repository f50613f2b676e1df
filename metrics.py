"""What the bot counts for Prometheus: turns, first-words latency, model errors and tokens, reminders, messages
written first, memory writes, and the inbox; docs/metrics.md names every metric.

`Metrics` records nothing: the bot runs with it when METRICS=off, and a service built without metrics (in the
tests) gets it. `PrometheusMetrics` records into a registry of its own that bot.py builds once and the web server
serves (transport/web.py), never into prometheus_client's global one: several bots in one process (the
tests) keep apart. Labels take only values from short fixed lists (or the models named in the settings), never a
user's or a chat's id: a value outside its list is counted as "other".
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

log = logging.getLogger(__name__)
PREFIX = "companion_"
TURN_OUTCOMES = ("answered", "limited", "forget", "model_failure")
# How a model request failed, as llm/errors.py's error_kind names it.
ERROR_KINDS = ("timeout", "connection", "rate_limited", "server_error", "auth", "refused", "too_long",
               "stream_broken", "empty", "other")
TOKEN_KINDS = ("prompt", "completion")
REMINDER_OUTCOMES = ("sent", "blocked", "failed", "missed")
WRITTEN_FIRST_KINDS = ("followup", "birthday", "checkin")
MEMORY_SOURCES = ("rule", "llm", "page")
OTHER = "other"
# From a message's arrival to its first words on the screen: a first draft comes 0.15 s after the model's first
# words; a local model on a small machine may take tens of seconds.
FIRST_WORDS_BUCKETS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 30.0, 60.0)
# A reminder goes within a second of its time when the bot runs; later after a restart or an outage (up to the
# LATE_LIMIT of services/reminders.py, past which it is missed).
LATENESS_BUCKETS = (0.5, 1.0, 2.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 4 * 3600.0, 12 * 3600.0)
MEMORIES_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 20, 30, 50)
READING_TIMEOUT_S = 2.0  # a gauge read at scrape time that takes longer keeps its last value


def bounded(value: str, allowed: tuple[str, ...]) -> str:
    """Return `value` when it is one of `allowed`, else "other": a label never takes an unforeseen value."""
    return value if value in allowed else OTHER


class Metrics:
    """The bot's metrics, recorded nowhere (METRICS=off, and services built without metrics)."""

    records = False  # whether anything is recorded: work done only for a metric is skipped while it is not
    content_type = "text/plain; charset=utf-8"  # of exposition()

    def turn(self, outcome: str) -> None:
        """Count a turn by how it ended: one of TURN_OUTCOMES."""

    def first_words(self, arrived: float | None) -> Callable[[], None]:
        """Return what to call when a turn's first words are on the screen (its first draft, or the reply): the
        first call observes the seconds since `arrived` (time.monotonic() when the update reached the bot; None:
        not known, nothing is observed), later calls nothing."""
        return _nothing

    def model_error(self, model: str, kind: str, *, retried: bool) -> None:
        """Count a failed model request by its kind (ERROR_KINDS); `retried`: an attempt that is tried again, not
        the request given up."""

    def tokens(self, model: str, prompt: int, completion: int) -> None:
        """Count one completion's tokens (the server's usage, or the estimate where it reports none)."""

    def reminder(self, outcome: str, late: float | None = None) -> None:
        """Count a reminder due by what came of it (REMINDER_OUTCOMES); `late`: seconds after its time it was sent."""

    def wrote_first(self, kind: str) -> None:
        """Count a message the companion wrote first and Telegram took, by kind (WRITTEN_FIRST_KINDS)."""

    def memory_written(self, source: str, count: int = 1) -> None:
        """Count `count` facts written to memory, by who wrote them: "rule", "llm" or "page" (MEMORY_SOURCES)."""

    def marked_wrong(self) -> None:
        """Count a ✗ mark: the user said a memory shown to them is wrong."""

    def memories_used(self, count: int) -> None:
        """Observe how many memories went into one reply's prompt."""

    async def exposition(self) -> bytes:
        """Return the metrics in Prometheus's text format (nothing is recorded here, so nothing)."""
        return b""


def _nothing() -> None:
    """Nothing to observe."""


class PrometheusMetrics(Metrics):
    """The bot's metrics in `registry`; `inbox_waiting` is read at each scrape (a cheap count in the database)."""

    records = True

    def __init__(self, registry: CollectorRegistry | None = None,
                 inbox_waiting: Callable[[], Awaitable[int]] | None = None) -> None:
        # Imported only here, with METRICS=on: the client costs about 1.5 MiB resident that a bot without metrics
        # need not carry (as asyncpg is imported only for PostgreSQL). Not a circle hidden: nothing of ours is in it.
        from prometheus_client import (
            CONTENT_TYPE_PLAIN_0_0_4,
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            ProcessCollector,
            generate_latest,
        )

        self.registry = registry if registry is not None else CollectorRegistry()
        registry = self.registry
        self.content_type = CONTENT_TYPE_PLAIN_0_0_4
        self._generate = generate_latest
        self._turns = Counter(PREFIX + "turns", "Turns, by how they ended", ["outcome"], registry=registry)
        self._first_words = Histogram(
            PREFIX + "first_words_seconds", "Seconds from a message reaching the bot to its first words on the"
            " screen: the first draft in a private chat, else the reply sent", buckets=FIRST_WORDS_BUCKETS,
            registry=registry)
        self._model_errors = Counter(PREFIX + "model_errors", "Model requests given up (the caller got no answer),"
                                     " by model and kind", ["model", "kind"], registry=registry)
        self._model_retries = Counter(PREFIX + "model_retries", "Model attempts that failed and were tried again,"
                                      " by model and kind", ["model", "kind"], registry=registry)
        self._tokens = Counter(PREFIX + "model_tokens", "Tokens of completions, by model and kind (prompt or"
                               " completion)", ["model", "kind"], registry=registry)
        self._reminders = Counter(PREFIX + "reminders", "Reminders due, by what came of them", ["outcome"],
                                  registry=registry)
        self._lateness = Histogram(PREFIX + "reminder_lateness_seconds", "Seconds after its time a reminder was"
                                   " sent", buckets=LATENESS_BUCKETS, registry=registry)
        self._written_first = Counter(PREFIX + "written_first", "Messages the companion wrote first that Telegram"
                                      " took, by kind", ["kind"], registry=registry)
        self._memory_writes = Counter(PREFIX + "memory_writes", "Facts written to memory, by source", ["source"],
                                      registry=registry)
        self._marked_wrong = Counter(PREFIX + "marked_wrong", "Memories a user marked wrong", registry=registry)
        self._memories_used = Histogram(PREFIX + "memories_used", "Memories in one reply's prompt",
                                        buckets=MEMORIES_BUCKETS, registry=registry)
        self._inbox_waiting = Gauge(PREFIX + "inbox_waiting", "Updates recorded in the inbox and not handled yet"
                                    " (read at the scrape)", registry=registry)
        self._read_inbox = inbox_waiting
        ProcessCollector(registry=registry)  # the process's CPU, memory and open files, read at the scrape
        # Every fixed label value shows from the start, at 0: a rate over a series that appears late misses its
        # first increase.
        for values, counter in ((TURN_OUTCOMES, self._turns), (REMINDER_OUTCOMES, self._reminders),
                                (WRITTEN_FIRST_KINDS, self._written_first), (MEMORY_SOURCES, self._memory_writes)):
            for value in values:
                counter.labels(value)

    def turn(self, outcome: str) -> None:
        self._turns.labels(bounded(outcome, TURN_OUTCOMES)).inc()

    def first_words(self, arrived: float | None) -> Callable[[], None]:
        if arrived is None:
            return _nothing
        observed = False

        def shown() -> None:
            nonlocal observed
            if not observed:
                observed = True
                self._first_words.observe(max(0.0, time.monotonic() - arrived))

        return shown

    def model_error(self, model: str, kind: str, *, retried: bool) -> None:
        counter = self._model_retries if retried else self._model_errors
        counter.labels(model, bounded(kind, ERROR_KINDS)).inc()

    def tokens(self, model: str, prompt: int, completion: int) -> None:
        self._tokens.labels(model, "prompt").inc(max(0, prompt))
        self._tokens.labels(model, "completion").inc(max(0, completion))

    def reminder(self, outcome: str, late: float | None = None) -> None:
        self._reminders.labels(bounded(outcome, REMINDER_OUTCOMES)).inc()
        if late is not None:
            self._lateness.observe(max(0.0, late))

    def wrote_first(self, kind: str) -> None:
        self._written_first.labels(bounded(kind, WRITTEN_FIRST_KINDS)).inc()

    def memory_written(self, source: str, count: int = 1) -> None:
        if count > 0:
            self._memory_writes.labels(bounded(source, MEMORY_SOURCES)).inc(count)

    def marked_wrong(self) -> None:
        self._marked_wrong.inc()

    def memories_used(self, count: int) -> None:
        self._memories_used.observe(max(0, count))

    async def exposition(self) -> bytes:
        if self._read_inbox is not None:
            try:
                async with asyncio.timeout(READING_TIMEOUT_S):
                    self._inbox_waiting.set(await self._read_inbox())
            except Exception as error:  # noqa: BLE001 - a database away must not cost the other metrics
                log.warning("could not count the inbox's waiting updates for /metrics: %s", type(error).__name__)
        return self._generate(self.registry)
