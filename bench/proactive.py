"""What writing first costs: one sweep over 100,000 users, and 30 days of sweeps with its rules checked.

Part 1, *sweep cost*: 100,000 users in their private chat, each with a check-in time (1,000 due now, the
rest ahead), and 20,000 dated plans with a follow-up time (a few due). Each run gets a fresh copy of the
file and times the real Store and the pure rules: `due_items`, `decide` for every item, `move_items` for
the deferred ones, then `claim_item` for each one sent (no model, no Telegram). Also the shipped
`Outreach.sweep()` with `write` replaced by nothing, and the query plan of the due query.

Part 2, *30 days*: 1,000 users with zones around the globe write on a fake clock stepped by 10 minutes
(daily, weekly, some vanish); they tell of dated plans, 5 % opt out, 3 % block the bot. Each step runs the
real `Outreach.sweep()` on a real Store; the model is the real ChatModel over an `openai.AsyncOpenAI` whose
HTTP goes to an `httpx.MockTransport`, and Telegram is a recorder. Exits 1 if a rule is broken: the daily
cap per local day, quiet hours, opt-out, more than one attempt per block, two check-ins with no message
from the user between them, a follow-up outside its window, or "first" said twice.

    .venv/bin/python bench/proactive.py               # both parts, about 3 minutes on 2 cores
    .venv/bin/python bench/proactive.py --part sweep  # or --part sim [--seed 20261130 --users 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from datetime import time as clock_time
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import openai

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chat.outreach as outreach_module  # noqa: E402
from chat.llm import ChatModel  # noqa: E402
from chat.outreach import Outreach  # noqa: E402
from config import load_config  # noqa: E402
from memory import zones  # noqa: E402
from memory.facts import Extraction, Fact  # noqa: E402
from memory.schedule import LATE_LIMIT, decide, followup_due, plan_followup, quiet_end, recurrence  # noqa: E402
from memory.store import Store  # noqa: E402
from memory.store_facts import _iso  # noqa: E402
from memory.store_proactive import DUE_QUERY  # noqa: E402

ZONES = ("Asia/Vladivostok", "America/Los_Angeles", "Europe/Moscow", "Australia/Sydney", "Europe/London",
         "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Auckland", "America/Sao_Paulo",
         "Asia/Tokyo", "Pacific/Honolulu", "Europe/Berlin", "Asia/Dubai", None)  # None: BOT_TIMEZONE (UTC)
SWEEP_NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
MODEL_TEXT = "How is Murka doing?"
PLANS = {"plan:exam": "exam", "plan:interview": "job interview", "plan:dentist": "dentist appointment"}


def bench_config():
    """Return the bot's Config as the environment would make it (defaults: 72 h, 22-9, 1 a day, 3 h)."""
    keys = ("CHECKIN_AFTER_HOURS", "QUIET_HOURS", "PROACTIVE_DAILY_MAX", "FOLLOWUP_AFTER_HOURS")
    env = {key: value for key, value in os.environ.items() if key in keys}
    return load_config({**env, "TELEGRAM_BOT_TOKEN": "42:BENCHMARK-TOKEN", "OPENAI_API_KEY": "none"})


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.2f} ms  (runs: {' '.join(f'{s * 1000:.1f}' for s in samples)})"


# ---------------------------------------------------------------- part 1: the cost of one sweep

