"""The pure builder of a message the companion writes first: system message zero, the session, and the task."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Sequence
from zoneinfo import ZoneInfo

from memory.continuity import Topic
from memory.facts import Fact, is_style
from memory.schedule import DueItem
from prompts import load_prompt
from prompts.budget import fit_to_budget
from prompts.clock import describe_gap, format_when, zone_hemisphere
from prompts.system import build_system_message, quote


@lru_cache(maxsize=None)
def write_first_tasks() -> dict[str, str]:
    """Return the task of each kind ('checkin', 'followup', 'birthday') from prompts/write_first.md."""
    tasks: dict[str, str] = {}
    kind = None
    for line in load_prompt("write_first.md").splitlines():
        if line.startswith("# "):
            kind = line[2:].strip()
            tasks[kind] = ""
        elif kind is not None:
            tasks[kind] = (tasks[kind] + "\n" + line).strip()
    return tasks


def build_outreach_messages(
    persona: str,
    item: DueItem,
    facts: Sequence[Fact],
    history: Sequence[dict],
    now: datetime,
    zone: ZoneInfo,
    previous: datetime | None,
    budget: int,
    topics: Sequence[Topic] = (),
) -> list[dict]:
    """Return the messages of the completion that writes `item`: who they are, the recent session, then the task.

    `previous` is when the user last wrote; `topics` are the lines of earlier conversations no longer in
    `history`. The task comes last, as a system message, so that it is what
    the model reads just before it writes.
    """
    name = next((fact.value for fact in facts if fact.key == "name"), None)
    system = build_system_message(
        persona, name, [fact for fact in facts if fact.key != "name" and not is_style(fact)], now=now,
        previous=previous, timezone=zone, hemisphere=zone_hemisphere(zone.key), display_name=None, wishes=facts,
        topics=topics,
    )
    language = f" (their Telegram app is set to {quote(item.language_code)})" if item.language_code else ""
    task = write_first_tasks()[item.kind].format(
        silence=describe_gap(now.astimezone(zone), previous).removesuffix(" ago") if previous else "a while",
        event=quote(item.fact_value or ""),
        when=format_when(item.when or ""),
        language=language,
    )
    return [*fit_to_budget(system, list(history), budget), {"role": "system", "content": task}]
