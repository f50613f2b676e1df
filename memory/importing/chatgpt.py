"""ChatGPT's data export, `conversations.json`, read as plain records: each conversation's title, its times and the
messages on the branch that was shown last, oldest first. Pure.

Its shape: a list of conversations `{"title", "create_time", "update_time", "current_node", "mapping": {node id:
{"parent", "children", "message": {"author": {"role"}, "create_time", "content": {"content_type", "parts"}}}}}`.
A conversation is a tree (an edited message starts a branch); the one shown is the path from `current_node` up to
the root. Only text parts are read: images, code runs and tool calls are not words the user said.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from memory.importing.unpickler import UnsafeFile

ROLES = ("user", "assistant")


@dataclass(frozen=True)
class Conversation:
    """One ChatGPT conversation: its title, when it began and ended, and its (role, text, when) messages."""

    title: str
    started: datetime
    ended: datetime
    messages: list[tuple[str, str, datetime]]


def conversations(whole: Any) -> list[Conversation]:
    """Return the conversations of a parsed conversations.json, oldest first; raise UnsafeFile for another shape."""
    if not isinstance(whole, list) or not all(isinstance(item, dict) and isinstance(item.get("mapping"), dict)
                                              for item in whole):
        raise UnsafeFile("not ChatGPT's conversations.json: expected a list of conversations, each with a \"mapping\"")
    found = [conversation(item) for item in whole]
    return sorted((item for item in found if item is not None), key=lambda item: item.started)


def conversation(item: dict) -> Conversation | None:
    """Return one conversation's shown branch, or None when it holds no text from either side."""
    mapping = item["mapping"]
    node_id = item.get("current_node")
    if node_id not in mapping:  # an older export has no current_node: the newest leaf is the branch shown
        leaves = [key for key, node in mapping.items() if isinstance(node, dict) and not node.get("children")]
        node_id = max(leaves, key=lambda key: moment(message_of(mapping[key]).get("create_time")) or 0, default=None)
    path: list[tuple[str, str, datetime]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        said = spoken(message_of(node), item)
        if said is not None:
            path.append(said)
        node_id = node.get("parent") if isinstance(node, dict) else None
    if not path:
        return None
    path.reverse()
    title = item.get("title")
    title = title if isinstance(title, str) else ""
    started = as_moment(item.get("create_time")) or path[0][2]
    ended = as_moment(item.get("update_time")) or path[-1][2]
    return Conversation(title.strip(), min(started, path[0][2]), max(ended, path[-1][2]), path)


def message_of(node: Any) -> dict:
    """Return a node's message, or an empty one."""
    message = node.get("message") if isinstance(node, dict) else None
    return message if isinstance(message, dict) else {}


def spoken(message: dict, item: dict) -> tuple[str, str, datetime] | None:
    """Return (role, text, when) for a user's or the assistant's text message; None for anything else."""
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    content = message.get("content")
    if role not in ROLES or not isinstance(content, dict) or content.get("content_type") not in ("text", None):
        return None
    parts = content.get("parts")
    words = "\n".join(part for part in parts if isinstance(part, str)).strip() if isinstance(parts, list) else ""
    when = as_moment(message.get("create_time")) or as_moment(item.get("create_time"))
    if not words or when is None:
        return None
    return str(role), words, when


def moment(value: Any) -> float | None:
    """Return seconds since the epoch from a ChatGPT time (a float), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def as_moment(value: Any) -> datetime | None:
    """Return a ChatGPT time as a UTC moment, else None."""
    seconds = moment(value)
    try:
        return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class UserConversations:
    """A ChatGPT export, and the Telegram user whose it is (the file does not say: the command line does)."""

    user_id: int
    conversations: list[Conversation]
