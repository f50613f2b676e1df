"""The plain type of a message the companion may write first, as the store reads it for the sweep."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class DueItem:
    """A message the companion may write first, as the sweep read it: what, to whom, due when."""

    kind: str  # "checkin", "followup" or "birthday"
    user_id: int
    due_at: datetime
    fact_id: int | None = None
    fact_value: str | None = None
    when: str | None = None
    settings: dict = field(default_factory=dict)
    city: str | None = None
    language_code: str | None = None
    proactive_day: str | None = None  # the user's local date of the last message written first
    proactive_count: int = 0
