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
with several machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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
from chat.companion import Speaker  # noqa: E402
from config import Config  # noqa: E402
from handlers.transport.inbox import masked  # noqa: E402
from llm.client import ChatModel  # noqa: E402

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
    app = build_application(config, request=api)
    await app.initialize()
    await app.post_init(app)
    app.bot_data.model = InstantModel(model_seconds, app.bot_data.model.client)
    app.bot_data.companion.model = app.bot_data.model
    app.bot_data.keeper.extractor.model = app.bot_data.model
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


async def per_turn_cost(app, ids: Counter, active: int, turns: int) -> list[float]:
    """Return the seconds of `turns` sequential turns spread round-robin over `active` users."""
    for user_id in range(1, active + 1):  # warm up: a full 20-message session for everyone measured
        for _ in range(10):
            await one_turn(app, ids, user_id)
    return [await one_turn(app, ids, 1 + i % active) for i in range(turns)]


async def concurrent_wall_time(app, ids: Counter, users: int) -> float:
    """Return seconds until `users` users, all writing at once, are all answered."""
    started = time.perf_counter()
    raw = [masked(new_update(ids, 50_000 + n)) for n in range(users)]
    for batch in range(0, users, 100):  # getUpdates hands over at most 100 at a time; each batch is recorded
        await app.bot_data.inbox.record(raw[batch:batch + 100])
    updates = [Update.de_json(data, app.bot) for data in raw]
    await asyncio.gather(*(app.update_processor.process_update(u, app.process_update(u)) for u in updates))
    return time.perf_counter() - started


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {statistics.median(ms):6.2f} ms   p99 {p99:6.2f} ms   {len(ms) / sum(samples):7.0f} turns/s"


async def per_turn_table(database: Path | str, population: int, turns: int) -> dict[int, list[float]]:
    """Return per-turn samples for 1, 100 and 1,000 active users on a database of `population` users."""
    app, _api = await start(database, 0.0)
    started = time.perf_counter()
    await populate(app, population)
    print(f"  populated {population:,} users in {time.perf_counter() - started:.1f}s")
    if isinstance(database, str):  # the planner's statistics, as autovacuum soon has them after a bulk load
        async with app.bot_data.store._session() as db:
            await db.execute("ANALYZE")
    ids, samples = Counter(), {}
    for active in (1, 100, 1_000):
        samples[active] = await per_turn_cost(app, ids, active, turns)
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
    args = parser.parse_args()
    population = 1_000 if args.quick else 10_000
    turns = 300 if args.quick else 2_000
    url, server = postgres_url(args)
    try:
        with tempfile.TemporaryDirectory() as folder:
            database = Path(folder) / "bench.db"
            print("SQLite (a file on disk):")
            tables = {"SQLite": await per_turn_table(database, population, turns)}
            if url:
                print("PostgreSQL (loopback):")
                tables["PostgreSQL"] = await per_turn_table(url, population, turns)
            print(f"per-turn cost, {turns} turns each, database of {population:,} users:")
            for active in (1, 100, 1_000):
                for name, samples in tables.items():
                    print(f"  {active:>5} active users, {name:<10} {summary(samples[active])}")
                if len(tables) == 2:
                    ratio = statistics.median(tables["PostgreSQL"][active]) / statistics.median(
                        tables["SQLite"][active])
                    print(f"  {active:>5} active users, PostgreSQL / SQLite p50: {ratio:.2f}")

            app, api = await start(database, 1.0)
            ids = Counter()
            ids.value = 20_000_000  # past every update id of the per-turn runs
            for users in (10, 100, 1_000):
                runs = []
                for _ in range(5):
                    before = api.sent
                    runs.append(await concurrent_wall_time(app, ids, users))
                    assert api.sent - before == users, "every user must be answered"
                spread = " ".join(f"{seconds:.2f}" for seconds in runs)
                print(f"{users:>5} users at once on SQLite, model takes 1 s: all answered in"
                      f" {statistics.median(runs):.2f}s (median of 5: {spread})")
            await stop(app)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
