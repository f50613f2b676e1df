"""Background memory upkeep on the Application's JobQueue (APScheduler underneath)."""

from __future__ import annotations

import logging

from telegram.ext import Application, JobQueue

from chat.llm import ModelUnavailable
from handlers.context import Context, Services
from memory.extraction import ExtractionError

log = logging.getLogger(__name__)


def schedule_extraction(job_queue: JobQueue, user_id: int, delay: float) -> None:
    """(Re)start the user's extraction timer: it fires `delay` seconds from now, replacing an earlier one."""
    job_queue.run_once(
        extraction_job,
        when=delay,
        data=user_id,
        name=f"extract:{user_id}",
        job_kwargs={"id": f"extract:{user_id}", "replace_existing": True},
    )


async def after_user_message(services: Services, job_queue: JobQueue | None, user_id: int) -> None:
    """Schedule extraction: when the user goes idle, or at once after every MEMORY_EXTRACT_EVERY messages."""
    if job_queue is None:
        return
    config = services.config
    unread = await services.store.unread_count(user_id)
    if unread:
        delay = 0 if unread >= config.memory_extract_every else config.memory_extract_delay_s
        schedule_extraction(job_queue, user_id, delay)


async def extraction_job(context: Context) -> None:
    """Extract facts from one user's unread messages; on failure, try again later."""
    user_id = context.job.data  # type: ignore[union-attr]
    services = context.bot_data
    try:
        await services.keeper.extract_pending(user_id)
    except (ModelUnavailable, ExtractionError) as error:
        log.warning("fact extraction failed (%s); trying again in %.0fs", error, services.config.memory_retry_s)
        schedule_extraction(context.job_queue, user_id, services.config.memory_retry_s)


async def schedule_pending_work(app: Application) -> None:
    """After a restart, schedule extraction for every user with unread messages (derived from the database)."""
    services: Services = app.bot_data
    users = await services.store.users_with_pending()
    for user_id in users:
        schedule_extraction(app.job_queue, user_id, services.config.memory_extract_delay_s)
    if users:
        log.info("scheduled fact extraction for %d users with unread messages", len(users))
