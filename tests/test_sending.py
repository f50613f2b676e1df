"""The gate every request to Telegram passes: backoff, outages, 429s, moments dropped; the rate's arithmetic."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time

import pytest
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut

from transport.send_budget import MOMENT_PATIENCE_S, Budget, TokenBucket
from transport.sending import (
    DELIVERY,
    Delivery,
    Outage,
    RealTime,
    SendGate,
    SendPostponed,
    backoff,
)
from transport.transport_store import TransportStore

SENDING = "transport.sending"


@pytest.fixture
async def transport(store):
    """The transport's store over the test's database (SQLite, and PostgreSQL, as `store` is)."""
    return await TransportStore.open(store.backend)


class FakeTime(RealTime):
    """Time that passes only when slept."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, delay: float, wake: asyncio.Event | None = None) -> None:
        self.slept.append(delay)
        self.t += delay
        await asyncio.sleep(0)


class Telegram:
    """Answers each call with the next of `outcomes` (an exception is raised); the last one repeats."""

    def __init__(self, *outcomes: object) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0

    async def __call__(self) -> object:
        self.calls += 1
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def gate(retry_for: float = 600.0, budget: Budget | None = None) -> SendGate:
    return SendGate(budget, Outage(retry_for, FakeTime()))


async def send(gate: SendGate, telegram: Telegram, endpoint: str = "sendMessage", chat: object = 1) -> object:
    data = {} if chat is None else {"chat_id": chat}
    return await gate.process_request(telegram, (), {}, endpoint, data, None)


def outage_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == SENDING and r.levelno == logging.WARNING]


def test_backoff_doubles_from_one_second_up_to_thirty():
    assert [backoff(attempt) for attempt in range(9)] == [1, 2, 4, 8, 16, 30, 30, 30, 30]
    assert backoff(10_000) == 30


async def test_a_request_telegram_cannot_take_is_retried_with_backoff_until_it_goes(caplog):
    caplog.set_level(logging.INFO)
    the_gate, telegram = gate(), Telegram(NetworkError("Bad Gateway"), TimedOut(), NetworkError("x"), "sent")
    assert await send(the_gate, telegram) == "sent"
    assert telegram.calls == 4 and the_gate.outage.time.slept == [1, 2, 4]
    started, ended = outage_lines(caplog)
    assert "not taking requests (NetworkError: Bad Gateway)" in started and "up to 10 minutes" in started
    assert ended == "Telegram takes requests again after 7 s (3 failed meanwhile)"
    assert the_gate.outage.since is None and the_gate.outage.over.is_set()


async def test_past_the_retry_window_the_update_is_postponed_not_lost():
    the_gate, telegram = gate(retry_for=60), Telegram(NetworkError("Bad Gateway"))
    delivery = Delivery()
    token = DELIVERY.set(delivery)
    try:
        with pytest.raises(SendPostponed):
            await send(the_gate, telegram)
    finally:
        DELIVERY.reset(token)
    # 1 + 2 + 4 + 8 + 16 = 31 s; the next wait (30 s) would end past the 60 s window
    assert the_gate.outage.time.slept == [1, 2, 4, 8, 16] and telegram.calls == 6
    assert delivery.postponed


async def test_no_retry_window_postpones_at_the_first_failure():
    the_gate, telegram = gate(retry_for=0), Telegram(NetworkError("Bad Gateway"))
    with pytest.raises(SendPostponed):
        await send(the_gate, telegram)
    assert telegram.calls == 1 and the_gate.outage.time.slept == []


async def test_a_stopping_bot_gives_up_at_once_so_the_update_is_replayed_at_the_next_start():
    the_gate, telegram = gate(), Telegram(NetworkError("Bad Gateway"))
    the_gate.outage.stop()
    with pytest.raises(SendPostponed):
        await send(the_gate, telegram)
    assert telegram.calls == 1


@pytest.mark.parametrize("refusal", [BadRequest("Bad Request: chat not found"), RetryAfter(5)])
async def test_a_refusal_is_the_callers_and_a_429_is_waited_for(refusal, caplog):
    the_gate, telegram = gate(), Telegram(refusal, "sent")
    if isinstance(refusal, BadRequest):
        with pytest.raises(BadRequest):
            await send(the_gate, telegram)
        assert telegram.calls == 1
    else:
        assert await send(the_gate, telegram) == "sent"
        assert the_gate.outage.time.slept == [pytest.approx(5.1)]
    assert outage_lines(caplog) == [] and the_gate.outage.since is None


async def test_a_429_pauses_its_own_chat_only():
    the_gate = gate()
    assert await send(the_gate, Telegram(RetryAfter(5), "sent"), chat=1) == "sent"
    slept = list(the_gate.outage.time.slept)
    the_gate._pause(1, 3.0)  # Telegram asked chat 1 to wait 3 s more
    assert await send(the_gate, Telegram("sent"), chat=2) == "sent"
    assert the_gate.outage.time.slept == slept  # chat 2 did not wait
    assert await send(the_gate, Telegram("sent"), chat=1) == "sent"
    assert the_gate.outage.time.slept == [*slept, pytest.approx(3.0)]


