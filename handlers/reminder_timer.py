"""When the reminder sweep runs: when the soonest reminder falls due, not every second.

A sweep every second woke an idle bot 86,400 times a day to find nothing, and on a small machine each wake-up
costs more than the query it makes (bench/README.md, "Issue 42, fifth part"). Instead, after each sweep the
timer asks the store when the next reminder is due and sleeps until then; a reminder set or moved meanwhile
(services/reminders.py calls `wake_by`) brings the sweep forward. It never sleeps longer than `longest`
(Config.reminder_sweep_s, a minute): what only the database knows is found within that, a reminder another
machine set and then died with, or a claim a dead machine left to run out. One job on python-telegram-bot's
JobQueue at a time; a sweep that fails is logged and the next is planned all the same.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from telegram.ext import Job, JobQueue

from services.reminders import Reminders

log = logging.getLogger(__name__)
JOB_NAME = "reminders-sweep"


class ReminderTimer:
    """Runs `reminders.sweep` when the soonest reminder is due, at most `longest` seconds apart."""

    def __init__(self, job_queue: JobQueue, reminders: Reminders, longest: float) -> None:
        self.job_queue = job_queue
        self.reminders = reminders
        self.longest = longest
        self._job: Job | None = None
        self._at: float | None = None  # the loop's time of the planned sweep

    def start(self, first: float) -> None:
        """Plan the first sweep `first` seconds from now, and be told of reminders set from now on."""
        self.reminders.wake_with(self.wake_by)
        self._plan(first)

    def wake_by(self, at: datetime) -> None:
        """Make sure a sweep runs no later than `at`."""
        self._plan(min(self.longest, (at - self.reminders.clock()).total_seconds()))

    def _plan(self, seconds: float) -> None:
        """Sweep in `seconds` (now, if that has passed), unless a sweep is planned sooner already."""
        seconds = max(0.0, seconds)
        at = asyncio.get_running_loop().time() + seconds
        if self._at is not None and self._at <= at:
            return
        if self._job is not None:
            self._job.schedule_removal()
        self._at = at
        self._job = self.job_queue.run_once(self._sweep, when=seconds, name=JOB_NAME)

    async def _sweep(self, _context: object) -> None:
        self._job = self._at = None
        soonest: datetime | None = None
        try:
            await self.reminders.sweep()
            soonest = await self.reminders.next_due()
        except Exception:  # noqa: BLE001 - a failed sweep (the database away) is tried again in `longest`
            log.exception("the reminder sweep failed; trying again in %g s", self.longest)
        if soonest is None:
            self._plan(self.longest)
        else:
            self.wake_by(soonest)
