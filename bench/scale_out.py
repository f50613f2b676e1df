"""Scaling out: one bot process on SQLite, one on PostgreSQL, two on one PostgreSQL, fed the same load.

Each configuration runs real `bot.py` processes (separate OS processes, checked by pid) in webhook mode:
  (a) one process, SQLite at DATABASE_PATH in a temporary folder;
  (b) one process, PostgreSQL (a throwaway loopback server from tests/pg.py, a fresh schema);
  (c) two processes on the same PostgreSQL (another fresh schema); every update goes to one of them at
      random, as a load balancer in front of Telegram's webhook would send it.
The Bot API and OpenAI doubles (tests/doubles) run in this process over loopback HTTP; the model answers
each chat completion after --delay-ms (200 ms), echoing the user's text, so the model is not the bottleneck.
Settings as in tests/test_scale_out.py: PROACTIVE=off, MEMORY_EXTRACT_DELAY_SECONDS=3600, STREAM_REPLIES=off,
and EMBEDDINGS=hashing (no embedding round trips). An extraction pass (every 10 unread messages) is answered
with no facts.

Load: U users (200) x M messages (5). Each user sends the next message as soon as the reply to the previous
one reached the Bot API double (a closed loop with no think time): per-user order holds by construction,
and the offered load is as high as the bot can answer. Every update is POSTed to a webhook with the secret;
one not acknowledged with 200 is POSTed again (to another process, when there are two), as Telegram would.

Measured per configuration: messages per second (replies / wall time from the first POST to the last reply),
latency from the POST to the sendMessage reaching the double (p50, p99), and the CPU seconds the bot
processes, the PostgreSQL server and this process (both doubles and the load) spent during the run.
Also the Bot API requests reaching the double from all the bot processes of the configuration together: the
arrival (time.monotonic()) of every call but getUpdates from the moment the clock starts (after start-up and
the warm-up) until a second after the last reply, so sendMessage, sendChatAction, sendMessageDraft and the
like. Reported: their number, the sustained rate (requests / (last arrival - first arrival)), and the largest
number in any 1-second sliding window that starts at least 1 s after the first request (a token bucket lets
a first burst through; from then on the window shows the rate the limiter keeps), the same from 5 s on (a
bucket the first second did not empty still lets burst + rate through in the second one), the calls in each
of the first five seconds, and the calls per method.
Checked: every message answered exactly once, each user's replies in order, no ERROR or Traceback in the
bots' logs. The exit code is 1 when a check fails.

Telegram's 30 requests/s limiter: bot.py turns it on, one budget for all the processes on PostgreSQL, and at
30/s (a reply per message; a typing action only when a token is free) it caps the bot at ~29 messages/s
whatever the database does. As bench/load.py and
bench/turn.py do, it is off here by default: the processes are then started with the limiter set to 0 by a
one-line wrapper around bot.py (`python -c ...`, the same `main()`); `--limiter on` starts plain `bot.py`.
With the limiter on, the Bot API requests per second above show the rate the configuration keeps: with the
budget shared through PostgreSQL, (c)'s two processes together send at most about 30/s (with one budget per
process, as before 2026-12-02, they sent 60).

    .venv/bin/python bench/scale_out.py                              # 200 users x 5 messages, (a) (b) (c)
    .venv/bin/python bench/scale_out.py --quick                      # 50 users x 3 messages
    .venv/bin/python bench/scale_out.py --limiter on --configs c     # (c) alone, limiter on
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "true")


from bench.scale_out_result import Result, bots_cpu, postgres_cpu  # noqa: E402
from tests import pg  # noqa: E402
from tests.doubles import CountingOpenAIDouble, TaggedReplies  # noqa: E402
from tests.test_process import environment  # noqa: E402
from tests.webhook_bots import SECRET, WEBHOOK_URL, Bots, text_update  # noqa: E402

FIRST_USER = 100_000
WARMUP_USERS = 3  # per process, before the clock starts: imports, pools and first connections settle
CONFIGS = {
    "a": ("(a) SQLite, 1 process", "sqlite", 1),
    "b": ("(b) PostgreSQL, 1 process", "postgres", 1),
    "c": ("(c) PostgreSQL, 2 processes", "postgres", 2),
}


class Replies(TaggedReplies):
    """The Bot API double, noting when each tagged reply arrives and waking the user who waits for it; while
    `counting`, it also notes the arrival (time.monotonic()) and method of every call but getUpdates."""

    def __init__(self) -> None:
        super().__init__()
        self.counting = False
        self.requests: list[tuple[float, str]] = []  # (time.monotonic(), method), in arrival order

    async def _handle(self, request: web.Request) -> web.Response:
        if self.counting and request.path.startswith("/bot"):
            method = request.path.rpartition("/")[2]
            name = self._methods.get(method.lower(), (method, None))[0]
            if name.lower() != "getupdates":
                self.requests.append((time.monotonic(), name))
        return await super()._handle(request)

    def know(self, user_id: int) -> None:
        """Make the private chat known, as a first message would (nothing polls the double in webhook mode)."""
        self.know_private_chat(user_id, f"U{user_id}")


class Model(CountingOpenAIDouble):
    """The OpenAI double, counting requests instead of keeping their bodies; extraction gets no facts."""

    def __init__(self) -> None:
        super().__init__()
        self.reply = self.answer

    @staticmethod
    def answer(body: dict) -> str:
        if "response_format" in body:
            return json.dumps({"facts": [], "relations": []})
        users = [m for m in body["messages"] if m.get("role") == "user"]
        content = users[-1].get("content") if users else ""
        return "echo: " + (content if isinstance(content, str) else json.dumps(content))


async def run_config(key: str, args: argparse.Namespace, server: pg.Server | None, folder: Path) -> Result:
    name, backend, count = CONFIGS[key]
    result = Result(name, count)
    telegram, model = Replies(), Model()
    bots: Bots | None = None
    schema = ""
    try:
        await telegram.start()
        await model.start()
        model.delay = args.delay_ms / 1000
        users = [FIRST_USER + number for number in range(args.users)]
        warmup = [FIRST_USER - 1 - number for number in range(WARMUP_USERS * count)]
        for user in users + warmup:
            telegram.know(user)
        settings = dict(
            TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
            TELEGRAM_API_BASE_URL=telegram.base_url, WEBHOOK_URL=WEBHOOK_URL,
            WEBHOOK_SECRET=SECRET, PROACTIVE="off", MEMORY_EXTRACT_DELAY_SECONDS="3600", STREAM_REPLIES="off",
            EMBEDDINGS="hashing",
        )
        if backend == "sqlite":
            settings["DATABASE_PATH"] = str(folder / f"{key}.db")
        else:
            assert server is not None
            schema = await pg.create_schema(server.url)
            settings["DATABASE_URL"] = pg.with_search_path(server.url, schema)
        bots = Bots(environment(**settings), args.limiter == "on")
        await bots.start(count)
        result.pids = [bot.process.pid for bot in bots.bots]
        rng = random.Random(f"{args.seed}-{key}")
        update_ids = iter(range(1, 10**9))
        pushed: dict[tuple[int, int], float] = {}

        async def one_user(user: int, messages: int, target: int | None) -> None:
            for number in range(messages):
                waiter = asyncio.get_running_loop().create_future()
                telegram.waiters[(user, number)] = waiter
                update = text_update(next(update_ids), user, f"message {number} from {user} (u{user} m{number})")
                pushed[(user, number)] = time.perf_counter()
                index = rng.randrange(count) if target is None else target
                for attempt in range(5):  # not acknowledged: Telegram sends it again
                    if await bots.post(index, update):
                        break
                    index = (index + 1) % count
                    await asyncio.sleep(0.5 * (attempt + 1))
                try:
                    await asyncio.wait_for(waiter, args.timeout)
                except asyncio.TimeoutError:
                    return

        # Warm-up: a few users on each process, answered before the clock starts; not counted.
        await asyncio.gather(*(one_user(user, 1, i % count) for i, user in enumerate(warmup)))
        telegram.arrived.clear()
        pushed.clear()
        bots.posts.clear()
        bots.refused = 0
        model.chats = model.extractions = model.embeddings = 0
        telegram.requests.clear()
        telegram.counting = True
        cpu_bots, cpu_pg = bots_cpu(bots), postgres_cpu(server)
        cpu_bench = sum(os.times()[:2])

        started = time.perf_counter()
        await asyncio.gather(*(one_user(user, args.messages, None) for user in users))
        last = max((t for _, _, t in telegram.arrived), default=started)
        result.cpu_bots = bots_cpu(bots) - cpu_bots
        result.cpu_pg = postgres_cpu(server) - cpu_pg
        result.cpu_bench = sum(os.times()[:2]) - cpu_bench
        await asyncio.sleep(1.0)  # a duplicate reply would arrive now
        telegram.counting = False
        result.requests = sorted(t for t, _ in telegram.requests)
        result.methods = collections.Counter(method for _, method in telegram.requests)

        result.wall = last - started
        answers = collections.Counter((user, number) for user, number, _ in telegram.arrived)
        first: dict[tuple[int, int], float] = {}
        per_user: dict[int, list[int]] = collections.defaultdict(list)
        for user, number, at in telegram.arrived:
            first.setdefault((user, number), at)
            per_user[user].append(number)
        result.sent = len(pushed)
        result.answered = sum(1 for k in pushed if k in answers)
        result.missing = result.sent - result.answered
        result.twice = sum(count - 1 for count in answers.values() if count > 1)
        result.out_of_order = sum(1 for numbers in per_user.values() if numbers != sorted(numbers))
        result.untagged = telegram.untagged
        result.latencies = [first[k] - pushed[k] for k in pushed if k in first]
        result.refused = bots.refused
        result.posts = [bots.posts[i] for i in range(count)]
        result.model_calls = f"{model.chats} chat, {model.extractions} extraction, {model.embeddings} embeddings"
    finally:
        if bots is not None:
            await bots.stop()
            result.errors = sum(bot.errors for bot in bots.bots)
            if result.errors:
                for bot in bots.bots:
                    print(f"-- log tail of pid {bot.process.pid}:", *bot.log_tail, sep="\n", file=sys.stderr)
        await telegram.close()
        await model.close()
        if schema and server is not None:
            try:
                await pg.drop_schema(server.url, schema)
            except Exception as error:  # noqa: BLE001 - the numbers matter more than the tidy-up
                print(f"(could not drop schema {schema}: {error})", file=sys.stderr)
    return result


def report(args: argparse.Namespace, results: list[Result]) -> int:
    limiter = "on (bot.py's 30 requests/s)" if args.limiter == "on" else "off"
    print(f"\n{args.users} users x {args.messages} messages each, every user sending the next message when the "
          f"reply to the last one is in; model {args.delay_ms} ms; Telegram limiter {limiter}; "
          f"{os.cpu_count()} CPU cores for the bots, PostgreSQL, the doubles and the load")
    print(f"{'configuration':<29} {'msgs/s':>7} {'api req':>7} {'req/s':>6} {'max 1s':>6} {'>=5s':>5} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'answered':>10} {'twice':>5} {'missing':>7}  {'CPU s: bots / pg / bench':<25} "
          f"posts per process")
    for r in results:
        cpu = f"{r.cpu_bots:.1f} / {r.cpu_pg:.1f} / {r.cpu_bench:.1f}"
        print(f"{r.name:<29} {r.rate:>7.1f} {len(r.requests):>7} {r.request_rate:>6.1f} {r.window_max():>6} "
              f"{r.window_max(5.0):>5} "
              f"{r.pct(0.5):>8.0f} {r.pct(0.99):>8.0f} "
              f"{f'{r.answered}/{r.sent}':>10} {r.twice:>5} {r.missing:>7}  {cpu:<25} "
              f"{'+'.join(map(str, r.posts))} (pids {', '.join(map(str, r.pids))})")
    by_key = {r.name[:3]: r for r in results}
    if "(a)" in by_key and "(c)" in by_key and by_key["(a)"].rate:
        print(f"(c) / (a): {by_key['(c)'].rate / by_key['(a)'].rate:.2f}x the messages per second")
    if "(b)" in by_key and "(c)" in by_key and by_key["(b)"].rate:
        print(f"(c) / (b): {by_key['(c)'].rate / by_key['(b)'].rate:.2f}x the messages per second")
    for r in results:
        print(f"{r.name}: wall {r.wall:.1f}s; model calls {r.model_calls}; webhook POSTs refused {r.refused}; "
              f"bot CPU {r.cpu_bots / r.wall if r.wall else 0:.2f} cores busy on average")
        methods = ", ".join(f"{method} {n}" for method, n in r.methods.most_common())
        most, at = r.busiest()
        print(f"{r.name}: Bot API requests, all processes together: {len(r.requests)} in {r.request_span:.1f}s "
              f"= {r.request_rate:.1f}/s sustained; max {most} in a 1-s window starting >= 1 s after the first "
              f"request (at +{at:.1f} s; from 5 s on: {r.window_max(5.0)}); seconds 1-5: "
              f"{'/'.join(map(str, r.per_second()))}; {methods or 'none'}")
    failed = False
    for r in results:
        problems = [f"{n} {what}" for n, what in ((r.missing, "unanswered"), (r.twice, "answered twice"),
                                                   (r.out_of_order, "users out of order"),
                                                   (r.untagged, "replies without a tag"),
                                                   (r.errors, "ERROR/Traceback log lines")) if n]
        print(f"{'ok  ' if not problems else 'FAIL'} {r.name}: "
              + ("every message answered exactly once, in order, no ERROR" if not problems else "; ".join(problems)))
        failed |= bool(problems)
    return 1 if failed else 0


async def run(args: argparse.Namespace) -> int:
    keys = [key for key in args.configs if key in CONFIGS]
    server = None
    results = []
    with tempfile.TemporaryDirectory(prefix="scale-out-") as folder:
        try:
            if any(CONFIGS[key][1] == "postgres" for key in keys):
                server = await asyncio.to_thread(pg.start_server)
            for key in keys:
                print(f"running {CONFIGS[key][0]} ...", flush=True)
                result = await run_config(key, args, server, Path(folder))
                results.append(result)
                print(f"  {result.name}: {result.answered}/{result.sent} answered, {result.rate:.1f} msgs/s; "
                      f"Bot API {len(result.requests)} requests, {result.request_rate:.1f} req/s sustained over "
                      f"{result.request_span:.1f}s, max {result.window_max()} in a 1-s window after the first "
                      f"second ({result.first_second} in the first); ok {result.ok}", flush=True)
        finally:
            if server is not None:
                server.stop()
    return report(args, results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--messages", type=int, default=5, help="messages per user")
    parser.add_argument("--delay-ms", type=int, default=200, help="how long the model takes to answer")
    parser.add_argument("--limiter", choices=("on", "off"), default="off",
                        help="Telegram's 30 requests/s limiter in each process (bot.py's default is on)")
    parser.add_argument("--configs", default="abc", help="which configurations to run, e.g. 'ac'")
    parser.add_argument("--timeout", type=float, default=300, help="give up waiting for one reply after this")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="50 users x 3 messages")
    args = parser.parse_args()
    if args.quick:
        args.users, args.messages = 50, 3
    try:
        return asyncio.run(run(args))
    except pg.Unavailable as error:
        print(f"error: PostgreSQL is not available: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
