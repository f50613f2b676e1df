"""The reminder sweep runs when the soonest reminder is due (handlers/reminder_timer.py), not every second.

The planning is checked against a job queue that only records what it is asked to run; the whole of it through
the real Application, its JobQueue and the Bot API double, on the real clock.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from clock import utc_now
from handlers.reminder_timer import ReminderTimer
from memory.reminder import PENDING
from tests.harness import make_config, running_bot

T0 = datetime(2026, 12, 5, 12, 0, tzinfo=timezone.utc)
ANN = 3001


class Job:
    def __init__(self, callback, when: float) -> None:
        self.callback, self.when, self.removed = callback, when, False

    def schedule_removal(self) -> None:
        self.removed = True


class Queue:
    """Records run_once calls as PTB's JobQueue would take them."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []

    def run_once(self, callback, when: float, name: str) -> Job:
        self.jobs.append(Job(callback, when))
        return self.jobs[-1]

    def planned(self) -> list[float]:
        return [round(job.when, 3) for job in self.jobs if not job.removed]

    async def fire(self) -> None:
        """Run the one planned job, as its time has come."""
        [job] = [job for job in self.jobs if not job.removed]
        job.removed = True  # ran: no longer planned
        await job.callback(None)


class Reminders:
    """What the timer uses of services.reminders.Reminders: a clock, sweep, next_due and the wake hook."""

    def __init__(self, soonest: datetime | None = None, fails: bool = False) -> None:
        self.now, self.soonest, self.fails, self.sweeps = T0, soonest, fails, 0

    def clock(self) -> datetime:
        return self.now

    def wake_with(self, wake) -> None:
        self.wake = wake

    async def sweep(self) -> int:
        self.sweeps += 1
        if self.fails:
            raise OSError("database is locked")
        return 0

    async def next_due(self) -> datetime | None:
        return self.soonest


async def test_after_a_sweep_it_sleeps_until_the_soonest_reminder():
    queue, reminders = Queue(), Reminders(soonest=T0 + timedelta(seconds=42))
    timer = ReminderTimer(queue, reminders, longest=60)
    timer.start(1.0)
    assert queue.planned() == [1.0] and reminders.wake == timer.wake_by
    await queue.fire()
    assert reminders.sweeps == 1 and queue.planned() == [42.0]


async def test_with_nothing_due_it_looks_again_after_the_longest_wait():
    queue, reminders = Queue(), Reminders(soonest=None)
    timer = ReminderTimer(queue, reminders, longest=60)
    timer.start(1.0)
    await queue.fire()
    assert queue.planned() == [60.0]
    reminders.soonest = T0 + timedelta(days=3)  # far off: never more than the longest wait
    await queue.fire()
    assert queue.planned() == [60.0]


async def test_a_reminder_set_sooner_brings_the_sweep_forward_and_a_later_one_does_not():
    queue, reminders = Queue(), Reminders()
    timer = ReminderTimer(queue, reminders, longest=60)
    timer.start(30.0)
    reminders.wake(T0 + timedelta(seconds=45))  # later than planned: nothing changes
    assert queue.planned() == [30.0] and len(queue.jobs) == 1
    reminders.wake(T0 + timedelta(seconds=5))
    assert queue.planned() == [5.0] and queue.jobs[0].removed  # one job at a time
    reminders.wake(T0 - timedelta(seconds=5))  # due already (a failed send's retry, a clock behind): now
    assert queue.planned() == [0.0]


async def test_waiting_reminders_beyond_one_sweep_are_swept_at_once():
    queue, reminders = Queue(), Reminders(soonest=T0 - timedelta(minutes=5))  # more than a sweep reads
    timer = ReminderTimer(queue, reminders, longest=60)
    timer.start(1.0)
    await queue.fire()
    assert queue.planned() == [0.0]


async def test_a_failed_sweep_is_logged_and_the_next_one_planned(caplog):
    queue, reminders = Queue(), Reminders(soonest=T0 + timedelta(seconds=5), fails=True)
    timer = ReminderTimer(queue, reminders, longest=60)
    timer.start(1.0)
    await queue.fire()
    assert queue.planned() == [60.0]
    assert "the reminder sweep failed" in caplog.text


async def test_an_idle_bot_does_not_sweep_every_second_yet_delivers_on_time(telegram, model, tmp_path):
    """The real Application: a reminder chosen for 1.5 s from now (the button of a time the bot asked about) is
    delivered then, though the longest wait is a minute; meanwhile, no sweep beyond the one after start-up."""
    config = make_config(telegram, model, tmp_path / "bot.db", proactive=False, memory_extract_delay_s=3600)
    assert config.reminder_sweep_s == 60.0  # the default
    async with running_bot(config) as app:
        services = app.bot_data
        sweeps: list[datetime] = []
        sweep = services.reminders.sweep

        async def counted() -> int:
            sweeps.append(utc_now())
            return await sweep()

        services.reminders.sweep = counted
        await asyncio.sleep(1.5)  # the sweep a second after start-up
        telegram.know_private_chat(ANN)
        await services.store.users.meet_user(ANN, utc_now())
        pending = await services.store.reminders.add_reminder(ANN, ANN, "call mum", utc_now() + timedelta(hours=1),
                                                              None,
                                                    "UTC", utc_now(), state=PENDING)
        chosen = await services.reminders.choose(ANN, pending.id, utc_now() + timedelta(seconds=1.5))
        [sent] = await telegram.wait_for_sent(ANN, 1, timeout=10)
        arrived = utc_now()
        assert "call mum" in sent["text"]
        assert timedelta(0) <= arrived - chosen.due_at < timedelta(seconds=1)
        assert len(sweeps) == 2  # after start-up, and at the reminder's time
        assert sweeps[-1] >= chosen.due_at
        await asyncio.sleep(1.5)
        assert len(sweeps) == 2
