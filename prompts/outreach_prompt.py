"""The pure builder of a message the companion writes first: system message zero ending with the task, then the
session."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Sequence
from zoneinfo import ZoneInfo

from memory.continuity import Topic
from memory.due import DueItem
from memory.facts import Fact, is_style
from memory.time.time_in_words import describe_gap, format_when, zone_hemisphere
from prompts import load_prompt
from prompts.budget import fit_to_budget
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
    """Return the messages of the completion that writes `item`: system message zero (who they are, then the
    task), then the recent session.

    `previous` is when the user last wrote; `topics` are the lines of earlier conversations no longer in
    `history`. The task ends the one system message there is: strict chat templates (Gemma's, Mistral's)
    refuse a second one after the session.
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
    system = {"role": "system", "content": f"{system['content']}\n\n{task}"}
    return fit_to_budget(system, list(history), budget)
