"""The memory page: GET api/memory's latency at 100 facts, and the page's weight.

The real Application runs in polling mode against the Bot API and OpenAI doubles, with WEBAPP_URL set, so the
page and its API are served by its own web server on a loopback port. One user has 100 facts (with relations
and 30 topic lines); each call carries freshly signed initData, as the page sends it. Side by side in the same
run: GET /healthz on the same server (the HTTP round trip alone) and GET api/memory for a user with 10 facts.

    .venv/bin/python bench/memory_page.py            # 1,000 calls of each
    .venv/bin/python bench/memory_page.py --calls 200
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from memory.continuity import Topic  # noqa: E402
from memory.facts import CATEGORIES, Extraction, Fact, Relation  # noqa: E402
from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402
from tests.pg import free_port  # noqa: E402
from tests.webapp_signing import init_data  # noqa: E402

PAGE = ROOT / "handlers" / "webapp" / "page"
BUSY, LIGHT = 1, 2


def facts_for(count: int) -> Extraction:
    """Return `count` facts over every category but style, a relation for every fifth, and dates for plans."""
    kinds = [category for category in CATEGORIES if category != "style"]
    facts = [Fact(kinds[n % len(kinds)], f"note:fact_{n}", f"something worth remembering, number {n}",
                  when="2026-12-20" if kinds[n % len(kinds)] == "plans" else None) for n in range(count)]
    relations = [Relation(f"note:fact_{n}", f"note:fact_{n + 1}", "related_to") for n in range(0, count - 1, 5)]
    return Extraction(facts, relations)


async def fill(store, user_id: int, facts: int, topics: int) -> None:
    now = datetime.now(timezone.utc)
    await store.users.meet_user(user_id, now)
    await store.facts.save_facts(user_id, facts_for(facts), now, max_facts=facts)
    for n in range(topics):
        start = now - timedelta(days=topics - n)
        await store.facts.save_facts(user_id, Extraction(), now, facts,
                               topic=Topic(f"conversation {n}: work, the cat, weekend plans", start, start),
                               max_topics=topics)


async def timed(http: aiohttp.ClientSession, url: str, headers: dict, calls: int, expect: int) -> list[float]:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        async with http.get(url, headers=headers) as response:
            await response.read()
            assert response.status == 200, response.status
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def line(name: str, samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=100)
    return f"{name:<32} p50 {statistics.median(samples):6.2f} ms   p90 {cuts[89]:6.2f} ms   p99 {cuts[98]:6.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000)
    args = parser.parse_args()
    files = sorted(path for path in PAGE.iterdir() if path.suffix in (".html", ".js", ".css"))
    raw = sum(path.stat().st_size for path in files)
    packed = sum(len(gzip.compress(path.read_bytes())) for path in files)
    print(f"page: {len(files)} files ({', '.join(path.name for path in files)}), {raw:,} bytes"
          f" ({raw / 1024:.1f} KB; budget 60 KB), {packed:,} bytes gzipped")
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(telegram, model, Path(folder) / "bot.db", webapp_url="https://bench.example/memory/",
                             port=free_port(), log_level="WARNING")
        async with running_bot(config) as app, aiohttp.ClientSession() as http:
            await fill(app.bot_data.store, BUSY, 100, 30)
            await fill(app.bot_data.store, LIGHT, 10, 3)
            base = f"http://127.0.0.1:{config.port}"
            signed = {user: {"Authorization": "tma " + init_data(telegram.token, user, int(time.time()))}
                      for user in (BUSY, LIGHT)}
            async with http.get(f"{base}/memory/api/memory", headers=signed[BUSY]) as response:
                body = await response.read()
            print(f"api/memory at 100 facts: {len(body):,} bytes of JSON")
            await timed(http, f"{base}/healthz", {}, 50, 200)  # warm up
            healthz = await timed(http, f"{base}/healthz", {}, args.calls, 200)
            light = await timed(http, f"{base}/memory/api/memory", signed[LIGHT], args.calls, 200)
            busy = await timed(http, f"{base}/memory/api/memory", signed[BUSY], args.calls, 200)
    await telegram.close()
    await model.close()
    print(f"{args.calls:,} calls each, one after another, SQLite, one process:")
    print(line("GET /healthz (round trip)", healthz))
    print(line("GET api/memory, 10 facts", light))
    print(line("GET api/memory, 100 facts", busy))
    print(f"api/memory at 100 facts takes {statistics.median(busy) / statistics.median(healthz):.1f}x the round"
          f" trip alone; {statistics.median(busy) - statistics.median(healthz):.2f} ms of its own (median)")


if __name__ == "__main__":
    asyncio.run(main())
