"""The plain types of unlearning: what the user's words ask to change in memory, and what a forget removed."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.facts import Fact

# What a Change asks for.
END, REPLACE, FORGET, FORGET_THIS, FORGET_ALL = "end", "replace", "forget", "forget_this", "forget_all"


@dataclass(frozen=True)
class Change:
    """One thing a message says about what is remembered, before it is matched to the user's facts.

    `about` is the user's words naming what it is about ("мою собаку", "Барсик", "Google", "курить"); `slots`
    narrows which facts those words may mean ("employer" for a job left, "pet"/"family" for a death).
    """

    op: str  # END, REPLACE, FORGET, FORGET_THIS or FORGET_ALL
    about: str = ""
    slots: tuple[str, ...] = ()  # key slots it may mean; empty: any
    how: str | None = None  # END: "ended" or "died"
    on: str | None = None  # END: the local date it ended, where the words say ("2026-11-30")
    new: str | None = None  # REPLACE: the value that replaces the one named in `about`
    when: str | None = None  # REPLACE: a new date for the plan named in `about`
    plural: bool = False  # FORGET: the words name several ("my pets", "обеих сестёр")
    sentence: str = ""  # the sentence that says it (kept out of the session when it is a forget request)


@dataclass(frozen=True)
class Forgotten:
    """What one forget request removed: the facts (for the confirmation line) and the Undo record's id."""

    facts: list[Fact] = field(default_factory=list)
    undo_id: int | None = None  # None when there was nothing to undo
    messages: int = 0  # session messages scrubbed or dropped
