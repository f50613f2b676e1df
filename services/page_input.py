"""What a user types on the memory page, checked like a learned fact before anything is stored. Pure.

A value is masked for secrets, capped and refused when it reads as an instruction to the assistant; a date is
ISO 8601; a setting is one the page may change. Each refusal carries a short code the page words in the
user's language.
"""

from __future__ import annotations

from dataclasses import replace

from memory.facts import CATEGORIES, MAX_VALUE_LENGTH, Fact, normalize_value, slug
from memory.orders import gives_orders
from memory.secrets.masking import mask_secrets
from memory.time.schedule import normalize_when
from memory.time.zones import parse_zone

HAND_CATEGORIES = tuple(category for category in CATEGORIES if category != "style")  # wishes are said, not typed
HAND_IMPORTANCE = 8  # a fact someone took the trouble to type is one they care about
SETTINGS = ("timezone", "checkins", "memory")


class Refused(ValueError):
    """A change the page asked for and may not make; `code` names why (a key of the page's error texts)."""

    def __init__(self, code: str, field: str | None = None) -> None:
        super().__init__(code if field is None else f"{code}: {field}")
        self.code = code
        self.field = field


def typed_value(value: object) -> str:
    """Return a typed value as it would be stored: one line, secrets masked; refuse empty, long or injected."""
    if not isinstance(value, str):
        raise Refused("bad_type", "value")
    if len(" ".join(value.split())) > MAX_VALUE_LENGTH:
        raise Refused("too_long", "value")
    cleaned = normalize_value(mask_secrets(value))
    if not cleaned:
        raise Refused("empty", "value")
    if gives_orders(cleaned):
        raise Refused("instruction", "value")
    return cleaned


def typed_when(value: object) -> str | None:
    """Return a typed date as 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM', or None for null or an empty field."""
    if value is None or value == "":
        return None
    when = normalize_when(value)
    if when is None:
        raise Refused("bad_when", "when")
    return when


def edited_fact(fact: Fact, changes: dict) -> Fact:
    """Return `fact` with the page's {"value": …} and/or {"when": …}; refuse other fields or no change."""
    unknown = sorted(set(changes) - {"value", "when"})
    if unknown or not changes:
        raise Refused("unknown_field" if unknown else "no_change", ", ".join(unknown) or None)
    value = typed_value(changes["value"]) if "value" in changes else fact.value
    when = typed_when(changes["when"]) if "when" in changes else fact.when
    if value == fact.value and when == fact.when:
        raise Refused("no_change")
    return replace(fact, value=value, when=when, source_message_id=None)


def new_fact(fields: dict) -> Fact:
    """Return the fact the page's {"category": …, "value": …, "when": …} adds, keyed by its category and words."""
    unknown = sorted(set(fields) - {"category", "value", "when"})
    if unknown:
        raise Refused("unknown_field", ", ".join(unknown))
    category = fields.get("category")
    if category not in HAND_CATEGORIES:
        raise Refused("bad_category", "category")
    value = typed_value(fields.get("value"))
    when = typed_when(fields.get("when"))
    return Fact(category, f"{category}:{slug(value) or 'note'}", value, importance=HAND_IMPORTANCE,
                confidence=1.0, when=when)


def settings_changes(fields: dict) -> dict[str, object]:
    """Return the settings to store for {"timezone": zone, city or null, "checkins": bool, "memory": bool}."""
    unknown = sorted(set(fields) - set(SETTINGS))
    if unknown or not fields:
        raise Refused("unknown_field" if unknown else "no_change", ", ".join(unknown) or None)
    changes: dict[str, object] = {}
    if "timezone" in fields:
        place = fields["timezone"]
        if place is not None and not isinstance(place, str):
            raise Refused("bad_type", "timezone")
        zone = parse_zone(place.strip()[:100]) if place and place.strip() else None
        if place and place.strip() and zone is None:
            raise Refused("bad_zone", "timezone")
        changes["timezone"] = zone
    for switch in ("checkins", "memory"):
        if switch in fields:
            if not isinstance(fields[switch], bool):
                raise Refused("bad_type", switch)
            changes[switch] = "on" if fields[switch] else "off"
    return changes
