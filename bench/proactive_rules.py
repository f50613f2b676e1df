"""The 30-day simulation of bench/proactive.py: its people, what was attempted, and the rules every attempt
must keep (checked after the run, from the recorder's log alone)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from memory.facts import Fact
from memory.time.schedule import followup_due
from services.outreach_policy import LATE_LIMIT, quiet_end


@dataclass
class Person:
    id: int
    zone: ZoneInfo
    setting: str | None  # set with /timezone; None: BOT_TIMEZONE
    habit: str
    events: list[tuple[datetime, str, list[Fact]]] = field(default_factory=list)  # (at, text, facts told)
    opt_out: datetime | None = None
    block: tuple[datetime, datetime] | None = None  # blocked the bot from, until they write again

    def blocked(self, now: datetime) -> bool:
        return self.block is not None and self.block[0] <= now < self.block[1]


@dataclass(frozen=True)
class Attempt:
    at: datetime
    person: Person
    kind: str
    when: str | None
    first: bool
    blocked: bool  # the recorder answered "blocked": an attempt, not a delivery


RULES = ("at most PROACTIVE_DAILY_MAX per local day", "none inside quiet hours (local)", "none after opting out",
         "at most one attempt per block", "no two check-ins without a user message between",
         "follow-ups within [due, due + 2 days]", "'first' on the first message only")


def violations(config, people: dict[int, Person], attempts: list[Attempt]) -> dict[str, list[str]]:
    """Return, for each rule, the attempts that broke it."""
    broken: dict[str, list[str]] = defaultdict(list)
    per_day, per_block, seen = Counter(), Counter(), set()
    for a in attempts:
        local = a.at.astimezone(a.person.zone)
        who = f"user {a.person.id} ({a.person.zone.key}) {a.kind} {a.at:%m-%d %H:%M}Z, local {local:%m-%d %H:%M}"
        per_day[a.person.id, local.date()] += 1
        checks = (per_day[a.person.id, local.date()] > config.proactive_daily_max,
                  quiet_end(local, config.quiet_hours) is not None,
                  a.person.opt_out is not None and a.at >= a.person.opt_out)
        for rule, bad in zip(RULES, checks, strict=False):
            if bad:
                broken[rule].append(who + (f", opted out {a.person.opt_out:%m-%d %H:%M}Z" if a.person.opt_out else ""))
        per_block[a.person.id] += a.blocked
        if per_block[a.person.id] > 1:
            broken[RULES[3]].append(f"{who}, blocked {a.person.block}")
        due = followup_due(a.when or "", a.person.zone, config.followup_after_hours) if a.kind == "followup" else None
        if a.kind == "followup" and (due is None or not due <= a.at < due + LATE_LIMIT):
            broken[RULES[5]].append(f"{who}, event {a.when}")
        if a.first != (a.person.id not in seen):
            broken[RULES[6]].append(f"{who}, first={a.first}")
        seen.add(a.person.id)
    for person in people.values():
        timeline = sorted([(t, "user") for t, _, _ in person.events]
                          + [(a.at, a.kind) for a in attempts if a.person is person and a.kind == "checkin"])
        for (t1, k1), (t2, k2) in zip(timeline, timeline[1:], strict=False):
            if k1 == k2 == "checkin":
                broken[RULES[4]].append(f"user {person.id}: check-ins {t1:%m-%d %H:%M}Z and {t2:%m-%d %H:%M}Z")
    return broken