def populate(path: Path, rng: random.Random, users=100_000, due=1_000, plans=20_000, due_plans=20) -> None:
    """Fill a migrated file by bulk inserts (set-up only): users, check-ins, city facts, plans, due users' sessions."""
    old, due_ids = _iso(SWEEP_NOW - timedelta(days=40)), set(rng.sample(range(1, users + 1), due))
    user_rows, fact_rows, message_rows = [], [], []
    for uid in range(1, users + 1):
        zone = rng.choice(ZONES)
        local_today = SWEEP_NOW.astimezone(ZoneInfo(zone or "UTC")).date()
        minutes = -rng.uniform(0, 360) if uid in due_ids else rng.uniform(1, 72 * 60)
        day = (local_today - timedelta(days=rng.choice((0, 1, 4)))).isoformat() if rng.random() < 0.3 else None
        user_rows.append((uid, "U", rng.choice(("en", "ru")), old, old, json.dumps({"timezone": zone} if zone else {}),
                          _iso(SWEEP_NOW + timedelta(minutes=minutes)), day, 1 if day else 0))
        if rng.random() < 0.3:
            fact_rows.append((uid, "location", "city", rng.choice(("Moscow", "Berlin", "Tokyo")), None, None))
    for n in range(plans):  # date-only plans: asked about from 10:00 local the day after
        uid, overdue = rng.randrange(1, users + 1), n < due_plans
        when = SWEEP_NOW.date() + timedelta(days=-1 if overdue else rng.randint(1, 6))
        at = SWEEP_NOW + timedelta(minutes=-rng.uniform(0, 60) if overdue else rng.uniform(60, 8 * 24 * 60))
        fact_rows.append((uid, "plans", f"plan:event{n}", "exam", when.isoformat(), _iso(at)))
    for uid in sorted(due_ids):  # a full session (20 messages), all read by the extractor, for the claims' prune
        message_rows += [(uid, role, "words", old) for _ in range(10) for role in ("user", "assistant")]
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO users (id, first_name, language_code, first_seen, last_seen, settings,"
                       " private_chat, checkin_at, proactive_day, proactive_count) VALUES (?,?,?,?,?,?,1,?,?,?)",
                       user_rows)
        db.executemany("INSERT OR IGNORE INTO facts (user_id, category, key, value, importance, confidence, source,"
                       " created_at, updated_at, when_at, followup_at) VALUES (?,?,?,?,5,0.9,'rule',?,?,?,?)",
                       [(u, c, k, v, old, old, w, f) for u, c, k, v, w, f in fact_rows])
        db.executemany("INSERT INTO messages (user_id, role, content, created_at) VALUES (?,?,?,?)", message_rows)
        db.execute("UPDATE users SET extracted_upto = (SELECT MAX(id) FROM messages)")
    db.close()


