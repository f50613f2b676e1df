"""Per-turn cost of the bot minus the model and the network, and how it serves many users at once.

Every turn goes through the real Application: update processor, handlers, secret masking, rule
extraction, store (SQLite on disk, facts included), system-message builder and reply formatting, with the
JobQueue running, and the inbox (each update recorded before it is handled, as polling does). LLM fact
extraction is the one part kept from firing: it is off the reply path. Only two edges are replaced
in-process: the Bot API transport (answers instantly) and the chat model (answers instantly, or after
`--model-seconds`).

    .venv/bin/python bench/turn.py            # full run (about a minute on 2 cores)
    .venv/bin/python bench/turn.py --quick    # smaller, for a smoke check

The per-turn cost is measured on SQLite and, side by side in the same run, on PostgreSQL over loopback (a
throwaway server started from Debian's binaries, or --postgres URL; --sqlite-only skips it). On PostgreSQL
each turn also takes the user's advisory lock and looks for their earlier unhandled updates, as it must
with several machines. The users writing at once are measured on both engines too.

    .venv/bin/python bench/turn.py --sqlite-only                       # SQLite, and the pickle baseline
    .venv/bin/python bench/turn.py --sqlite-only --profile             # ... with cProfile over the timed turns
    .venv/bin/python bench/turn.py --sqlite-only --no-pickle-baseline  # SQLite alone
    .venv/bin/python bench/turn.py --burst-only                        # users at once, SQLite and PostgreSQL

--pickle-baseline (on by default with --sqlite-only; --no-pickle-baseline turns it off, --pickle-baseline
turns it on in a full run): the storage scheme the original design started from, timed in the same run
for comparison. Every user's session lives in ONE pickle file (the same number of users as the database:
20 messages and 10 facts each), loaded whole and saved whole on every message: a turn of it loads the
file, builds the system message from the user's 10 facts, appends the user's message and a reply (the
session capped at 20 messages) and dumps the whole file back to disk (a temp dir; plain open() and
pickle.dump(), no fsync). `--pickle-messages` of them are timed one by one (40 by default, as each takes
hundreds of ms); their p50 and p99 are printed next to ours, with baseline p50 / our p50 for each
active-user count.

--profile: wraps the timed turns of the per-turn cost (not the population, the warm-up, the baseline or
the burst of users at once) in cProfile, and prints the top 20 functions by cumulative time and by own
time (tottime) over all of them; --profile-out FILE also saves the raw statistics for pstats. The
profiler slows every Python call, so the per-turn figures of a profiled run are not comparable with others;
SQLite's own work runs in aiosqlite's thread, which cProfile does not see (the event loop's waiting for
it shows up as select/epoll time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pickle
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from telegram import Update  # noqa: E402
from telegram.request import BaseRequest, RequestData  # noqa: E402

from bot import build_application  # noqa: E402
from config import Config  # noqa: E402
from llm.client import ChatModel  # noqa: E402
from services.companion import Speaker  # noqa: E402
from transport.inbox import masked  # noqa: E402

BOT_USER = {"id": 42, "is_bot": True, "first_name": "Companion", "username": "companion_bench_bot"}


class InstantBotApi(BaseRequest):
    """A Bot API that answers every call at once, in-process, as Telegram would."""

    def __init__(self) -> None:
        self.sent = 0
        self.message_id = 0

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    @property
    def read_timeout(self) -> float:
        return 5.0

    async def do_request(self, url, method, request_data: RequestData | None = None, **_timeouts):
        """Return (status, JSON body) for a Bot API call."""
        name = url.rsplit("/", 1)[-1]
        params = request_data.parameters if request_data else {}
        if name == "getMe":
            result: object = BOT_USER
        elif name == "sendMessage":
            self.sent += 1
            self.message_id += 1
            chat = {"id": int(params["chat_id"]), "type": "private", "first_name": "U"}
            result = {"message_id": self.message_id, "date": int(time.time()), "chat": chat, "from": BOT_USER,
                      "text": params.get("text", "")}
        elif name == "getChatMenuButton":
            result = {"type": "default"}  # what Telegram answers for a bot that never set one
        else:
            result = True
        return 200, json.dumps({"ok": True, "result": result}).encode()


class InstantModel(ChatModel):
    """A chat model that answers after `seconds` (0: at once), without any network."""

    def __init__(self, seconds: float, client) -> None:
        super().__init__(client=client, model="bench")
        self.seconds = seconds

    async def complete(self, messages, **options) -> str:
        if self.seconds:
            await asyncio.sleep(self.seconds)
        if "response_format" in options:  # a memory extraction call
            return '{"facts": [], "relations": []}'
        return "That sounds lovely. Tell me more about it?"


def text_update(update_id: int, user_id: int, text: str) -> dict:
    user = {"id": user_id, "is_bot": False, "first_name": "U", "language_code": "en"}
    message = {"message_id": update_id, "date": int(time.time()), "chat": {"id": user_id, "type": "private"},
               "from": user, "text": text}
    return {"update_id": update_id, "message": message}


async def start(database: Path | str, model_seconds: float):
    # Memory extraction runs off the reply path and is costed by its own benchmark; here it is kept from
    # firing (no user goes "idle" for a day, none reaches 10,000 unread) so that it does not blur the turns.
    where = {"database_url": database} if isinstance(database, str) else {"database_path": database}
    config = Config(telegram_token="42:BENCHMARK-TOKEN", openai_api_key="none", webhook_url="https://b.example/h",
                    **where,
                    typing_interval_s=4.0, telegram_max_rate=0, memory_extract_delay_s=86_400,
                    memory_extract_every=10_000, embeddings="hashing")
    api = InstantBotApi()
    app = await build_application(config, request=api)
    await app.initialize()
    await app.post_init(app)
    model = InstantModel(model_seconds, app.bot_data.model.client)
    app.bot_data.companion.model = model  # the turn's model and memory upkeep's
    app.bot_data.keeper.extractor.model = model
    await app.start()  # the JobQueue runs memory extraction in the background, as in production
    return app, api


async def stop(app) -> None:
    await app.stop()
    await app.shutdown()
    await app.post_shutdown(app)


async def populate(app, users: int) -> None:
    """Give `users` users a first turn and reply each, through the store's own API."""
    companion = app.bot_data.companion
    for user_id in range(1, users + 1):
        await companion.reply(Speaker(user_id, "U", "en"), f"hello, I am user {user_id}")