@pytest.mark.parametrize("endpoint", ["sendChatAction", "sendMessageDraft", "answerCallbackQuery"])
async def test_a_moments_signal_is_never_retried_and_during_an_outage_never_tried(endpoint):
    the_gate = gate()
    typing = Telegram(NetworkError("Bad Gateway"))
    assert await send(the_gate, typing, endpoint) is True  # dropped, not raised
    assert typing.calls == 1 and the_gate.outage.since is not None  # the outage is noticed
    later = Telegram(True)
    assert await send(the_gate, later, endpoint) is True
    assert later.calls == 0 and the_gate.outage.time.slept == []


async def test_start_up_calls_go_once():
    the_gate, telegram = gate(), Telegram(NetworkError("Bad Gateway"), True)
    with pytest.raises(NetworkError):
        await send(the_gate, telegram, "setMyCommands", chat=None)
    assert telegram.calls == 1


async def test_many_waiting_replies_make_one_warning_when_the_outage_starts_and_one_when_it_ends(caplog):
    caplog.set_level(logging.INFO)
    the_gate = gate()
    telegrams = [Telegram(NetworkError("Bad Gateway"), NetworkError("Bad Gateway"), "sent") for _ in range(50)]
    results = await asyncio.gather(*(send(the_gate, telegram, chat=n) for n, telegram in enumerate(telegrams)))
    assert results == ["sent"] * 50
    assert len(outage_lines(caplog)) == 2


def test_a_full_bucket_lets_a_burst_through_then_one_request_per_tick():
    bucket = TokenBucket(rate=30, burst=30, now=0.0)
    waits = [bucket.take(0.0) for _ in range(33)]
    assert waits[:30] == [0.0] * 30
    assert waits[30:] == pytest.approx([1 / 30, 2 / 30, 3 / 30])


def test_takers_in_debt_queue_up_so_the_rate_holds_whoever_takes():
    bucket = TokenBucket(rate=30, burst=30, now=0.0)
    waits = [bucket.take(0.0) for _ in range(330)]
    assert waits[-1] == pytest.approx(10.0)  # 300 past the burst, at 30 a second
    assert bucket.take(10.0) == pytest.approx(1 / 30)  # at 10 s the queue has drained to this one's turn


def test_an_idle_bucket_saves_up_no_more_than_its_burst_and_a_clock_going_back_adds_nothing():
    bucket = TokenBucket(rate=30, burst=30, now=0.0)
    for _ in range(30):
        bucket.take(0.0)
    assert bucket.take(-5.0) == pytest.approx(1 / 30)  # time went back: no refill
    waits = [bucket.take(100.0) for _ in range(31)]
    assert waits[:30] == [0.0] * 30 and waits[30] == pytest.approx(1 / 30)


def test_refill_is_proportional_to_the_time_passed():
    bucket = TokenBucket(rate=10, burst=1, now=0.0)
    assert bucket.take(0.0) == 0.0
    assert bucket.take(0.05) == pytest.approx(0.05)  # half a token back, half a tick to wait
    assert bucket.take(0.2) == pytest.approx(0.0)  # 0.15 s more: 1.5 tokens, the half owed paid back first


class Unreachable:
    """A store whose shared bucket cannot be read for the first `failures` takes."""

    def __init__(self, failures: int) -> None:
        self.failures = failures

    async def take_send_token(self, rate: float, burst: float, queue: bool = True) -> float:
        if self.failures:
            self.failures -= 1
            raise sqlite3.OperationalError("database is locked")
        return 0.25


async def test_a_shared_bucket_that_cannot_be_read_falls_back_to_the_local_one_and_says_so_once(caplog):
    budget = Budget(30, burst=30, clock=lambda: 0.0, shared=Unreachable(failures=2))  # type: ignore[arg-type]
    assert [await budget.take(), await budget.take(), await budget.take()] == [0.0, 0.0, 0.25]
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 2
    assert "cannot be read (OperationalError)" in lines[0] and "can be read again" in lines[1]


async def test_the_shared_bucket_in_the_database_takes_one_token_a_call(transport):
    waits = [await transport.take_send_token(1.0, 3.0) for _ in range(5)]
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert 0.9 < waits[3] <= 1.0 and 1.9 < waits[4] <= 2.0  # in debt: one second each, less what passed
    assert await transport.take_send_token(1.0, 3.0, queue=False) is None  # a moment's signal does not queue
    assert 2.8 < await transport.take_send_token(1.0, 3.0) <= 3.0  # and it took nothing


async def test_a_moments_signal_takes_from_a_fresh_shared_bucket_only_once_it_exists(transport):
    assert await transport.take_send_token(30.0, 30.0, queue=False) is None  # no row yet: the first reply makes it
    assert await transport.take_send_token(30.0, 30.0) == 0.0
    assert await transport.take_send_token(30.0, 30.0, queue=False) == 0.0


