"""Load: many users writing at once, through the real Application, the real HTTP path and a slow model.

The bot is the one `bot.build_application` builds, started as `bot.py` starts it (post_init: the store on
an SQLite file, the openai SDK, the JobQueue with the memory sweep; then long polling). It polls the
Telegram Bot API double over loopback HTTP and calls the OpenAI API double over loopback HTTP; the model
answers every chat completion after `--delay-ms` (200 ms). The memory layer is on as in production: rules
on every turn, `EMBEDDINGS=hashing`, and the LLM pass at every 10th unread message or after 30 s idle (the
double answers it with one fact citing the user's first message). Telegram's 30 requests/s limiter is
off by default (`--telegram-rate N` turns it on): at 30/s, 10,000 replies take 333 s whatever the bot does.
Replies are streamed in these private chats, as by default (`--stream off` sets STREAM_REPLIES=off); the
drafts the bot shows are counted.

How users write: by default every user's messages are all pushed at once, round-robin (message 1 of
every user, then message 2, ...), the worst case: 10,000 updates waiting. With `--think-ms T` each user
instead sends the next message a random 0-2T ms after the reply to the previous one.

Measured: the time each message was pushed into the double and the time its reply reached the double's
sendMessage; wall time until every reply is in, messages per second, p50/p95/p99 reply latency, and peak
resident memory (VmHWM) of this process, which holds the bot *and* both doubles. Checked: every message
answered exactly once (the model echoes the user's text, tagged with user and message number), each
user's replies in the order of their messages, no "database is locked" and no ERROR in the logs. The exit
code is 1 when a check fails.

    .venv/bin/python bench/load.py            # 1,000 users x 10 messages
    .venv/bin/python bench/load.py --quick    # 100 users x 5 messages

Ten users with a slow model, answered at once: the wall time is checked against `--max-wall-s` (this was a
timed assertion of tests/test_e2e_chat.py; the test now checks that all ten requests were in flight together).
`--hosted` leaves MODEL_CONCURRENCY unset and has the double's host resolve to a global address, as a provider
on the public internet would (llm/concurrency.py); without it the model double gets no limit (MODEL_CONCURRENCY=0).

    .venv/bin/python bench/load.py --users 10 --messages 1 --delay-ms 1000 --max-wall-s 3
    .venv/bin/python bench/load.py --users 10 --messages 1 --delay-ms 2000 --hosted --max-wall-s 8
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from llm.discovery import resolve_host  # noqa: E402
from tests.doubles import CountingOpenAIDouble, TaggedReplies  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402
from transport.logs import setup_logging  # noqa: E402

SENTENCES = ["I live in Berlin and I have a cat named Murka.", "How was your day? I went for a walk.",
             "I like hiking in the mountains.", "What should I cook tonight?", "I work as a nurse.",
             "I'm tired today.", "Tell me something cheerful.", "My sister lives in Lisbon.",
             "Do you remember what I told you?", "I love strong black coffee."]
USER_LINE = re.compile(r"\[user #(\d+)\]")


class Replies(TaggedReplies):
    """The Bot API double, noting when each tagged reply arrives and keeping no per-call history."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = collections.deque(maxlen=100)  # the double's call log; unbounded it would skew RSS
        self.sent = collections.deque(maxlen=100)
        self.drafts = collections.deque(maxlen=100)
        self.draft_calls = 0

    def _send_message_draft(self, p: dict) -> bool:
        self.draft_calls += 1
        return super()._send_message_draft(p)


class Model(CountingOpenAIDouble):
    """The OpenAI double, counting requests instead of keeping every body (they would skew RSS)."""

    def __init__(self) -> None:
        super().__init__()
        self.reply = self.answer

    @staticmethod
    def answer(body: dict) -> str:
        """Echo a chat turn; answer an extraction pass with one fact citing the user's first message."""
        if "response_format" not in body:
            return "echo: " + body["messages"][-1]["content"]
        ids = USER_LINE.findall(body["messages"][-1]["content"])
        facts = [{"category": "interests", "key": "hobby:load testing", "value": "load testing",
                  "importance": 4, "confidence": 0.9, "source_message_id": int(ids[0])}] if ids else []
        return json.dumps({"facts": facts, "relations": []})


