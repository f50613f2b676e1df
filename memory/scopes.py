"""Whose memory a message speaks to: the user's private one, or theirs in one group. Pure.

A group is a public room: whatever reaches its prompt, every member can read in the reply. So what a user tells the
bot in their private chat stays there, and what they say in a group is kept apart, per member per group, under a
memory key of its own (a users row whose id is below MEMBER_KEYS, never a Telegram id). Only what the user chose
to share (`Fact.shared`, set on the memory page) crosses: a private fact follows them into their groups, a fact
said in a group follows them into their private chat.
docs/behaviour.md ("Private stays private") says why.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterator, Sequence

from memory.facts import Fact

FROM_GROUPS = "from_groups"  # the user's setting: some fact said in a group follows them into their private chat
# Telegram's ids (users, groups, channels: -100…) stay within 52 bits; member keys lie far below any of them, and
# within the 64 bits of SQLite's INTEGER and PostgreSQL's BIGINT.
MEMBER_KEYS = -(2**61)
KEY_SPAN = 2**60
PROBES = 8  # tries past a taken key (another member's by a hash collision: about one in 2**60 a pair)


@dataclass(frozen=True)
class Scope:
    """Where a message was said and whose memory it speaks to."""

    key: int  # whose memory: the speaker's own id in private, their member key in a group
    owner: int  # the Telegram user (or chat posting as itself) behind it: their limits, settings and /forget
    chat_id: int | None = None  # the group; None in the private chat
    title: str | None = None  # the group's title

    @property
    def private(self) -> bool:
        """True in the user's private chat (their own memory)."""
        return self.chat_id is None


def private_scope(user_id: int) -> Scope:
    """Return the scope of the user's private chat: their own memory."""
    return Scope(key=user_id, owner=user_id)


def is_member_key(key: int) -> bool:
    """True for a member's memory in a group (a key member_keys gave), False for a Telegram id."""
    return key < MEMBER_KEYS


def member_keys(user_id: int, chat_id: int) -> Iterator[int]:
    """Yield the keys to try, in order, for the user's memory in the group `chat_id`: the same on every machine
    and every run (a hash of the pair), then the next few should another pair hold it."""
    digest = hashlib.blake2b(f"{user_id}:{chat_id}".encode(), digest_size=8).digest()
    first = int.from_bytes(digest, "big") % KEY_SPAN
    for probe in range(PROBES):
        yield MEMBER_KEYS - 1 - (first + probe) % KEY_SPAN


def visible_in_group(own: Sequence[Fact], shared: Sequence[Fact]) -> list[Fact]:
    """Return the facts a member's prompt in a group may hold: those learned in that group (`own`), then those of
    their private memory they chose to share (`shared`) whose key the group has not learned a value of its own
    for (what they said there is newer, and in front of everyone)."""
    keys = {fact.key for fact in own}
    return [*own, *(fact for fact in shared if fact.key not in keys)]

