"""The reference bot's `user_sessions.pkl`, read as plain records: one per user, or the reason a user is skipped.

Its shape: `{user_id: {"history": [{"role", "content"}, …], "facts": ["free-text line", …], "user_name": str,
"last_message_time": float}}` (seconds since the epoch). Pure: the file itself is read by unpickler.py, and what
the records become (facts through the rules, masked messages) is decided in services/importer.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterator

from memory.importing.unpickler import UnsafeFile

KEEP_MESSAGES = 20  # the newest messages of a user's history that come along (the "last 20")
ROLES = ("user", "assistant")


@dataclass(frozen=True)
class ReferenceUser:
    """One user of the reference bot, as the pickle holds them (nothing checked beyond the types)."""

    user_id: int
    name: str | None
    facts: list[str]
    history: list[tuple[str, str]]  # (role, content) of the newest KEEP_MESSAGES messages, oldest first
    last_talked: datetime | None
    refused: list[str] = field(default_factory=list)  # what of the user's entry is left out, and why


@dataclass(frozen=True)
class Skipped:
    """A user's entry that cannot be read at all, and why."""

    user: str
    reason: str


def reference_users(data: object, only: int | None = None) -> Iterator[ReferenceUser | Skipped]:
    """Return each user of the pickle's data in turn (only user `only` when given); raise UnsafeFile at once when
    the whole is not the reference bot's shape. Each entry is let go once read, so the data shrinks as the import
    goes."""
    if not isinstance(data, dict) or not all(isinstance(entry, dict) for entry in data.values()):
        raise UnsafeFile("the pickle is not the reference bot's sessions: expected {user_id: {\"history\": …,"
                         " \"facts\": …, \"user_name\": …}}")
    return each_user(data, only)


def each_user(data: dict, only: int | None) -> Iterator[ReferenceUser | Skipped]:
    """Yield the users of `data`, already checked to be a dict of dicts, removing each from it once read."""
    for key in list(data):
        entry = data.pop(key)
        user_id = as_user_id(key)
        if user_id is None:
            yield Skipped(repr(key)[:40], "the key is not a Telegram user id")
        elif only is None or user_id == only:
            yield reference_user(user_id, entry)


def as_user_id(key: object) -> int | None:
    """Return the Telegram user id a key stands for (an int, or the digits of one), else None."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key if 0 < key < 2**53 else None
    if isinstance(key, str) and key.strip().isdigit():
        return as_user_id(int(key.strip()))
    return None


def reference_user(user_id: int, entry: dict) -> ReferenceUser:
    """Return one user's entry as a record; a part of the wrong type is left out and said so in `refused`."""
    refused: list[str] = []
    name = entry.get("user_name")
    if name is not None and not isinstance(name, str):
        refused.append("user_name is not text")
        name = None
    facts = entry.get("facts") or []
    if not isinstance(facts, list):
        refused.append("facts is not a list")
        facts = []
    lines = [line for line in facts if isinstance(line, str) and line.strip()]
    if len(lines) < len(facts):
        refused.append(f"{len(facts) - len(lines)} fact(s) empty or not text")
    history = entry.get("history") or []
    if not isinstance(history, list):
        refused.append("history is not a list")
        history = []
    messages = []
    for item in history[-KEEP_MESSAGES:]:
        if isinstance(item, dict) and item.get("role") in ROLES and isinstance(item.get("content"), str):
            messages.append((str(item["role"]), str(item["content"])))
        else:
            refused.append("a message that is not {role: user|assistant, content: text}")
    return ReferenceUser(user_id, name or None, lines, messages, last_talked(entry.get("last_message_time"), refused),
                         refused)


def last_talked(value: object, refused: list[str]) -> datetime | None:
    """Return `last_message_time` (seconds since the epoch) as a UTC moment; None, said in `refused`, otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        refused.append("last_message_time is not seconds since the epoch")
        return None
    try:
        return datetime.fromtimestamp(value, timezone.utc)
    except (OverflowError, OSError, ValueError):
        refused.append("last_message_time is out of range")
        return None
