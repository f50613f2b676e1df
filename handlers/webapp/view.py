"""The memory page's JSON: one user's snapshot in their language, as the page draws it. Pure."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from handlers.notes import wish_line
from handlers.settings import zone_and_origin
from handlers.texts import CATEGORY_NAMES, language_of, text
from memory.facts import Fact, is_style, memory_enabled
from memory.reminder import Reminder
from services.memory_page import GroupMemory, Snapshot
from services.page_input import HAND_CATEGORIES
from services.speech import voice_choice
from services.why import Explanation

REPLY_CHARS = 200  # of an earlier reply, the page shows its opening


def fact_json(fact: Fact) -> dict:
    """Return one fact as the page sees it: what it says, its date, and whether (and how) it is the past."""
    return {
        "id": fact.id, "category": fact.category, "key": fact.key, "value": fact.value, "when": fact.when,
        "past": fact.ended is not None, "ended": fact.ended, "ended_on": fact.ended_on,
        "learned": fact.created_at.isoformat() if fact.created_at else None, "shared": fact.shared,
    }


def reply_json(explanation: Explanation) -> dict:
    """Return one earlier reply as the page lists it: when, its opening, and each memory its prompt held (a value
    of null: no longer kept there)."""
    said = " ".join(explanation.reply.content.split())
    return {
        "id": explanation.reply.id, "at": explanation.reply.at.isoformat(),
        "text": said if len(said) <= REPLY_CHARS else said[: REPLY_CHARS - 1] + "…",
        "memories": [{"kind": line.kind, "id": line.id, "value": line.value} for line in explanation.lines],
    }


def group_json(group: GroupMemory) -> dict:
    """Return what the bot keeps of the user in one group, under the group's title."""
    return {
        "title": group.title, "facts": [fact_json(fact) for fact in group.facts],
        "topics": [{"id": topic.id, "text": topic.text, "ended_at": topic.ended_at.isoformat()}
                   for topic in group.topics if topic.id is not None],
        "replies": [reply_json(reply) for reply in group.replies],
    }


def reminder_json(reminder: Reminder) -> dict:
    """Return one reminder as the page sees it: its task, when it is next due in its own zone ("YYYY-MM-DD HH:MM"),
    that zone, and its rule line (None for a one-off)."""
    local = reminder.due_at.astimezone(ZoneInfo(reminder.zone))
    return {"id": reminder.id, "task": reminder.task, "due": local.strftime("%Y-%m-%d %H:%M"),
            "zone": reminder.zone, "rule": reminder.rule}


def settings_json(settings: dict, facts: list[Fact], default_zone: str, proactive: bool, language: str | None,
                  *, speaks: bool = False) -> dict:
    """Return the settings the page shows: the zone and where it came from, check-ins, memory on or off, and when
    replies are spoken (`speaks`: TTS_MODEL is set; else None), in the user's words."""
    zone, origin = zone_and_origin(settings, facts, default_zone, language)
    return {
        "timezone": zone, "zone_origin": origin, "zone_chosen": bool(settings.get("timezone")),
        "checkins": settings.get("checkins") != "off", "checkins_available": proactive,
        "memory": memory_enabled(settings),
        "voice": text(f"voice_choice_{voice_choice(settings)}", language) if speaks else None,
    }


def page_json(snapshot: Snapshot, language_code: str | None, default_zone: str, proactive: bool, *,
              speaks: bool = False, persona: str | None = None) -> dict:
    """Return everything the page shows of one user, in their language (English or Russian); `persona` names the
    character they talk with (None: the built-in one, with nothing to choose)."""
    language = language_of(language_code)
    ids = {fact.key: fact.id for fact in snapshot.facts}
    return {
        "language": language,
        "name": snapshot.name,
        "persona": persona,
        "category_names": CATEGORY_NAMES[language],
        "categories": list(HAND_CATEGORIES),
        "facts": [fact_json(fact) for fact in snapshot.facts if not is_style(fact)],
        "wishes": [{"id": fact.id, "key": fact.key, "value": fact.value, "shared": fact.shared,
                    "text": wish_line(fact, language_code).removeprefix("✎ ")}
                   for fact in snapshot.facts if is_style(fact)],
        "relations": [{"source": ids[r.source_key], "target": ids[r.target_key], "relation": r.relation}
                      for r in snapshot.relations if r.source_key in ids and r.target_key in ids],
        "reminders": [reminder_json(reminder) for reminder in snapshot.reminders],
        "topics": [{"id": topic.id, "text": topic.text, "ended_at": topic.ended_at.isoformat()}
                   for topic in snapshot.topics if topic.id is not None],
        "settings": settings_json(snapshot.settings, snapshot.facts, default_zone, proactive, language_code,
                                  speaks=speaks),
        "replies": [reply_json(reply) for reply in snapshot.replies],
        "groups": [group_json(group) for group in snapshot.groups],
        "texts": {key: text(key, language_code) for key in ("forget_ask", "forget_yes", "forget_no")},
    }