class Counter:
    def __init__(self) -> None:
        self.value = 10_000_000

    def next(self) -> int:
        self.value += 1
        return self.value


def new_update(ids: Counter, user_id: int) -> dict:
    return text_update(ids.next(), user_id, "How was your day? I went for a walk.")


async def one_turn(app, ids: Counter, user_id: int) -> float:
    data = new_update(ids, user_id)
    started = time.perf_counter()
    data = masked(data)  # as it arrives
    await app.bot_data.inbox.record([data])  # as polling does (for a batch of one), then the library reads it
    update = Update.de_json(data, app.bot)
    await app.update_processor.process_update(update, app.process_update(update))
    return time.perf_counter() - started


async def per_turn_cost(app, ids: Counter, active: int, turns: int,
                        profiler: cProfile.Profile | None = None) -> list[float]:
    """Return the seconds of `turns` sequential turns spread round-robin over `active` users.

    With a profiler, it runs over the timed turns alone (not the warm-up).
    """
    for user_id in range(1, active + 1):  # warm up: a full 20-message session for everyone measured
        for _ in range(10):
            await one_turn(app, ids, user_id)
    if profiler is not None:
        profiler.enable()
    try:
        return [await one_turn(app, ids, 1 + i % active) for i in range(turns)]
    finally:
        if profiler is not None:
            profiler.disable()


PICKLE_SYSTEM = "You are a warm, attentive companion. Keep replies short.\nWhat you know about the user:\n"
PICKLE_MESSAGE = "How was your day? I went for a walk."
PICKLE_REPLY = "That sounds lovely. Tell me more about it?"


def pickle_sessions(population: int) -> dict[int, dict]:
    """Return the baseline's whole state: `population` users, each with 20 messages and 10 facts.

    Every string is its own object (as after a load), so pickle cannot shorten the file by sharing them.
    """
    sessions = {}
    for user_id in range(1, population + 1):
        messages = []
        for n in range(10):
            messages.append({"role": "user", "content": f"{PICKLE_MESSAGE} ({user_id}.{n})"})
            messages.append({"role": "assistant", "content": f"{PICKLE_REPLY} ({user_id}.{n})"})
        facts = [f"fact {k} about user {user_id}: likes long walks by the river" for k in range(10)]
        sessions[user_id] = {"messages": messages, "facts": facts}
    return sessions


