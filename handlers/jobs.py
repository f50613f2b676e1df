"""Background memory upkeep on the Application's JobQueue (APScheduler underneath)."""

from __future__ import annotations

from telegram.ext import Application, JobQueue

from handlers.context import Context, Services


def sweep_interval(delay: float) -> float:
    """Return how often to look for idle users: a third of the idle delay, between 0.1 and 10 seconds."""
    return min(10.0, max(0.1, delay / 3))


def start_memory_upkeep(app: Application) -> None:
    """Look for idle users with unread messages every few seconds (and once right after start-up)."""
    delay = app.bot_data.config.memory_extract_delay_s
    app.job_queue.run_repeating(
        sweep_job, interval=sweep_interval(delay), first=0, name="memory-sweep",
        job_kwargs={"max_instances": 1, "coalesce": True},
    )


async def sweep_job(context: Context) -> None:
    """Start extraction for every user who has been idle MEMORY_EXTRACT_DELAY_SECONDS with unread messages."""
    context.application.create_task(context.bot_data.keeper.sweep(), name="memory-sweep")


def after_turn(services: Services, job_queue: JobQueue | None, user_id: int, unread: int) -> None:
    """Extract at once, without waiting for the user to go idle, every MEMORY_EXTRACT_EVERY messages."""
    if job_queue is not None and unread >= services.config.memory_extract_every:
        job_queue.run_once(extraction_job, when=0, data=user_id, name=f"extract:{user_id}")


async def extraction_job(context: Context) -> None:
    """Extract facts from one user's unread messages (errors are logged and retried later by the keeper)."""
    await context.bot_data.keeper.extract_quietly(context.job.data)  # type: ignore[union-attr]
