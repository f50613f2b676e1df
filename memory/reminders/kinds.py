"""What a message asks of reminders: the plain frozen types that memory/reminders/requests.py gives back.

Times are aware datetimes in the user's own zone. `MoveReminder` carries the parts the user said, not a time,
because the new time depends on the reminder it moves: `moved(original, now)` works it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from memory.reminders.repeat import Repeat, local


@dataclass(frozen=True)
class SetReminder:
    """Remind of `task` at `at` (the first delivery), and again by `repeat` when it recurs."""

    task: str
    at: datetime
    repeat: Repeat | None = None


@dataclass(frozen=True)
class AskReminder:
    """A bare hour ("в 7"): the user is asked which of `choices` (morning, evening) they meant."""

    task: str
    choices: tuple[SetReminder, ...]


@dataclass(frozen=True)
class Unclear:
    """Plainly a request, but the rules cannot tell when: the caller asks the model once."""

    task: str


@dataclass(frozen=True)
class TooOften:
    """A repeat more often than once an hour ("каждые 10 минут"), which the bot declines."""

    task: str


@dataclass(frozen=True)
class CancelReminder:
    """Cancel the reminder `about` names ("" for the last one set)."""

    about: str = ""


@dataclass(frozen=True)
class MoveReminder:
    """Move the last reminder set: to `day`, to a clock (two `clocks` when the hour's half was not said),
    to midnight, or by `shift`."""

    day: date | None = None
    clocks: tuple[tuple[int, int], ...] = ()
    shift: timedelta | None = None
    midnight: bool = False

    def moved(self, original: datetime, now: datetime) -> datetime | None:
        """Return the new time of a reminder due at `original`, or None when it would be past.

        A clock alone keeps the original's day, or takes the next such clock when that is past; a day alone keeps
        the original's clock; a shift counts from the original, or from now once the original has gone by. Of
        a bare hour's two clocks, the one nearer the original is meant ("на 8" moves 19:00 to 20:00).
        """
        zone = now.tzinfo
        original = original.astimezone(zone)
        if self.shift is not None:
            base = original if original > now else now
            moment = (base.astimezone(timezone.utc) + self.shift).astimezone(zone).replace(second=0, microsecond=0)
            return moment if moment > now else None
        if self.midnight:
            moment = local((self.day or original.date()) + timedelta(days=1), (0, 0), zone)
            return moment if moment > now else None
        if not self.clocks:
            if self.day is None:
                return None
            moment = local(self.day, (original.hour, original.minute), zone)
            return moment if moment > now else None
        candidates = []
        for clock in self.clocks:
            moment = local(self.day or original.date(), clock, zone)
            if moment <= now and self.day is None:
                moment = local(now.date(), clock, zone)
                if moment <= now:
                    moment = local(now.date() + timedelta(days=1), clock, zone)
            if moment > now:
                candidates.append(moment)
        if not candidates:
            return None
        return min(candidates, key=lambda moment: abs(moment - original))


Request = SetReminder | AskReminder | Unclear | TooOften | CancelReminder | MoveReminder
