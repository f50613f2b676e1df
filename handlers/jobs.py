"""Background upkeep (memory, the inbox) on the Application's JobQueue (APScheduler underneath)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Awaitable, Callable

from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import Application, ExtBot, JobQueue

from handlers.context import Context, Services
from handlers.forget_commands import send_forgotten_note
from handlers.notes import send_note, to_confirm
from handlers.texts import text
from memory.changes import Forgotten
from memory.facts import Fact
from memory.store.user_rows import UserRows
from services.outreach import Sender
from transport.replies import send_text

log = logging.getLogger(__name__)
INBOX_KEEP = timedelta(days=1)
USAGE_KEEP = timedelta(days=2)  # enough for any zone's "today" and /stats' 24 hours
ORPHAN_AFTER = timedelta(seconds=20)  # an update unhandled this long after it came may have lost its machine
FORGOTTEN_PURGE = timedelta(minutes=1)  # how often expired Undo records of forget requests are deleted


def remembered_notifier(bot: ExtBot, users: UserRows) -> Callable[[int, list[Fact]], Awaitable[None]]:
    """Return the callback that confirms, in the user's private chat, what the LLM extractor just remembered:
    style wishes and the name always, other facts to users who asked for it."""

    async def notify(user_id: int, facts: list[Fact]) -> None:
        if not has_private_chat(user_id):
            return
        confirmed = to_confirm(facts, bool((await users.settings(user_id)).get("notify")))
        if confirmed:
            profile = await users.profile(user_id)
            await send_note(bot, user_id, confirmed, profile.language_code if profile else None)

    return notify


def forgotten_notifier(bot: ExtBot, users: UserRows) -> Callable[[int, Forgotten], Awaitable[None]]:
    """Return the callback that confirms, in the user's private chat, what the LLM extractor forgot at their
    request, with its Undo button."""

    async def notify(user_id: int, forgotten: Forgotten) -> None:
        if not has_private_chat(user_id):
            return
        profile = await users.profile(user_id)
        await send_forgotten_note(bot, user_id, forgotten, profile.language_code if profile else None)

    return notify


def has_private_chat(user_id: int) -> bool:
    """False for a chat's own memory (a message sent on behalf of a group or channel: a negative id), which has no
    private chat to be told anything in."""
    return user_id > 0


def outreach_sender(bot: ExtBot) -> Sender:
    """Return the function that delivers a message the companion writes first, and says how it went."""

    async def send(user_id: int, message: str, first: bool, language_code: str | None) -> str:
        if first:  # the first one ever says how to stop them
            message += "\n\n" + text("checkins_hint", language_code)
        return await delivered(send_text(bot, user_id, message), "a message written first")

    return send


async def delivered(sending: Awaitable[object], what: str) -> str:
    """Await a message the user did not just ask for (`what`: one written first, a reminder) and say how it went:
    "sent", "blocked" (the bot was blocked, or the chat is gone) or "failed" (try again later)."""
    try:
        await sending
    except Forbidden:
        log.info("%s was refused: the bot is blocked there; not writing until they write", what)
        return "blocked"
    except BadRequest as error:
        if "chat not found" in str(error).lower():
            return "blocked"
        log.warning("Telegram refused %s: %s", what, error)
        return "failed"
    except TelegramError as error:
        log.warning("could not send %s: %s", what, error)
        return "failed"
    return "sent"


def job_queue(app: Application) -> JobQueue:
    """Return the Application's job queue, which python-telegram-bot's job-queue extra (requirements.txt) gives it."""
    if app.job_queue is None:
        raise RuntimeError("python-telegram-bot's job-queue extra is not installed")
    return app.job_queue


def job_user(context: Context) -> int:
    """Return the user a job for one user (embed_job, extraction_job) was scheduled for: its data."""
    if context.job is None or not isinstance(context.job.data, int):
        raise TypeError(f"a user's job runs with the user's id as its data, not {context.job!r}")
    return context.job.data


def start_outreach(app: Application) -> None:
    """Sweep the schedule of messages written first every PROACTIVE_SWEEP_SECONDS (unless PROACTIVE=off)."""
    config = app.bot_data.config
    if config.proactive:
        job_queue(app).run_repeating(
            outreach_job, interval=config.proactive_sweep_s, first=min(5.0, config.proactive_sweep_s),
            name="outreach-sweep", job_kwargs={"max_instances": 1, "coalesce": True},
        )


async def outreach_job(context: Context) -> None:
    """Write and send the follow-ups, birthday greetings and check-ins that are due."""
    await context.bot_data.outreach.sweep()


def sweep_interval(delay: float) -> float:
    """Return how often to look for idle users: a third of the idle delay, between 0.1 and 10 seconds."""
    return min(10.0, max(0.1, delay / 3))


def start_memory_upkeep(app: Application) -> None:
    """Look for idle users with unread messages every few seconds (and once right after start-up).

    Nothing is embedded at start: facts an embedding outage or a change of model left without a vector are
    embedded when their user next talks (after_turn, and the recall's own call with a remote model)."""
    delay = app.bot_data.config.memory_extract_delay_s
    job_queue(app).run_repeating(
        sweep_job, interval=sweep_interval(delay), first=0, name="memory-sweep",
        job_kwargs={"max_instances": 1, "coalesce": True},
    )


def start_inbox_upkeep(app: Application) -> None:
    """Forget handled updates once a day has passed (Telegram redelivers only recent ones), and old usage.

    On PostgreSQL, also look now and then for updates another machine answered Telegram for but never
    handled (it died): after ORPHAN_AFTER they are queued here, and the user's lock keeps them from running twice.
    """
    jobs = job_queue(app)
    jobs.run_repeating(prune_inbox_job, interval=3600, first=60, name="inbox-prune")
    jobs.run_repeating(purge_forgotten_job, interval=FORGOTTEN_PURGE.total_seconds(), first=5,
                       name="forgotten-purge", job_kwargs={"max_instances": 1, "coalesce": True})
    if app.bot_data.transport.on_postgres:
        jobs.run_repeating(
            orphans_job, interval=ORPHAN_AFTER.total_seconds() / 2, first=ORPHAN_AFTER.total_seconds(),
            name="inbox-orphans", job_kwargs={"max_instances": 1, "coalesce": True},
        )


async def orphans_job(context: Context) -> None:
    """Queue the updates received more than ORPHAN_AFTER ago that no machine has handled."""
    await context.bot_data.inbox.replay(context.application, context.bot_data.clock() - ORPHAN_AFTER)


async def prune_inbox_job(context: Context) -> None:
    """Delete inbox rows of updates handled more than INBOX_KEEP ago, and usage older than USAGE_KEEP."""
    now = context.bot_data.clock()
    await context.bot_data.transport.prune_inbox(now - INBOX_KEEP)
    await context.bot_data.meter.prune_usage(now - USAGE_KEEP)


async def purge_forgotten_job(context: Context) -> None:
    """Delete what forget requests removed once its Undo has expired."""
    await context.bot_data.forgetter.purge()


async def sweep_job(context: Context) -> None:
    """Extract for every user who has been idle MEMORY_EXTRACT_DELAY_SECONDS with unread messages."""
    # Awaited, so that shutdown waits for it; a sweep still running when the next is due makes
    # APScheduler skip that one (max_instances=1), which is what we want.
    await context.bot_data.keeper.sweep()


def after_turn(services: Services, job_queue: JobQueue | None, user_id: int, unread: int, learned: bool) -> None:
    """Embed what the rules just learned, or what the turn's recall found without a vector, when the keeper says
    so (in-process models); extract now when the keeper says so (not waiting for idle)."""
    if job_queue is not None and services.keeper.embeds_now(user_id, learned):
        job_queue.run_once(embed_job, when=0, data=user_id, name=f"embed:{user_id}")
    if job_queue is not None and services.keeper.extracts_now(unread):
        job_queue.run_once(extraction_job, when=0, data=user_id, name=f"extract:{user_id}")


async def embed_job(context: Context) -> None:
    """Embed one user's facts that lack a vector: newly learned, or left by an outage or a change of model (off the
    reply path)."""
    await context.bot_data.keeper.embed_learned(job_user(context))


async def extraction_job(context: Context) -> None:
    """Extract facts from one user's unread messages (errors are logged and retried later by the keeper)."""
    await context.bot_data.keeper.extract_quietly(job_user(context))