def pickle_turn(path: Path, user_id: int) -> list[dict]:
    """One message in the original design: load every session, touch one, save every session.

    Return the messages the model would have been given.
    """
    with open(path, "rb") as file:
        sessions = pickle.load(file)
    session = sessions.setdefault(user_id, {"messages": [], "facts": []})
    system = PICKLE_SYSTEM + "\n".join(f"- {fact}" for fact in session["facts"])
    prompt = [{"role": "system", "content": system}, *session["messages"], {"role": "user", "content": PICKLE_MESSAGE}]
    session["messages"].append({"role": "user", "content": PICKLE_MESSAGE})
    session["messages"].append({"role": "assistant", "content": PICKLE_REPLY})
    del session["messages"][:-20]
    with open(path, "wb") as file:
        pickle.dump(sessions, file)
    return prompt


def pickle_baseline(folder: Path, population: int, messages: int) -> list[float]:
    """Return the seconds of `messages` baseline turns, spread over users, on a pickle of `population` users."""
    path = folder / "sessions.pickle"
    started = time.perf_counter()
    with open(path, "wb") as file:
        pickle.dump(pickle_sessions(population), file)
    print(f"  pickle baseline: {population:,} users, {path.stat().st_size / 2**20:.1f} MiB file,"
          f" written in {time.perf_counter() - started:.1f}s")
    pickle_turn(path, 1)  # warm up, untimed
    samples = []
    for i in range(messages):
        user_id = 1 + (i * 7_919) % population  # a different user each time, all over the file
        started = time.perf_counter()
        pickle_turn(path, user_id)
        samples.append(time.perf_counter() - started)
    return samples