def query_plan(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        stamp = _iso(SWEEP_NOW)
        rows = db.execute(f"EXPLAIN QUERY PLAN {DUE_QUERY}", (stamp, stamp, 1000)).fetchall()
    db.close()
    return [row[-1] for row in rows]


async def fresh(base: Path, config) -> tuple[Store, Outreach]:
    """Open a fresh copy of the populated file, its pages read once as the previous sweep would have read them."""
    copy = base.with_name("run.db")
    shutil.copyfile(base, copy)
    store = await Store.open(copy)
    await store.due_items(SWEEP_NOW, 1000)
    return store, Outreach(store, None, config, "", clock=lambda: SWEEP_NOW)  # type: ignore[arg-type]


async def sweep_cost(folder: Path, runs: int) -> None:
    config = bench_config()
    base = folder / "sweep.db"
    await (await Store.open(base)).close()  # the real migrations make the schema
    started = time.perf_counter()
    populate(base, random.Random(1))
    print(f"populated 100,000 users (1,000 check-ins due), 20,000 plans (20 due) in {time.perf_counter() - started:.1f}s")
    zones.warm()  # the bot builds the city index at start-up, off the event loop
    plan = query_plan(base)
    print("EXPLAIN QUERY PLAN of the due query:\n" + "\n".join(f"    {line}" for line in plan))
    for index in ("users_by_checkin", "facts_by_followup"):
        print(f"  [{'ok' if any(index in line for line in plan) else 'MISSING'}] uses {index}")
    stages: dict[str, list[float]] = defaultdict(list)
    counts = Counter()
    for _ in range(runs):
        store, outreach = await fresh(base, config)
        t0 = time.perf_counter()
        items = await store.due_items(SWEEP_NOW, 1000)
        t1 = time.perf_counter()
        ready, moves = {}, []
        for item in items:  # what Outreach.sweep() does with what it read
            decision = decide(item, SWEEP_NOW, outreach.manners, outreach.zone(item))
            if decision.action == "send":
                ready.setdefault(item.user_id, item)
            else:
                moves.append((item, decision.at))
        t2 = time.perf_counter()
        await store.move_items(moves)
        t3 = time.perf_counter()
        for item in ready.values():
            zone = outreach.zone(item)
            await store.claim_item(item, MODEL_TEXT, SWEEP_NOW, SWEEP_NOW.astimezone(zone).date().isoformat(),
                                   recurrence(item, zone), config.history_limit)
        t4 = time.perf_counter()
        await store.close()
        counts.update(read=len(items), send=len(ready), moved=len(moves))
        for name, seconds in (("due_items(now, 1000)", t1 - t0), ("decide() for each", t2 - t1),
                              ("move_items(deferred)", t3 - t2), ("sweep: read + decide + move", t3 - t0),
                              ("claim_item, per item", (t4 - t3) / max(1, len(ready)))):
            stages[name].append(seconds)
        for limit in (1000, outreach_module.SWEEP_LIMIT):  # the shipped sweep; write() (model, claim, send) is off
            store, outreach = await fresh(base, config)
            outreach.write = _no_write  # type: ignore[method-assign]
            shipped, outreach_module.SWEEP_LIMIT = outreach_module.SWEEP_LIMIT, limit
            t0 = time.perf_counter()
            await outreach.sweep()
            stages[f"Outreach.sweep(), SWEEP_LIMIT={limit}"].append(time.perf_counter() - t0)
            outreach_module.SWEEP_LIMIT = shipped
            await store.close()
    print(f"medians of {runs} runs, each on a fresh copy; per run {counts['read'] // runs} items read,"
          f" {counts['send'] // runs} to send now, {counts['moved'] // runs} moved (quiet hours, daily cap, day window):")
    for name, samples in stages.items():
        print(f"  {name:<36} {median_ms(samples)}")
    total = statistics.median(stages["sweep: read + decide + move"]) * 1000
    print(f"  [{'met' if total <= 50 else 'MISSED'}] one sweep, 1,000 due of 100,000, without the model: ≤ 50 ms")


async def _no_write(item) -> bool:
    return False


# ---------------------------------------------------------------- part 2: 30 days on a fake clock

@dataclass
class Person:
    id: int
    zone: ZoneInfo
    setting: str | None  # the /timezone setting; None: BOT_TIMEZONE
    habit: str
    events: list[tuple[datetime, str, list[Fact]]] = field(default_factory=list)  # (when, text, facts told)
    opt_out: datetime | None = None
    block: tuple[datetime, datetime] | None = None  # blocked from, until (they write again)

    def blocked(self, now: datetime) -> bool:
        return self.block is not None and self.block[0] <= now < self.block[1]


def make_person(uid: int, rng: random.Random, start: datetime, days: int) -> Person:
    """Return a user with a zone, a habit, their messages over `days` and what they tell; some opt out or block."""
    setting = rng.choice(ZONES)
    zone, end = ZoneInfo(setting or "UTC"), start + timedelta(days=days)
    habit = rng.choices(("daily", "weekly", "vanishing", "rare"), (35, 30, 20, 15))[0]
    first = rng.randrange(0, 5)
    chance = {"daily": 0.85, "weekly": 1.5 / 7}.get(habit, 0.0)
    active = {first} | {d for d in range(first, days + 1) if rng.random() < chance}
    if habit == "vanishing":
        active |= set(range(first, first + rng.randint(1, 6)))
    elif habit == "rare":
        active |= set(rng.sample(range(first, days), rng.randint(0, 2)))
    local_start = start.astimezone(zone).date()
    times = sorted(datetime.combine(local_start + timedelta(days=d), clock_time(rng.choice(range(7, 26)) % 24,
                   rng.randrange(60)), tzinfo=zone).astimezone(timezone.utc) for d in active for _ in range(rng.randint(1, 3)))
    person = Person(uid, zone, setting, habit)
    if rng.random() < 0.05:
        person.opt_out = start + timedelta(days=rng.uniform(0, days))
    if rng.random() < 0.03:
        blocked = start + timedelta(days=rng.uniform(1, days - 1))
        back = blocked + timedelta(days=rng.uniform(2, 10)) if rng.random() < 0.5 else end + timedelta(days=1)
        person.block = (blocked, back)
        times = [t for t in times if not blocked <= t < back] + ([back] if back < end else [])
    told: dict[str, datetime] = {}  # plan key -> when it began (UTC)
    for n, moment in enumerate(t for t in times if start < t < end):
        facts, local = [], moment.astimezone(zone)
        done = next((key for key, began in told.items() if began < moment), None)
        text = f"The {PLANS[done]} went fine!" if done and rng.random() < 0.3 else "Quiet day, walked a lot."
        if done and text.startswith("The"):
            told.pop(done)
        if n == 0 and rng.random() < 0.05:  # a birthday within the month
            born = (local + timedelta(days=rng.randint(2, days - 2))).date().replace(year=1990)
            facts.append(Fact("personal", "birthday", "birthday", when=born.isoformat()))
        if rng.random() < 0.1:
            key = rng.choice(list(PLANS))
            day = local.date() + timedelta(days=rng.choice((-1, 1, 2, 3, 4)))  # -1: "I had an exam yesterday"
            dated = rng.random() < 0.5
            when = f"{day}T{rng.randint(9, 19):02}:00" if dated else day.isoformat()
            facts.append(Fact("plans", key, PLANS[key], when=when))
            told[key] = datetime.combine(day, clock_time(int(when[11:13]) if dated else 0), tzinfo=zone)
        person.events.append((moment, text, facts))
    return person


def fake_model(counter: Counter) -> ChatModel:
    """Return the real ChatModel over a real AsyncOpenAI whose HTTP is answered in-process with MODEL_TEXT."""
    def answer(request: httpx.Request) -> httpx.Response:
        counter["calls"] += 1
        assert request.url.path.endswith("/chat/completions"), request.url
        message = {"role": "assistant", "content": MODEL_TEXT}
        return httpx.Response(200, json={"id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
                                         "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
    client = openai.AsyncOpenAI(api_key="sk-bench", base_url="http://model.test/v1", max_retries=0,
                                http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)))
    return ChatModel(client, "bench")


@dataclass(frozen=True)
class Attempt:
    at: datetime
    person: Person
    kind: str
    when: str | None
    first: bool
    blocked: bool


async def simulate(folder: Path, seed: int, users: int, days: int, start: datetime) -> list[Attempt]:
    config, rng, clock = bench_config(), random.Random(seed), [start]
    people = {uid: make_person(uid, rng, start, days) for uid in range(1, users + 1)}
    happenings = sorted([(t, 0, p.id, text, facts) for p in people.values() for t, text, facts in p.events]
                        + [(p.opt_out, 1, p.id, "", []) for p in people.values() if p.opt_out], key=lambda e: e[:3])
    store, counter = await Store.open(folder / "sim.db"), Counter()
    outreach = Outreach(store, fake_model(counter), config, "You are a warm companion.", clock=lambda: clock[0])
    attempts: list[Attempt] = []
    claimed = {}
    claim = store.claim_item

    async def recording_claim(item, *args):  # remembers what is being sent, for the recorder below
        message_id = await claim(item, *args)
        claimed[item.user_id] = item
        return message_id
    store.claim_item = recording_claim  # type: ignore[method-assign]

    async def send(user_id: int, text: str, first: bool, language_code: str | None) -> str:
        person, item = people[user_id], claimed[user_id]
        attempts.append(Attempt(clock[0], person, item.kind, item.when, first, person.blocked(clock[0])))
        assert text == MODEL_TEXT
        return "blocked" if person.blocked(clock[0]) else "sent"
    outreach.send = send

    started, index, update_id, sweep_seconds, met = time.perf_counter(), 0, 0, [], set()
    while clock[0] < start + timedelta(days=days):
        clock[0] += timedelta(minutes=10)
        while index < len(happenings) and happenings[index][0] <= clock[0]:
            at, what, uid, text, facts = happenings[index]
            index, person, update_id = index + 1, people[uid], update_id + 1
            if what == 1:
                await store.set_setting(uid, "checkins", "off", at)
                continue
            if person.setting and uid not in met:  # /timezone, before their first message
                await store.set_setting(uid, "timezone", person.setting, at)
            met.add(uid)
            turn = await store.begin_turn(user_id=uid, first_name="U", language_code="en", text=text, now=at,
                                          update_id=update_id, history_limit=config.history_limit, private=True,
                                          checkin_at=at + timedelta(hours=config.checkin_after_hours))
            if facts:
                await store.save_facts(uid, Extraction(facts), at, config.memory_max_facts,
                                       plan=lambda f: plan_followup(f, person.zone, at, config.followup_after_hours))
            await store.add_reply(uid, "I'm glad you told me.", at, config.history_limit, reply_to=turn.message_id)
        t0 = time.perf_counter()
        await outreach.sweep()
        sweep_seconds.append(time.perf_counter() - t0)
    wall = time.perf_counter() - started
    await store.close()
    await outreach.model.client.close()
    report(config, people, attempts, counter, outreach.calls, days, wall, sweep_seconds, len(happenings))
    return attempts


def violations(config, people: dict[int, Person], attempts: list[Attempt]) -> dict[str, list[str]]:
    """Return each rule and the attempts that broke it (empty lists when none did)."""
    broken: dict[str, list[str]] = defaultdict(list)
    per_day, per_block, seen = Counter(), Counter(), set()
    for a in attempts:
        local, who = a.at.astimezone(a.person.zone), f"user {a.person.id} ({a.person.zone.key}) {a.kind} at {a.at:%m-%d %H:%M}Z"
        per_day[a.person.id, local.date()] += 1
        if per_day[a.person.id, local.date()] > config.proactive_daily_max:
            broken["daily cap per local day"].append(f"{who}, local {local:%m-%d %H:%M}")
        if quiet_end(local, config.quiet_hours) is not None:
            broken["outside quiet hours"].append(f"{who}, local {local:%H:%M}")
        if a.person.opt_out and a.at >= a.person.opt_out:
            broken["none after opting out"].append(f"{who}, opted out {a.person.opt_out:%m-%d %H:%M}Z")
        per_block[a.person.id] += a.blocked
        if per_block[a.person.id] > 1:
            broken["at most one attempt per block"].append(who)
        if a.first != (a.person.id not in seen):
            broken["'first' only on the first message"].append(f"{who}, first={a.first}")
        seen.add(a.person.id)
        if a.kind == "followup":
            due = followup_due(a.when or "", a.person.zone, config.followup_after_hours)
            if due is None or not due <= a.at < due + LATE_LIMIT:
                broken["follow-up within its window"].append(f"{who}, event {a.when}")
    for person in people.values():
        timeline = sorted([(t, "user") for t, _text, _facts in person.events]
                          + [(a.at, a.kind) for a in attempts if a.person is person and a.kind == "checkin"])
        for (t1, k1), (t2, k2) in zip(timeline, timeline[1:]):
            if k1 == k2 == "checkin":
                broken["no two check-ins without a user message"].append(f"user {person.id}: {t1:%m-%d %H:%M}Z, {t2:%m-%d %H:%M}Z")
    return broken


def report(config, people, attempts, counter, calls, days, wall, sweeps, happenings) -> None:
    sent = [a for a in attempts if not a.blocked]
    weeks = days / 7
    per_user = sorted(sum(1 for a in sent if a.person is p) / weeks for p in people.values())
    kinds = Counter(a.kind for a in sent)
    print(f"users by habit: {dict(Counter(p.habit for p in people.values()))}; {happenings:,} messages and opt-outs;"
          f" {sum(p.opt_out is not None for p in people.values())} opt out, {sum(p.block is not None for p in people.values())} block")
    print(f"sent {len(sent):,} ({', '.join(f'{k} {n:,}' for k, n in kinds.most_common())});"
          f" {len(attempts) - len(sent)} attempts answered 'blocked'")
    print(f"per user per week: mean {statistics.mean(per_user):.2f}, p50 {per_user[len(per_user) // 2]:.2f},"
          f" p90 {per_user[int(len(per_user) * 0.9)]:.2f}, max {per_user[-1]:.2f}")
    by_habit = {h: statistics.mean(sum(1 for a in sent if a.person is p) / weeks for p in people.values() if p.habit == h)
                for h in ("daily", "weekly", "vanishing", "rare")}
    print("  mean by habit: " + ", ".join(f"{h} {v:.2f}" for h, v in by_habit.items()))
    print(f"model calls: {counter['calls']:,} over HTTP (Outreach.calls {calls:,}); {counter['calls'] / max(1, len(sent)):.3f}"
          f" per message sent, {counter['calls'] / max(1, len(attempts)):.3f} per attempt")
    print(f"wall time {wall:.1f}s for {len(sweeps):,} sweeps (sweep p50 {statistics.median(sweeps) * 1000:.2f} ms,"
          f" max {max(sweeps) * 1000:.1f} ms)")
    broken = violations(config, people, attempts)
    for rule in ("daily cap per local day", "outside quiet hours", "none after opting out", "at most one attempt per block",
                 "no two check-ins without a user message", "follow-up within its window", "'first' only on the first message"):
        cases = broken.get(rule, [])
        print(f"  [{'ok' if not cases else 'VIOLATED'}] {rule}" + "".join(f"\n      {c}" for c in cases[:10]))
    print(f"  [ok] none delivered to a blocked user (attempts while blocked: {len(attempts) - len(sent)})")
    if broken:
        sys.exit(1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("sweep", "sim", "both"), default="both")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--start", default="2026-10-15", help="UTC date; the default crosses two DST changes")
    args = parser.parse_args()
    config = bench_config()
    print(f"CHECKIN_AFTER_HOURS {config.checkin_after_hours:g}, QUIET_HOURS {config.quiet_hours},"
          f" PROACTIVE_DAILY_MAX {config.proactive_daily_max}, FOLLOWUP_AFTER_HOURS {config.followup_after_hours:g}")
    with tempfile.TemporaryDirectory() as folder:
        if args.part in ("sweep", "both"):
            print("== sweep cost")
            await sweep_cost(Path(folder), args.runs)
        if args.part in ("sim", "both"):
            start = datetime.fromisoformat(args.start).replace(tzinfo=timezone.utc)
            print(f"== {args.days} days, {args.users:,} users, sweep every 10 minutes from {start:%Y-%m-%d}, seed {args.seed}")
            await simulate(Path(folder), args.seed, args.users, args.days, start)


if __name__ == "__main__":
    asyncio.run(main())
