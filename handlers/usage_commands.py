"""Daily limits as the user sees them (the line when one is reached, /usage) and /stats for admins."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from telegram import Update
from telegram.constants import ChatType

from handlers.commands import help_command
from handlers.context import Context
from handlers.texts import text
from memory.store.meter import Stats
from memory.usage import day_start
from services.companion import Limited
from services.limits import LimitSettings, today
from services.memory_quality import Quality


def time_left(now: datetime, later: datetime, language_code: str | None) -> str:
    """Return how long until `later`, rounded up to a minute: "5 h 20 min", "7 min" (never less than 1 min)."""
    minutes = max(1, math.ceil((later - now) / timedelta(minutes=1)))
    hours, minutes = divmod(minutes, 60)
    if hours:
        return text("hours_minutes", language_code, hours=str(hours), minutes=str(minutes))
    return text("minutes", language_code, minutes=str(minutes))


def limit_line(limited: Limited, now: datetime, language_code: str | None) -> str:
    """Return the one line a user gets the first time in a day they reach a limit."""
    return text(f"limit_{limited.kind}", language_code, left=time_left(now, limited.resets_at, language_code))


def of_limit(spent: float, limit: int, language_code: str | None) -> str:
    """Return "12 of 50", or just "12" where there is no limit."""
    shown = str(int(spent))
    return text("usage_of", language_code, spent=shown, limit=str(limit)) if limit else shown


def human_size(size: int) -> str:
    """Return a byte count as "812 KiB" or "3.4 MiB"."""
    if size < 1024 * 1024:
        return f"{math.ceil(size / 1024)} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def memory_text(quality: Quality, language_code: str | None) -> str:
    """Return /stats' lines on memory itself: learned by source, ✗, undone within 7 days, memories per reply."""
    figures = quality.figures
    share = f" ({figures.undone_share:.0%})" if figures.undone_share is not None else ""
    return text(
        "stats_memory", language_code, learned=str(sum(figures.learned.values())),
        sources=text("stats_sources", language_code, **{source: str(figures.learned.get(source, 0))
                                                           for source in ("rule", "llm", "page")}),
        wrong=str(figures.wrong), undone=f"{figures.undone}{share}", settled=str(figures.settled),
        per_reply="–" if quality.memories_per_reply is None else f"{quality.memories_per_reply:.1f}",
        replies=str(quality.replies), pairs=str(quality.duplicates.pairs), memories=str(quality.duplicates.memories),
        share="–" if quality.duplicates.share is None else f"{quality.duplicates.share:.0%}",
    )


def stats_text(stats: Stats, zone: str, language_code: str | None) -> str:
    """Return the /stats message; "today" is the day in `zone` (BOT_TIMEZONE)."""
    heaviest = "\n".join(
        text("stats_line", language_code, user=str(user_id), tokens=str(spent.tokens), messages=str(spent.messages))
        for user_id, spent in stats.heaviest
    ) or text("stats_nobody", language_code)
    return text(
        "stats", language_code, zone=zone, users=str(stats.users), active_today=str(stats.active_today),
        active_week=str(stats.active_week), messages=str(stats.today.messages), tokens=str(stats.today.tokens),
        voice=str(int(stats.today.voice_seconds)), heaviest=heaviest, facts=str(stats.facts),
        size=human_size(stats.database_bytes), errors=str(stats.model_errors),
    )


async def usage_command(update: Update, context: Context) -> None:
    """Show the user their own day: messages, tokens and seconds of voice, against the limits."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    services, language = context.bot_data, user.language_code
    now = services.clock()
    limits = services.config.subset(LimitSettings)
    day = await today(services.store.users, services.store.facts, services.meter, limits, user.id, now)
    reply = text(
        "usage", language, left=time_left(now, day.resets_at, language),
        messages=of_limit(day.spent.messages, day.limits.messages, language),
        tokens=of_limit(day.spent.tokens, day.limits.tokens, language),
        voice=of_limit(day.spent.voice_seconds, day.limits.voice_seconds, language),
    )
    if user.id in services.config.admin_user_ids:
        reply += "\n\n" + text("usage_admin", language)
    await message.reply_text(reply)


async def stats_command(update: Update, context: Context) -> None:
    """For an admin in their private chat, how the bot is used; anyone else gets the unknown-command answer."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    services = context.bot_data
    if user.id not in services.config.admin_user_ids or message.chat.type != ChatType.PRIVATE:
        await help_command(update, context)
        return
    now = services.clock()
    stats = await services.meter.stats(now, day_start(now, services.config.tz))
    quality = await services.quality.measure(now)
    await message.reply_text(stats_text(stats, services.config.timezone, user.language_code) + "\n\n"
                             + memory_text(quality, user.language_code))
