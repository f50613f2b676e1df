"""Resident memory of the running bot with 10,000 users' data in its database (the 256 MB Fly.io budget).

Fills a database through the store's API (each user: a full 20-message session and 8 facts), starts the
real `bot.py` process on it against local Bot API and OpenAI doubles, drives 500 turns from 250 users,
and reads the process's resident memory (VmRSS now, VmHWM peak) from /proc.

    .venv/bin/python bench/memory.py            # about a minute
    .venv/bin/python bench/memory.py --users 1000
    .venv/bin/python bench/memory.py --python /tmp/owner/bin/python   # a venv with requirements.txt alone
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from memory.facts import Extraction, Fact  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402

FACTS = [("location", "city", "Kazan"), ("career", "job_title", "teacher"), ("pets", "pet:murka", "кошка Мурка"),
         ("preferences", "likes:jazz", "jazz"), ("family", "family:sister_olya", "сестра Оля"),
         ("personal", "age", "31"), ("interests", "hobby:climbing", "climbing"), ("preferences", "likes:tea", "tea")]


async def populate(path: Path, users: int) -> None:
    store = await Store.open(path)
    now = datetime.now(timezone.utc)
    for user_id in range(1, users + 1):
        for turn in range(10):
            await store.turns.begin_turn(user_id=user_id, first_name="U", language_code="en", now=now, update_id=None,
                                   history_limit=20, text=f"message {turn}: how was your day? mine was long.")
            await store.turns.add_reply(user_id, "That sounds like a full day. Tell me more?", now, 20)
        facts = [Fact(category, key, value) for category, key, value in FACTS]
        await store.facts.save_facts(user_id, Extraction(facts), now, 100)
    await store.close()


def rss_kib(pid: int) -> tuple[int, int]:
    """Return (VmRSS, VmHWM) of a process in KiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--python", metavar="PATH", default=sys.executable,
                        help="the Python that runs the bot, e.g. a venv with requirements.txt alone: what an owner"
                             " installs (the dev packages add cryptography, which python-telegram-bot imports)")
    args = parser.parse_args()
    telegram, model = TelegramDouble(), OpenAIDouble()
    # Chat turns get an echo; the memory extraction calls (a backlog right after start-up) an empty result.
    model.reply = lambda body: (
        '{"facts": [], "relations": []}' if "response_format" in body else "echo: " + body["messages"][-1]["content"]
    )
    await telegram.start()
    await model.start()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bot.db"
        started = time.perf_counter()
        await populate(database, args.users)
        size = sum(path.stat().st_size for path in Path(folder).iterdir())
        print(f"database: {args.users:,} users, {size / 2**20:.1f} MiB, filled in {time.perf_counter() - started:.0f}s")
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": telegram.token, "OPENAI_API_KEY": "sk-test",
               "OPENAI_BASE_URL": model.base_url, "TELEGRAM_API_BASE_URL": telegram.base_url,
               "DATABASE_PATH": str(database), "LOG_LEVEL": "WARNING"}
        process = await asyncio.create_subprocess_exec(args.python, "bot.py", cwd=ROOT, env=env)
        await telegram.wait_for_call("setMyCommands", timeout=60)
        print(f"idle after start-up: VmRSS {rss_kib(process.pid)[0] / 1024:.1f} MiB")
        users = range(1, 251)
        for round_ in range(2):
            for user_id in users:
                telegram.push_text(user_id * 37 % args.users + 1, f"round {round_}: I went to the sea today")
        for user_id in users:
            await telegram.wait_for_sent(user_id * 37 % args.users + 1, 2, timeout=120)
        now, peak = rss_kib(process.pid)
        print(f"after 500 turns from 250 users: VmRSS {now / 1024:.1f} MiB, peak (VmHWM) {peak / 1024:.1f} MiB"
              f" (budget 150 MiB on a 256 MB machine)")
        process.terminate()
        await process.wait()
    await telegram.close()
    await model.close()


if __name__ == "__main__":
    asyncio.run(main())