def test_a_moments_signal_takes_a_token_only_if_one_is_there_and_never_queues():
    bucket = TokenBucket(rate=10, burst=2, now=0.0)
    assert bucket.take(0.0, queue=False) == 0.0 and bucket.take(0.0, queue=False) == 0.0
    assert bucket.take(0.0, queue=False) is None  # none left: dropped, nothing owed
    assert bucket.take(0.0) == pytest.approx(0.1)  # a reply queues: one tick, as if the signal never asked
    assert bucket.take(0.05, queue=False) is None  # a queue is waiting: the signal is dropped
    assert bucket.take(0.3, queue=False) == 0.0  # the queue has drained and a token has come back


class FakeClock:
    """The budget's clock and sleep: time passes only when slept; every sleep is recorded."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, delay: float) -> None:
        self.slept.append(delay)
        self.t += delay
        await asyncio.sleep(0)


def fake_budget(rate: float = 30) -> tuple[Budget, FakeClock]:
    clock = FakeClock()
    return Budget(rate, clock=clock.now, sleep=clock.sleep), clock


async def test_a_typing_signal_just_after_a_reply_took_the_only_token_goes_within_a_tick():
    budget, clock = fake_budget()
    assert await budget.take() == 0.0  # the reply takes the one token saved up
    clock.t = 0.005
    assert await budget.take(queue=False) == 0.0
    assert clock.t - 0.005 <= 1 / 30 + 1e-9  # it went as soon as the bucket had refilled one token
    assert len(clock.slept) == 2  # looked twice more, every half tick


async def test_a_bot_over_its_rate_drops_the_signal_after_a_second_and_the_replies_wait_no_longer():
    budget, clock = fake_budget()
    reference = TokenBucket(30, 1, 0.0)  # the same replies, without the signal
    for _ in range(45):  # 44 past the saved token: the queue runs 1.47 s, longer than a signal may look
        assert await budget.take() == pytest.approx(reference.take(0.0))
    assert await budget.take(queue=False) is None
    assert clock.t == pytest.approx(MOMENT_PATIENCE_S, abs=1 / 60)  # it looked for a second, no longer
    assert await budget.take() == pytest.approx(reference.take(clock.t))  # and took nothing


async def test_a_signal_cancelled_while_it_looks_leaves_no_gap_in_the_queue():
    budget, clock = fake_budget()
    reference = TokenBucket(30, 1, 0.0)
    assert await budget.take() == reference.take(0.0)
    looking = asyncio.create_task(budget.take(queue=False))
    while not clock.slept and not looking.done():  # it found no token and waits to look again
        await asyncio.sleep(0)
    looking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await looking
    assert await budget.take() == pytest.approx(reference.take(clock.t))  # the next reply waits as if it never came
    clock.t = 1.0
    assert await budget.take(queue=False) == 0.0  # and the next signal may look


async def test_signals_waiting_together_go_one_a_tick_in_the_order_they_came():
    budget, clock = fake_budget()
    assert await budget.take() == 0.0
    went: list[tuple[int, float]] = []

    async def signal(number: int) -> None:
        assert await budget.take(queue=False) == 0.0
        went.append((number, clock.t))

    await asyncio.gather(*(signal(number) for number in range(5)))
    assert [number for number, _ in went] == [0, 1, 2, 3, 4]
    times = [0.0] + [at for _, at in went]
    gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
    assert all(1 / 30 - 1e-9 <= gap <= 1 / 30 + 1 / 60 + 1e-9 for gap in gaps), gaps  # a tick, at the next look
    assert sum(clock.slept) == pytest.approx(clock.t)  # one looked at a time: two looks a tick, however many wait


async def test_a_signal_on_the_shared_bucket_goes_once_the_database_has_a_token_again(transport):
    budget = Budget(30.0, shared=transport)
    assert await budget.take() == 0.0  # a reply takes the one token saved up
    started = time.monotonic()
    assert await budget.take(queue=False) == 0.0
    assert 0.02 < time.monotonic() - started < 0.5  # about a tick (1/30 s), as the database's clock counts


async def test_a_signal_on_a_shared_bucket_in_debt_takes_nothing_from_the_replies(transport):
    budget = Budget(30.0, shared=transport)
    begun = time.monotonic()
    for _ in range(45):
        await budget.take()
    started = time.monotonic()
    assert await budget.take(queue=False) is None
    looked = time.monotonic() - started
    assert MOMENT_PATIENCE_S - 0.05 < looked < MOMENT_PATIENCE_S + 0.5
    # The 46th reply: its turn as before, 45/30 s after the first take (the takes' own time on a loaded
    # database counts too).
    assert await budget.take() == pytest.approx(45 / 30 - (time.monotonic() - begun), abs=0.1)
