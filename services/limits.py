"""The daily limits as the companion, its messages written first and the voice handler check them.

The rules (what counts, when a day starts) are pure, in memory/usage.py; this adds the usage meter (what was
spent), the store (the user's zone) and the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.user_rows import UserRows
from memory.time.schedule import local_zone
from memory.usage import Limits, Spent, day_start, next_reset, reached

VOICE_UNHEARD = "[voice message, not transcribed: the daily limit]"  # kept in the session in its place


@dataclass(frozen=True)
class Today:
    """A user's day so far: what they spent, what they may, and when it starts again (in their zone)."""

    spent: Spent
    limits: Limits
    resets_at: datetime


@dataclass(frozen=True)
class LimitSettings:
    """The settings the daily limits use (named as in Config: see README's configuration table)."""

    admin_user_ids: frozenset[int]
    daily_message_limit: int
    daily_token_limit: int
    daily_voice_seconds: int
    timezone: str


def limits_for(config: LimitSettings, user_id: int) -> Limits:
    """Return the daily limits that apply to this user: none for an admin."""
    if user_id in config.admin_user_ids:
        return Limits()
    return Limits(config.daily_message_limit, config.daily_token_limit, config.daily_voice_seconds)


async def limit_reached(
    meter: UsageMeter, config: LimitSettings, user_id: int, now: datetime, zone: ZoneInfo
) -> str | None:
    """Return the daily limit the user has reached ("messages" or "tokens"), or None; no query without limits."""
    limits = limits_for(config, user_id)
    if not (limits.messages or limits.tokens):
        return None
    return reached(await meter.spent_since(user_id, day_start(now, zone)), limits)


async def today(
    users: UserRows, facts: FactQueries, meter: UsageMeter, config: LimitSettings, user_id: int, now: datetime,
) -> Today:
    """Return the user's day so far, in their own zone (their settings' or their city's)."""
    zone = local_zone(await users.settings(user_id), await facts.facts(user_id), config.timezone)
    spent = await meter.spent_since(user_id, day_start(now, zone))
    return Today(spent, limits_for(config, user_id), next_reset(now, zone))