class LogCounter(logging.Handler):
    """Counts records by level and those mentioning 'database is locked'; keeps WARNING+ for the report."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.levels: collections.Counter = collections.Counter()
        self.locked = 0
        self.problems: collections.Counter = collections.Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.levels[record.levelname] += 1
        text = record.getMessage() + (self.format(record) if record.exc_info else "")
        self.locked += "database is locked" in text
        if record.levelno >= logging.WARNING:
            self.problems[f"{record.levelname} {record.name}: {record.getMessage()[:100]}"] += 1


def text_of(user: int, number: int) -> str:
    return f"{SENTENCES[(user + number) % len(SENTENCES)]} (u{user} m{number})"


async def one_user(telegram: Replies, user: int, messages: int, think_s: float, pushed: dict) -> None:
    """Send `messages` messages, each after the reply to the previous one and a random think time."""
    await asyncio.sleep(random.uniform(0, think_s))
    for number in range(messages):
        waiter = asyncio.get_running_loop().create_future()
        telegram.waiters[(user, number)] = waiter
        pushed[(user, number)] = time.perf_counter()
        telegram.push_text(user, text_of(user, number))
        await waiter
        await asyncio.sleep(random.uniform(0, 2 * think_s))


async def run(args: argparse.Namespace) -> int:
    telegram, model = Replies(), Model()
    await telegram.start()
    await model.start()
    model.delay = args.delay_ms / 1000
    users = range(1, args.users + 1)
    telegram.expected = args.users * args.messages
    pushed: dict[tuple[int, int], float] = {}
    with tempfile.TemporaryDirectory() as folder:
        # make_config shortens the test timings; put back production's (typing every 4 s, 20 s attempts).
        config = replace(make_config(telegram, model, Path(folder) / "load.db"), embeddings="hashing",
                         telegram_max_rate=args.telegram_rate, typing_interval_s=4.0,
                         model_attempt_timeout_s=20.0, model_retry_budget_s=60.0, model_backoff_s=1.0,
                         stream_replies=args.stream == "on", model_concurrency=None if args.hosted else 0)
        setup_logging(config)  # production's levels and quiet loggers; our counter replaces its stream
        logs = LogCounter()
        logging.getLogger().handlers = [logs]
        async with running_bot(config, resolve=on_the_internet if args.hosted else resolve_host) as app:
            started = time.perf_counter()
            if args.think_ms:
                senders = [one_user(telegram, u, args.messages, args.think_ms / 1000, pushed) for u in users]
                sending = asyncio.gather(*senders)
            else:
                for number in range(args.messages):
                    for user in users:
                        pushed[(user, number)] = time.perf_counter()
                        telegram.push_text(user, text_of(user, number))
            try:
                await asyncio.wait_for(telegram.all_in.wait(), args.timeout)
            except TimeoutError:
                pass
            wall = time.perf_counter() - started
            await asyncio.sleep(1.0)  # any duplicate reply would arrive now
            if args.think_ms:
                sending.cancel()
            stopping = time.perf_counter()
            app.bot_data.keeper.stopping.set()  # as SIGTERM does: passes not yet started give up
        shutdown = time.perf_counter() - stopping  # stop polling, finish turns and the memory passes running
        peak_mib = memory("VmHWM")
    await telegram.close()
    await model.close()
    return report(args, telegram, model, logs, pushed, wall, shutdown, peak_mib)


async def on_the_internet(host: str) -> list[str]:
    """Resolve every host to a global address (one of Google's DNS), as a hosted provider's name resolves."""
    return ["8.8.8.8"]


def memory(field: str) -> float:
    """A VmHWM / VmRSS figure of this process from /proc/self/status, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def report(args, telegram: Replies, model: Model, logs: LogCounter, pushed: dict, wall: float,
           shutdown: float, peak_mib: float) -> int:
    answers = collections.Counter((user, number) for user, number, _ in telegram.arrived)
    latencies = sorted(t - pushed[(u, n)] for u, n, t in telegram.arrived if (u, n) in pushed)
    per_user: dict[int, list[int]] = collections.defaultdict(list)
    for user, number, _ in telegram.arrived:
        per_user[user].append(number)
    missing = [key for key in pushed if key not in answers]
    twice = [key for key, count in answers.items() if count > 1]
    out_of_order = [user for user, numbers in per_user.items() if numbers != sorted(numbers)]
    total = len(pushed)
    rate = f"{args.telegram_rate:g}/s" if args.telegram_rate else "off"

    def pct(q: float) -> str:
        return f"{latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000:,.0f} ms" if latencies else "-"

    mode = f"each user waits for the reply, then 0-{2 * args.think_ms} ms" if args.think_ms else "all pushed at once"
    concurrency = "unset, the model's host on the public internet" if args.hosted else "0 (unlimited)"
    print(f"{args.users:,} users x {args.messages} messages ({mode}); model takes {args.delay_ms} ms; "
          f"Telegram limiter {rate}; STREAM_REPLIES={args.stream}; MODEL_CONCURRENCY {concurrency}; Bot API and"
          " OpenAI doubles over loopback HTTP")
    print(f"answered {len(answers):,} of {total:,} in {wall:.1f}s: {len(answers) / wall:,.0f} messages/s")
    print(f"reply latency: p50 {pct(0.5)}  p95 {pct(0.95)}  p99 {pct(0.99)}  max {pct(1.0)}"
          f"  (mean {statistics.fmean(latencies) * 1000 if latencies else 0:,.0f} ms)")
    print(f"peak RSS (VmHWM) {peak_mib:.1f} MiB: the bot and both doubles, one process")
    print(f"machine load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"shutdown after the last reply took {shutdown:.1f}s (memory passes already running finish first)")
    print(f"model calls: {model.chats:,} chat, {model.extractions:,} extraction, {model.embeddings:,} embeddings;"
          f" drafts shown: {telegram.draft_calls:,}")
    print(f"log records: {dict(logs.levels) or 'none'}")
    for line, count in logs.problems.most_common(10):
        print(f"  {count:>6} x {line}")
    checks = [("every message answered", not missing, f"{len(missing)} unanswered, e.g. {missing[:5]}"),
              ("none answered twice", not twice and not telegram.untagged,
               f"{len(twice)} twice, {telegram.untagged} replies without a tag"),
              ("each user's replies in order", not out_of_order, f"{len(out_of_order)} users, e.g. {out_of_order[:5]}"),
              ("no 'database is locked'", not logs.locked, f"{logs.locked} records"),
              ("no ERROR in the logs", not logs.levels["ERROR"] + logs.levels["CRITICAL"], "see above")]
    if args.max_wall_s:
        checks.append((f"all answered within {args.max_wall_s:g}s", not missing and wall <= args.max_wall_s,
                       f"took {wall:.1f}s"))
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"))
    return 0 if all(ok for _, ok, _ in checks) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=10, help="messages per user")
    parser.add_argument("--delay-ms", type=int, default=200, help="how long the model takes to answer")
    parser.add_argument("--think-ms", type=int, default=0, help="0: push everything at once")
    parser.add_argument("--telegram-rate", type=float, default=0, help="Telegram limiter, requests/s; 0: off")
    parser.add_argument("--timeout", type=float, default=900, help="give up waiting for replies after this")
    parser.add_argument("--stream", choices=("on", "off"), default="on", help="STREAM_REPLIES")
    parser.add_argument("--quick", action="store_true", help="100 users x 5 messages")
    parser.add_argument("--max-wall-s", type=float, default=0, help="a check: every reply in within this; 0: none")
    parser.add_argument("--hosted", action="store_true", help="MODEL_CONCURRENCY unset, the model double's host"
                        " resolving to a global address: a provider on the public internet")
    args = parser.parse_args()
    if args.quick:
        args.users, args.messages = 100, 5
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
