"""The wall clock: the one default `now` of the process; services are given it, tests give a fake one."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> datetime:
    """Return the current time as an aware UTC datetime."""
    return datetime.now(timezone.utc)
