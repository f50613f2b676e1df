"""What writing first costs: one sweep over 100,000 users, and 30 days of sweeps with their rules checked.

Part 1, *sweep cost*: 100,000 users in their private chat, each with a check-in time (1,000 due now, the
rest ahead), and 20,000 dated plans with a follow-up time (20 due). Each run gets a fresh copy of the file
and times the real Store and rules: `due_items`, `decide` for each item, `move_items` for the deferred ones
(no model, no Telegram), then `claim_item` for each one sent; and the shipped `Outreach.sweep()` with its
`write` turned off. Medians of `--runs` runs, and the query plan of the due query.

Part 2, *30 days*: 1,000 users in zones around the globe write on a fake clock stepped by 10 minutes
(daily, weekly, rarely; some vanish), tell of dated plans, 5 % opt out, 3 % block the bot. Each step runs
the real `Outreach.sweep()` on a real Store; the model is the real ChatModel over an `openai.AsyncOpenAI`
whose HTTP goes to an `httpx.MockTransport`; Telegram is a recorder. Exits 1 when a rule is broken: the
daily cap per local day, quiet hours, opt-out, one attempt per block, two check-ins with no message from
the user between them, a follow-up outside its window, "first" said twice.

    .venv/bin/python bench/proactive.py               # both parts, about 2 minutes on 2 cores
    .venv/bin/python bench/proactive.py --part sweep  # or --part sim [--seed N --users N --days N --start DATE]
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
from datetime import datetime, timedelta, timezone
from datetime import time as clock_time
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import openai

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import services.outreach as outreach_module  # noqa: E402
from bench.proactive_rules import RULES, Attempt, Person, violations  # noqa: E402
from config import load_config  # noqa: E402
from llm.client import ChatModel  # noqa: E402
from memory import zones  # noqa: E402
from memory.facts import Extraction, Fact  # noqa: E402
from memory.store.fact_rows import _iso  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from memory.store.meter import UsageMeter  # noqa: E402
from memory.store.outreach_rows import DUE_QUERY  # noqa: E402
from memory.time.schedule import plan_followup  # noqa: E402
from prompts.character_card import Persona, Personas, built_in  # noqa: E402
from services.outreach import Outreach, OutreachSettings  # noqa: E402
from services.outreach_policy import decide, recurrence  # noqa: E402

ZONES = ("Asia/Vladivostok", "America/Los_Angeles", "Europe/Moscow", "Australia/Sydney", "Europe/London",
         "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Auckland", "America/Sao_Paulo",
         "Asia/Tokyo", "Pacific/Honolulu", "Europe/Berlin", "Asia/Dubai", None)  # None: BOT_TIMEZONE (UTC)
SWEEP_NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
MODEL_TEXT = "How is Murka doing?"
PLANS = {"plan:exam": "exam", "plan:interview": "job interview", "plan:dentist": "dentist appointment"}


def bench_config():
    """Return the Config the environment makes (CHECKIN_AFTER_HOURS, QUIET_HOURS, ... or their defaults)."""
    keys = ("CHECKIN_AFTER_HOURS", "QUIET_HOURS", "PROACTIVE_DAILY_MAX", "FOLLOWUP_AFTER_HOURS")
    env = {key: value for key, value in os.environ.items() if key in keys}
    return load_config({**env, "TELEGRAM_BOT_TOKEN": "42:BENCHMARK-TOKEN", "OPENAI_API_KEY": "none"})


# ---------------------------------------------------------------- part 1: the cost of one sweep

def populate(path: Path, rng: random.Random, users=100_000, due=1_000, plans=20_000, due_plans=20) -> None:
    """Fill a migrated file by bulk inserts (set-up only): users with check-ins and zones, cities, plans."""
    old, due_ids = _iso(SWEEP_NOW - timedelta(days=40)), set(rng.sample(range(1, users + 1), due))
    user_rows, fact_rows, message_rows = [], [], []
    for uid in range(1, users + 1):
        zone = rng.choice(ZONES)
        today = SWEEP_NOW.astimezone(ZoneInfo(zone or "UTC")).date()
        minutes = -rng.uniform(0, 360) if uid in due_ids else rng.uniform(1, 72 * 60)
        day = (today - timedelta(days=rng.choice((0, 1, 4)))).isoformat() if rng.random() < 0.3 else None
        settings = json.dumps({"timezone": zone} if zone else {})
        user_rows.append((uid, old, settings, _iso(SWEEP_NOW + timedelta(minutes=minutes)), day, 1 if day else 0))
        if rng.random() < 0.3:
            fact_rows.append((uid, "location", "city", rng.choice(("Moscow", "Berlin", "Tokyo")), None, None))
    for n in range(plans):  # date-only plans: asked about from 10:00 local the day after
        uid, overdue = rng.randrange(1, users + 1), n < due_plans
        when = SWEEP_NOW.date() + timedelta(days=-1 if overdue else rng.randint(1, 6))
        at = SWEEP_NOW + timedelta(minutes=-rng.uniform(0, 60) if overdue else rng.uniform(60, 8 * 24 * 60))
        fact_rows.append((uid, "plans", f"plan:event{n}", "exam", when.isoformat(), _iso(at)))
    for uid in sorted(due_ids):  # a full session, all read by the extractor, so that a claim prunes
        message_rows += [(uid, role, "words", old) for _ in range(10) for role in ("user", "assistant")]
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO users (id, first_name, language_code, first_seen, last_seen, settings,"
                       " private_chat, checkin_at, proactive_day, proactive_count)"
                       " VALUES (?1, 'U', 'en', ?2, ?2, ?3, 1, ?4, ?5, ?6)", user_rows)
        db.executemany("INSERT OR IGNORE INTO facts (user_id, category, key, value, importance, confidence, source,"
                       " when_at, followup_at, created_at, updated_at)"
                       " VALUES (?1, ?2, ?3, ?4, 5, 0.9, 'rule', ?5, ?6, ?7, ?7)", [(*row, old) for row in fact_rows])
        db.executemany("INSERT INTO messages (user_id, role, content, created_at) VALUES (?, ?, ?, ?)", message_rows)
        db.execute("UPDATE users SET extracted_upto = (SELECT MAX(id) FROM messages)")
        stamp = _iso(SWEEP_NOW)
        plan = [row[-1] for row in db.execute(f"EXPLAIN QUERY PLAN {DUE_QUERY}", (stamp, stamp, 1000))]
    db.close()
    print("EXPLAIN QUERY PLAN of the due query:\n" + "\n".join(f"    {line}" for line in plan))
    for index in ("users_by_checkin", "facts_by_followup"):
        print(f"  [{'ok' if any(index in line for line in plan) else 'MISSING'}] uses {index}")


async def fresh(base: Path, config) -> tuple[Store, Outreach]:
    """Open a fresh copy of the populated file, its pages read once, as the previous sweep would have."""
    shutil.copyfile(base, base.with_name("run.db"))
    store = await Store.open(base.with_name("run.db"))
    await store.outreach.due_items(SWEEP_NOW, 1000)
    repos = store
    return store, Outreach(repos.claims, repos.facts, repos.outreach, repos.topics,
                           None, config.subset(OutreachSettings), Personas(built_in(), ""), None,  # type: ignore[arg-type]
                           clock=lambda: SWEEP_NOW, meter=UsageMeter(store.backend))


async def one_run(base: Path, config, stages: dict[str, list[float]], counts: Counter) -> None:
    """Time one sweep stage by stage as Outreach.sweep() runs it, then claim what it would send."""
    store, outreach = await fresh(base, config)
    t0 = time.perf_counter()
    items = await store.outreach.due_items(SWEEP_NOW, 1000)
    t1 = time.perf_counter()
    ready, moves = {}, []
    for item in items:
        decision = decide(item, SWEEP_NOW, outreach.manners, outreach.zone(item))
        if decision.action == "send":
            ready.setdefault(item.user_id, item)
        else:
            moves.append((item, decision.at))
    t2 = time.perf_counter()
    await store.outreach.move_items(moves)
    t3 = time.perf_counter()
    for item in ready.values():
        zone = outreach.zone(item)
        await store.outreach.claim_item(item, MODEL_TEXT, SWEEP_NOW, SWEEP_NOW.astimezone(zone).date().isoformat(),
                               recurrence(item, zone), config.history_limit)
    t4 = time.perf_counter()
    await store.close()
    counts.update(read=len(items), send=len(ready), moved=len(moves))
    for name, seconds in (("due_items(now, 1000)", t1 - t0), ("decide() for each", t2 - t1),
                          ("move_items(deferred)", t3 - t2), ("sweep: read + decide + move", t3 - t0),
                          ("claim_item, per item", (t4 - t3) / max(1, len(ready)))):
        stages[name].append(seconds)
    for limit in (1000, outreach_module.SWEEP_LIMIT):  # the shipped sweep, its write() (model, claim, send) off
        store, outreach = await fresh(base, config)
        outreach.write = _no_write  # type: ignore[method-assign]
        shipped, outreach_module.SWEEP_LIMIT = outreach_module.SWEEP_LIMIT, limit
        t0 = time.perf_counter()
        await outreach.sweep()
        stages[f"Outreach.sweep(), SWEEP_LIMIT={limit}"].append(time.perf_counter() - t0)
        outreach_module.SWEEP_LIMIT = shipped
        await store.close()


async def _no_write(item) -> bool:
    return False


async def sweep_cost(folder: Path, runs: int) -> None:
    config, base, started = bench_config(), folder / "sweep.db", time.perf_counter()
    await (await Store.open(base)).close()  # the real migrations make the schema
    populate(base, random.Random(1))
    print(f"populated 100,000 users (1,000 due), 20,000 plans (20 due) in {time.perf_counter() - started:.1f}s")
    zones.warm()  # as the bot does at start-up: the city index is built before the first sweep
    stages: dict[str, list[float]] = defaultdict(list)
    counts: Counter = Counter()
    for _ in range(runs):
        await one_run(base, config, stages, counts)
    print(f"medians of {runs} runs, each on a fresh copy; {counts['read'] // runs} items read, {counts['send'] // runs}"
          f" to send now, {counts['moved'] // runs} moved (quiet hours, daily cap, day window):")
    for name, samples in stages.items():
        spread = " ".join(f"{s * 1000:.1f}" for s in samples)
        print(f"  {name:<36} {statistics.median(samples) * 1000:6.2f} ms  ({spread})")
    total = statistics.median(stages["sweep: read + decide + move"]) * 1000
    print(f"  [{'met' if total <= 50 else 'MISSED'}] a sweep of 100,000 users, 1,000 due, without the model: ≤ 50 ms")


# ---------------------------------------------------------------- part 2: 30 days on a fake clock

def make_person(uid: int, rng: random.Random, start: datetime, days: int) -> Person:
    """Return a user with a zone, a habit, their messages and what they tell; some opt out or block the bot."""
    setting, end = rng.choice(ZONES), start + timedelta(days=days)
    habit = rng.choices(("daily", "weekly", "vanishing", "rare"), (35, 30, 20, 15))[0]
    person = Person(uid, ZoneInfo(setting or "UTC"), setting, habit)
    first = rng.randrange(1, 6)  # the first local day that surely starts after `start`
    chance = {"daily": 0.85, "weekly": 1.5 / 7}.get(person.habit, 0.0)
    active = {first} | {d for d in range(first, days + 1) if rng.random() < chance}
    if person.habit == "vanishing":
        active |= set(range(first, first + rng.randint(1, 6)))
    elif person.habit == "rare":
        active |= set(rng.sample(range(first, days), rng.randint(0, 2)))
    day_one = start.astimezone(person.zone).date()
    times = sorted(datetime.combine(day_one + timedelta(days=d), clock_time(rng.randrange(7, 26) % 24,
                                    rng.randrange(60)), tzinfo=person.zone).astimezone(timezone.utc)
                   for d in active for _ in range(rng.randint(1, 3)))  # local 07:00-01:59, one to three a day
    if rng.random() < 0.05:
        person.opt_out = start + timedelta(days=rng.uniform(0, days))
    if rng.random() < 0.03:  # half of them come back: they write again, which unblocks
        blocked = start + timedelta(days=rng.uniform(1, days - 1))
        back = blocked + timedelta(days=rng.uniform(2, 10)) if rng.random() < 0.5 else end + timedelta(days=1)
        person.block = (blocked, back)
        times = sorted([t for t in times if not blocked <= t < back] + ([back] if back < end else []))
    told: dict[str, datetime] = {}  # plan key -> when it begins (UTC)
    for n, moment in enumerate(t for t in times if start < t < end):
        facts, local = [], moment.astimezone(person.zone)
        over = next((key for key, begins in told.items() if begins < moment), None)
        text = "Quiet day, walked a lot."
        if over and rng.random() < 0.3:  # they tell how it went before being asked
            text, _ = f"The {PLANS[over]} went fine!", told.pop(over)
        if n == 0 and rng.random() < 0.05:  # a birthday within the month
            born = (local + timedelta(days=rng.randint(2, days - 2))).date().replace(year=1990)
            facts.append(Fact("personal", "birthday", "birthday", when=born.isoformat()))
        if rng.random() < 0.1:
            key, day = rng.choice(list(PLANS)), local.date() + timedelta(days=rng.choice((-1, 1, 2, 3, 4)))
            hour = rng.choice((None, rng.randint(9, 19)))  # -1 day: "I had an exam yesterday", nothing to ask
            facts.append(Fact("plans", key, PLANS[key], when=f"{day}T{hour:02}:00" if hour else day.isoformat()))
            told[key] = datetime.combine(day, clock_time(hour or 0), tzinfo=person.zone)
        person.events.append((moment, text, facts))
    return person


def fake_model(counter: Counter) -> ChatModel:
    """Return the real ChatModel on a real AsyncOpenAI whose HTTP is answered in-process with MODEL_TEXT."""
    def answer(request: httpx.Request) -> httpx.Response:
        counter["calls"] += 1
        assert request.url.path.endswith("/chat/completions"), request.url
        choice = {"index": 0, "message": {"role": "assistant", "content": MODEL_TEXT}, "finish_reason": "stop"}
        return httpx.Response(200, json={"id": "b", "object": "chat.completion", "created": 0, "model": "bench",
                                         "choices": [choice]})
    client = openai.AsyncOpenAI(api_key="sk-bench", base_url="http://model.test/v1", max_retries=0,
                                http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)))
    return ChatModel(client, "bench")


async def simulate(folder: Path, seed: int, users: int, days: int, start: datetime) -> None:
    config, rng, clock = bench_config(), random.Random(seed), [start]
    people = {uid: make_person(uid, rng, start, days) for uid in range(1, users + 1)}
    happenings = sorted([(t, 0, p.id, text, facts) for p in people.values() for t, text, facts in p.events]
                        + [(p.opt_out, 1, p.id, "", []) for p in people.values() if p.opt_out], key=lambda h: h[:3])
    store, counter = await Store.open(folder / "sim.db"), Counter()
    attempts: list[Attempt] = []
    claimed, claim = {}, store.claim_item

    async def recording_claim(item, *args):  # remembers what is about to be sent, for the recorder
        claimed[item.user_id] = item
        return await claim(item, *args)
    store.claim_item = recording_claim  # type: ignore[method-assign]

    async def send(user_id: int, text: str, first: bool, language_code: str | None) -> str:
        person, item = people[user_id], claimed[user_id]
        attempts.append(Attempt(clock[0], person, item.kind, item.when, first, person.blocked(clock[0])))
        assert text == MODEL_TEXT, text
        return "blocked" if person.blocked(clock[0]) else "sent"
    repos = store
    outreach = Outreach(repos.claims, repos.facts, repos.outreach, repos.topics, fake_model(counter),
                        config.subset(OutreachSettings),
                        Personas(Persona("", "You are a warm companion.", framed=False), ""), send,
                        clock=lambda: clock[0], meter=UsageMeter(store.backend))

    def planner(zone: ZoneInfo, at: datetime):  # plan_followup as the bot calls it, counting what it schedules
        def plan(fact: Fact) -> datetime | None:
            due = plan_followup(fact, zone, at, config.followup_after_hours)
            counter["planned"] += due is not None
            return due
        return plan

    started, index, sweeps, met = time.perf_counter(), 0, [], set()
    while clock[0] < start + timedelta(days=days):
        clock[0] += timedelta(minutes=10)
        while index < len(happenings) and happenings[index][0] <= clock[0]:
            at, what, uid, text, facts = happenings[index]
            index, person = index + 1, people[uid]
            if what == 1:
                await store.users.set_setting(uid, "checkins", "off", at)
                continue
            if person.setting and uid not in met:  # /timezone, before their first message
                await store.users.set_setting(uid, "timezone", person.setting, at)
            met.add(uid)
            turn = await store.turns.begin_turn(user_id=uid, first_name="U", language_code="en", text=text, now=at,
                                          update_id=index, history_limit=config.history_limit, private=True,
                                          checkin_at=at + timedelta(hours=config.checkin_after_hours))
            if facts:
                await store.facts.save_facts(uid, Extraction(facts), at, config.memory_max_facts,
                                       plan=planner(person.zone, at))
            await store.turns.add_reply(uid, "I'm glad you told me.", at, config.history_limit,
                                        reply_to=turn.message_id)
        t0 = time.perf_counter()
        await outreach.sweep()
        sweeps.append(time.perf_counter() - t0)
    print(f"wall time {time.perf_counter() - started:.1f}s: {len(happenings):,} messages and opt-outs,"
          f" {len(sweeps):,} sweeps (p50 {statistics.median(sweeps) * 1000:.2f} ms, max {max(sweeps) * 1000:.1f} ms)")
    await store.close()
    await outreach.model.client.close()
    report(config, people, attempts, counter, days)


def report(config, people: dict[int, Person], attempts: list[Attempt], counter: Counter, days: int) -> None:
    """Print what was sent and the rules' verdicts; exit 1 if one was broken."""
    sent, weeks = [a for a in attempts if not a.blocked], days / 7
    rate = {p.id: sum(a.person is p for a in sent) / weeks for p in people.values()}
    ranked, habits = sorted(rate.values()), Counter(p.habit for p in people.values())
    back = sum(bool(p.block and any(t >= p.block[1] for t, _, _ in p.events)) for p in people.values())
    print(f"users: {', '.join(f'{h} {n}' for h, n in habits.most_common())};"
          f" {sum(bool(p.opt_out) for p in people.values())} opt out, {sum(bool(p.block) for p in people.values())}"
          f" block the bot ({back} come back)")
    kinds = ", ".join(f"{k} {n:,}" for k, n in Counter(a.kind for a in sent).most_common())
    print(f"sent {len(sent):,} ({kinds}); {len(attempts) - len(sent)} attempts answered 'blocked';"
          f" plan_followup scheduled {counter['planned']:,} (some replaced by a new date for the same plan)")
    by_habit = ", ".join(f"{h} {statistics.mean(rate[p.id] for p in people.values() if p.habit == h):.2f}"
                         for h in habits)
    print(f"sent per user per week: mean {statistics.mean(ranked):.2f}, p50 {ranked[len(ranked) // 2]:.2f},"
          f" p90 {ranked[int(len(ranked) * 0.9)]:.2f}, max {ranked[-1]:.2f} (mean by habit: {by_habit})")
    calls = counter["calls"]
    print(f"model calls: {calls:,} over HTTP,"
          f" {calls / max(1, len(sent)):.3f} per message sent, {calls / max(1, len(attempts)):.3f} per attempt")
    broken = violations(config, people, attempts)
    for rule in RULES:
        print(f"  [{'VIOLATED' if broken[rule] else 'ok'}] {rule}" + "".join(f"\n      {c}" for c in broken[rule][:10]))
    print(f"  [ok] none delivered to a blocked user (recorder answered 'blocked' {len(attempts) - len(sent)} times)")
    if any(broken.values()):
        sys.exit(1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("sweep", "sim", "both"), default="both")
    parser.add_argument("--runs", type=int, default=9, help="sweep-cost runs (medians)")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--start", default="2026-10-15", help="UTC date; the default spans two changes of DST")
    args = parser.parse_args()
    config = bench_config()
    print(f"CHECKIN_AFTER_HOURS {config.checkin_after_hours:g}, QUIET_HOURS {config.quiet_hours} (minutes),"
          f" PROACTIVE_DAILY_MAX {config.proactive_daily_max}, FOLLOWUP_AFTER_HOURS {config.followup_after_hours:g}")
    with tempfile.TemporaryDirectory() as folder:
        if args.part in ("sweep", "both"):
            print("== sweep cost")
            await sweep_cost(Path(folder), args.runs)
        if args.part in ("sim", "both"):
            start = datetime.fromisoformat(args.start).replace(tzinfo=timezone.utc)
            print(f"== {args.days} days, {args.users:,} users, a sweep every 10 minutes from {start:%Y-%m-%d},"
                  f" seed {args.seed}")
            await simulate(Path(folder), args.seed, args.users, args.days, start)


if __name__ == "__main__":
    asyncio.run(main())
