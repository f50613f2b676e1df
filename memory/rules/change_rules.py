"""What a message says about what is remembered: endings, corrections and forget requests (pure rules)."""

from __future__ import annotations

from datetime import datetime

from memory.changes import Change
from memory.rules.corrections import extract_corrections
from memory.rules.endings import extract_endings
from memory.rules.forgets import extract_forget_requests


def extract_changes(text: str, now: datetime) -> list[Change]:
    """Return the changes the user's `text` asks for, judged against their local `now`."""
    requests = extract_forget_requests(text)
    if requests:  # "забудь, что я курю" asks to forget, it says nothing ended
        return requests
    return extract_endings(text, now.date()) + extract_corrections(text, now)
