"""Pure rules of continuity: where a conversation begins and ends, and which earlier ones the prompt recalls.

A conversation is a run of the user's own messages with no gap longer than CONVERSATION_GAP_MINUTES
between two of them; it may cross midnight. Each keeps one topic line, written by the LLM extraction pass
("волнуется перед экзаменом по химии; ездила смотреть квартиру на Лесной").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Sequence

TOPICS_IN_PROMPT = 3  # at most this many earlier conversations in "Last time you talked"


@dataclass(frozen=True)
class Topic:
    """The line of one earlier conversation, and when it began and ended (the user's first and last message)."""

    text: str
    started_at: datetime
    ended_at: datetime
    id: int | None = None


def conversation_start(times: Sequence[datetime], gap: timedelta) -> datetime | None:
    """Return when the conversation of the last of `times` (the user's messages, oldest first) began.

    Looking back no further than `times` reach: a conversation longer than them began at the first.
    """
    if not times:
        return None
    start = times[-1]
    for earlier in reversed(times[:-1]):
        if start - earlier > gap:
            break
        start = earlier
    return start


def first_conversation(messages: Sequence[dict], gap: timedelta) -> list[dict]:
    """Return the messages (each with "role" and "at", oldest first) up to where the user's next conversation
    begins, so one extraction pass never mixes two conversations; the bot's replies go with the user's."""
    last_user: datetime | None = None
    for index, message in enumerate(messages):
        if message["role"] != "user":
            continue
        if last_user is not None and message["at"] - last_user > gap:
            return list(messages[:index])
        last_user = message["at"]
    return list(messages)


def continues(latest: Topic | None, first_message_at: datetime, gap: timedelta) -> bool:
    """True when a message at `first_message_at` belongs to the conversation of the `latest` stored line."""
    return latest is not None and timedelta(0) <= first_message_at - latest.ended_at <= gap


def conversation_topic(line: str | None, ongoing: Topic | None, said: Sequence[datetime]) -> Topic | None:
    """Return the topic to store after a pass over the user's messages `said` (their times, oldest first):
    the new `line` for the conversation they continue (`ongoing`) or begin; without a line, the ongoing one
    only reaches further, so the next pass still knows it continues."""
    if not said or (line is None and ongoing is None):
        return None
    if ongoing is None:
        return Topic(text=line or "", started_at=said[0], ended_at=said[-1])
    return replace(ongoing, text=line or ongoing.text, ended_at=max(ongoing.ended_at, said[-1]))


def recalled_topics(
    topics: Sequence[Topic],
    started: datetime | None,
    window_start: datetime | None,
    gap: timedelta,
    limit: int = TOPICS_IN_PROMPT,
) -> list[Topic]:
    """Return the lines for "Last time you talked", newest first, at most `limit`.

    A line is recalled when its conversation ended more than `gap` before the current one `started` (so it
    is an earlier conversation, even when the session no longer shows where the current one began), and
    began before the first of the user's messages the prompt carries (`window_start`): a conversation the
    model reads from its start needs no line, one it sees only the tail of (or nothing of) does.
    """
    earlier = [
        topic for topic in topics
        if (started is None or started - topic.ended_at > gap)
        and (window_start is None or topic.started_at < window_start)
    ]
    return sorted(earlier, key=lambda topic: topic.ended_at, reverse=True)[:limit]
