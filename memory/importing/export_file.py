"""This bot's own /export file, read back: its shape checked field by field, so that a file of the wrong shape is
refused whole, with the first field that is wrong, before anything is written. Pure.

The file is what AccountRows.export_user gives (and MemoryPage.export adds "timezone" to): the user's row, their
private memory (facts, fact history, ✗ marks, relations, session messages, topic lines), their reminders and their
memory in groups. The import writes all of it back but the groups (their chats and other members are not in the
file) and "timezone" (worked out from the settings and the city, not stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import json_bytes
from memory.importing.unpickler import UnsafeFile

# Each list of the file: the fields of its items and the types each may take (None: may be null).
TEXT, NUMBER, INTEGER, FLAG = (str,), (int, float), (int,), (bool,)
ITEMS: dict[str, dict[str, tuple]] = {
    "facts": {"category": TEXT, "key": TEXT, "value": TEXT, "importance": INTEGER, "confidence": NUMBER,
              "source": TEXT, "learned": TEXT, "updated": TEXT, "when": TEXT + (None,)},
    "fact_history": {"key": TEXT, "value": TEXT, "valid_from": TEXT, "valid_until": TEXT, "when": TEXT + (None,)},
    "marked_wrong": {"value": TEXT + (None,), "at": TEXT},
    "relations": {"source": TEXT, "target": TEXT, "relation": TEXT, "strength": NUMBER},
    "messages": {"role": TEXT, "kind": TEXT, "content": TEXT, "at": TEXT},
    "conversations": {"topics": TEXT, "started": TEXT, "ended": TEXT},
    "reminders": {"task": TEXT, "due_at": TEXT, "rule": TEXT + (None,), "zone": TEXT, "state": TEXT,
                  "created_at": TEXT, "delivered_at": TEXT + (None,)},
}
OPTIONAL: dict[str, dict[str, tuple]] = {
    "facts": {"shared": FLAG, "ended": TEXT, "ended_at": TEXT, "ended_on": TEXT + (None,)},
    "messages": {"persona": TEXT},  # a persona's own session (PERSONAS_DIR); none: the default's
}
USER = {"id": INTEGER, "first_name": TEXT + (None,), "name": TEXT + (None,), "language_code": TEXT + (None,),
        "first_seen": TEXT, "last_seen": TEXT, "settings": (dict,)}
MOMENTS = {"facts": ("learned", "updated", "ended_at"), "fact_history": ("valid_from", "valid_until"),
           "marked_wrong": ("at",), "relations": (), "messages": ("at",), "conversations": ("started", "ended"),
           "reminders": ("due_at", "created_at", "delivered_at")}
ROLES = ("user", "assistant")
STATES = ("pending", "active", "done", "cancelled", "missed")


@dataclass(frozen=True)
class ExportedUser:
    """One user's /export file, its shape checked: `user` is their row, the lists are as the file has them."""

    user: dict
    lists: dict[str, list[dict]]
    groups: int  # memories in groups the file holds, which are not imported


def parse_export(data: bytes) -> ExportedUser:
    """Return the /export file `data` holds; raise UnsafeFile naming the first thing of the wrong shape."""
    try:
        whole = json_bytes.loads(data)
    except (ValueError, RecursionError) as error:
        raise UnsafeFile(f"not a JSON file ({error})") from None
    return exported_user(whole)


def exported_user(whole: Any) -> ExportedUser:
    """Return the checked /export data `whole` (already parsed JSON)."""
    if not isinstance(whole, dict) or not isinstance(whole.get("user"), dict) or "facts" not in whole:
        raise wrong("the top", "an object with \"user\", \"facts\", \"messages\" … (this bot's /export)")
    user = whole["user"]
    checked(user, USER, {}, "user")
    if isinstance(user["id"], bool) or user["id"] <= 0:
        raise wrong("user.id", "a Telegram user id")
    for field in ("first_seen", "last_seen"):
        moment(user[field], f"user.{field}")
    lists = {}
    for name, fields in ITEMS.items():
        items = whole.get(name, [])
        if not isinstance(items, list):
            raise wrong(name, "a list")
        for index, item in enumerate(items):
            where = f"{name}[{index}]"
            checked(item, fields, OPTIONAL.get(name, {}), where)
            for field in MOMENTS[name]:
                if item.get(field) is not None:
                    moment(item[field], f"{where}.{field}")
        lists[name] = items
    for index, message in enumerate(lists["messages"]):
        if message["role"] not in ROLES:
            raise wrong(f"messages[{index}].role", "user or assistant")
    for index, reminder in enumerate(lists["reminders"]):
        if reminder["state"] not in STATES:
            raise wrong(f"reminders[{index}].state", " or ".join(STATES))
    groups = whole.get("groups", [])
    return ExportedUser(user, lists, len(groups) if isinstance(groups, list) else 0)


def checked(item: Any, fields: dict[str, tuple], optional: dict[str, tuple], where: str) -> None:
    """Raise UnsafeFile unless `item` is an object with exactly `fields` (and any of `optional`) of their types."""
    if not isinstance(item, dict):
        raise wrong(where, "an object")
    unknown = set(item) - set(fields) - set(optional)
    if unknown:
        raise wrong(f"{where}.{sorted(unknown)[0]}", "absent (this bot's /export has no such field)")
    for field, types in {**fields, **optional}.items():
        if field not in item:
            if field in fields:
                raise wrong(f"{where}.{field}", "present")
            continue
        value = item[field]
        if value is None and None in types:
            continue
        kinds = tuple(kind for kind in types if kind is not None)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise wrong(f"{where}.{field}", " or ".join("null" if kind is None else kind.__name__ for kind in types))


def moment(text: str, where: str) -> datetime:
    """Return the ISO 8601 moment `text` (with its offset); raise UnsafeFile when it is not one."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise wrong(where, "an ISO 8601 time") from None
    if value.tzinfo is None:
        raise wrong(where, "an ISO 8601 time with its offset")
    return value


def wrong(where: str, expected: str) -> UnsafeFile:
    """Return the refusal of a file whose `where` is not `expected`."""
    return UnsafeFile(f"not this bot's export: {where} should be {expected}")
