"""The pure builder of system message zero, rebuilt before every completion."""

from __future__ import annotations

from datetime import datetime
from typing import Sequence
from zoneinfo import ZoneInfo

from prompts.clock import describe_gap, format_date, season, time_of_day


def build_system_message(
    persona: str,
    name: str | None,
    facts: Sequence[str],
    now: datetime,
    previous: datetime | None,
    timezone: ZoneInfo,
    hemisphere: str = "north",
) -> dict[str, str]:
    """Return the system message (role and content) for this turn.

    `now` and `previous` are aware datetimes; both are shown in `timezone`.
    """
    local_now = now.astimezone(timezone)
    sections = [persona.strip(), _about(name, facts), _time(local_now, previous, timezone, hemisphere)]
    return {"role": "system", "content": "\n\n".join(sections)}


def _about(name: str | None, facts: Sequence[str]) -> str:
    lines = ["## The person you are talking with"]
    if name:
        lines.append(f"Their name: {name}")
    else:
        lines.append("You don't know their name yet; don't press them for it.")
    lines.append("")
    lines.append("What you remember about them (learned from their own words):")
    if facts:
        lines.extend(f"- {fact}" for fact in facts)
    else:
        lines.append("- nothing yet")
    return "\n".join(lines)


def _time(local_now: datetime, previous: datetime | None, timezone: ZoneInfo, hemisphere: str) -> str:
    zone = str(timezone.key)
    lines = [
        "## Now",
        f"It is {format_date(local_now)}, {local_now:%H:%M} ({time_of_day(local_now.hour)}) in {zone};"
        f" the season is {season(local_now.month, hemisphere)}.",
    ]
    if previous is None:
        lines.append("This is your first conversation with them.")
    else:
        gap = describe_gap(local_now, previous)
        local_previous = previous.astimezone(timezone)
        lines.append(
            f"You last talked {gap} (their previous message: {format_date(local_previous)}, {local_previous:%H:%M})."
        )
    return "\n".join(lines)