async def concurrent_wall_time(app, ids: Counter, users: int, cpu: list[float] | None = None) -> float:
    """Return seconds until `users` users, all writing at once, are all answered (and append to `cpu` the CPU
    seconds the process spent meanwhile, every thread's)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    raw = [masked(new_update(ids, 50_000 + n)) for n in range(users)]
    for batch in range(0, users, 100):  # getUpdates hands over at most 100 at a time; each batch is recorded
        await app.bot_data.inbox.record(raw[batch:batch + 100])
    updates = [Update.de_json(data, app.bot) for data in raw]
    await asyncio.gather(*(app.update_processor.process_update(u, app.process_update(u)) for u in updates))
    if cpu is not None:
        cpu.append(time.process_time() - cpu_started)
    return time.perf_counter() - started


async def burst(database: Path | str, name: str) -> None:
    """Print how long 10, 100 and 1,000 users writing at once take to be answered, the model taking 1 s."""
    app, api = await start(database, 1.0)
    ids = Counter()
    ids.value = 20_000_000  # past every update id of the per-turn runs
    for users in (10, 100, 1_000):
        runs, cpu = [], []  # seconds of wall time, and of the bot's CPU
        for _ in range(5):
            before = api.sent
            runs.append(await concurrent_wall_time(app, ids, users, cpu))
            assert api.sent - before == users, "every user must be answered"
        spread = " ".join(f"{seconds:.2f}" for seconds in runs)
        print(f"{users:>5} users at once on {name}, model takes 1 s: all answered in"
              f" {statistics.median(runs):.2f}s (median of 5: {spread}); the bot's CPU {statistics.median(cpu):.2f}s")
    await stop(app)


async def bursts(database: Path, url: str | None) -> None:
    await burst(database, "SQLite")
    if url:  # in a schema of its own: the per-turn run (or an earlier run) used these users and update ids
        from tests import pg

        await burst(pg.with_search_path(url, await pg.create_schema(url)), "PostgreSQL")


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):6.2f} ms   p99 {p99:6.2f} ms   {len(ms) / sum(samples):7.0f} turns/s"


async def per_turn_table(database: Path | str, population: int, turns: int,
                         profiler: cProfile.Profile | None = None) -> dict[int, list[float]]:
    """Return per-turn samples for 1, 100 and 1,000 active users on a database of `population` users."""
    app, _api = await start(database, 0.0)
    started = time.perf_counter()
    await populate(app, population)
    print(f"  populated {population:,} users in {time.perf_counter() - started:.1f}s")
    if isinstance(database, str):  # the planner's statistics, as autovacuum soon has them after a bulk load
        async with app.bot_data.store.backend.session() as db:
            await db.execute("ANALYZE")
    ids, samples = Counter(), {}
    for active in (1, 100, 1_000):
        samples[active] = await per_turn_cost(app, ids, active, turns, profiler)
    await stop(app)
    return samples


def postgres_url(args: argparse.Namespace):
    """Return (URL, server to stop or None), or (None, None) when PostgreSQL is not wanted or not at hand."""
    if args.sqlite_only:
        return None, None
    if args.postgres:
        return args.postgres, None
    from tests import pg

    try:
        server = pg.start_server()
    except (pg.Unavailable, OSError) as error:
        print(f"PostgreSQL skipped: {error}")
        return None, None
    return server.url, server


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer users and turns")
    parser.add_argument("--postgres", help="a postgresql:// URL to measure on (default: start a throwaway server)")
    parser.add_argument("--sqlite-only", action="store_true", help="measure SQLite alone")
    parser.add_argument("--burst-only", action="store_true", help="only the users writing at once")
    parser.add_argument("--pickle-baseline", action=argparse.BooleanOptionalAction, default=None,
                        help="time the original design's one-pickle-file store alongside (default: with --sqlite-only)")
    parser.add_argument("--pickle-messages", type=int, default=40, help="baseline messages to time (default 40)")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed SQLite turns, print the top 20")
    parser.add_argument("--profile-out", help="also save the profile's raw statistics to this file")
    args = parser.parse_args()
    population = 1_000 if args.quick else 10_000
    turns = 300 if args.quick else 2_000
    baseline = args.sqlite_only if args.pickle_baseline is None else args.pickle_baseline
    profiler = cProfile.Profile() if args.profile or args.profile_out else None
    url, server = postgres_url(args)
    try:
        with tempfile.TemporaryDirectory() as folder:
            database = Path(folder) / "bench.db"
            if args.burst_only:
                return await bursts(database, url)
            print("SQLite (a file on disk):")
            tables = {"SQLite": await per_turn_table(database, population, turns, profiler)}
            if url:
                print("PostgreSQL (loopback):")
                tables["PostgreSQL"] = await per_turn_table(url, population, turns)
            pickled = pickle_baseline(Path(folder), population, args.pickle_messages) if baseline else None
            print(f"per-turn cost, {turns} turns each, database of {population:,} users:")
            for active in (1, 100, 1_000):
                for name, samples in tables.items():
                    print(f"  {active:>5} active users, {name:<10} {summary(samples[active])}")
                if len(tables) == 2:
                    ratio = statistics.median(tables["PostgreSQL"][active]) / statistics.median(
                        tables["SQLite"][active])
                    print(f"  {active:>5} active users, PostgreSQL / SQLite p50: {ratio:.2f}")
            if pickled:
                ms = sorted(s * 1000 for s in pickled)
                p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
                print(f"pickle baseline (one file of {population:,} users, loaded and saved whole),"
                      f" {len(ms)} messages: p50 {statistics.median(ms):.1f} ms   p99 {p99:.1f} ms"
                      f"   (min {ms[0]:.1f}, max {ms[-1]:.1f})")
                for active in (1, 100, 1_000):
                    ours = statistics.median(tables["SQLite"][active])
                    print(f"  {active:>5} active users: our SQLite p50 {ours * 1000:.2f} ms,"
                          f" baseline p50 / ours: {statistics.median(pickled) / ours:.0f}x")
            if profiler is not None:
                profiled = 3 * turns
                print(f"cProfile over the {profiled} timed SQLite turns (times are totals; divide by {profiled}"
                      " for a turn; the profiler itself inflates them):")
                if args.profile_out:
                    profiler.dump_stats(args.profile_out)
                for order in ("cumulative", "tottime"):
                    print(f"--- top 20 by {order}")
                    pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats(order).print_stats(20)

            await bursts(database, url)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
