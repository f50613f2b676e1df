"""What a turn's database work costs on PostgreSQL, on loopback and with the database a few milliseconds away.

Fills a schema through the store's API (200 users, 10 turns each so the session is full, 5 facts each), then
times the start of a turn and its reply (`Store.begin_turn` and `Store.add_reply`) for the users round-robin,
1,200 turns. Then the same through a proxy that holds every chunk `--delay-ms` each way (a process of its own),
as when the database runs on another machine. Each part prints the bare round trip (`SELECT 1`) beside it, so
the turn's cost reads in round trips. To compare two versions of the code, run it in each tree, alternately.

    .venv/bin/python bench/pg_turn.py                  # a throwaway server from Debian's binaries; ~1 minute
    .venv/bin/python bench/pg_turn.py --postgres URL --delay-ms 1
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg  # noqa: E402

from memory.facts import Extraction, Fact  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from tests import pg  # noqa: E402

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
USERS, ROUNDS = 200, 6


async def proxy(listen: int, target: int, delay: float) -> None:
    """Forward 127.0.0.1:listen to 127.0.0.1:target, holding each chunk `delay` seconds."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(reader, server_writer), pipe(server_reader, writer), return_exceptions=True)

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


async def round_trip(url: str) -> float:
    connection = await asyncpg.connect(url)
    try:
        samples = []
        for _ in range(200):
            started = time.perf_counter()
            await connection.fetchval("SELECT 1")
            samples.append(time.perf_counter() - started)
        return statistics.median(samples)
    finally:
        await connection.close()


async def turn(store: Store, user: int, update: int, now: datetime, text: str) -> None:
    started = await store.turns.begin_turn(user_id=user, first_name="A", language_code="en", text=text, now=now,
                                     update_id=update, history_limit=20)
    await store.turns.add_reply(user, "a reply of some length " * 5, now, 20, reply_to=started.message_id)


async def measure(url: str, label: str) -> None:
    store = await Store.open(pg.with_search_path(url, await pg.create_schema(url)))
    try:
        update = 0
        for user in range(1, USERS + 1):
            for minute in range(10):
                update += 1
                await turn(store, user, update, T0 + timedelta(minutes=minute), f"hello {minute}, I am A")
            facts = [Fact("personal", key, f"{key} of user {user}") for key in ("city", "job", "pet", "sport", "food")]
            await store.facts.save_facts(user, Extraction(facts), T0, 100)
        samples = []
        for round_ in range(ROUNDS):
            for user in range(1, USERS + 1):
                update += 1
                started = time.perf_counter()
                await turn(store, user, update, T0 + timedelta(hours=1, minutes=round_), "how are you today")
                samples.append(time.perf_counter() - started)
    finally:
        await store.close()
    samples.sort()
    trip = await round_trip(url)
    print(f"  {label:26s} begin_turn + add_reply p50 {statistics.median(samples) * 1e3:7.3f} ms"
          f"   p90 {samples[len(samples) * 9 // 10] * 1e3:7.3f} ms   (SELECT 1: {trip * 1e3:.3f} ms)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a postgresql:// URL (default: start a throwaway server)")
    parser.add_argument("--delay-ms", type=float, default=0.5, help="the proxy's hold each way (default 0.5)")
    parser.add_argument("--proxy", nargs=3, type=float, metavar=("LISTEN", "TARGET", "DELAY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.proxy:
        listen, target, delay = args.proxy
        return await proxy(int(listen), int(target), delay)
    server = None if args.postgres else pg.start_server()
    url = args.postgres or server.url  # type: ignore[union-attr]
    try:
        print(f"a turn's database work on PostgreSQL, {USERS} users, {USERS * ROUNDS:,} turns:")
        await measure(url, "loopback")
        parts = urlsplit(url)
        listen = pg.free_port()
        lagging = subprocess.Popen([sys.executable, __file__, "--proxy", str(listen), str(parts.port),
                                    str(args.delay_ms / 1000)])
        try:
            await asyncio.sleep(1)
            await measure(urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.port}", f":{listen}"))),
                          f"{args.delay_ms:g} ms each way")
        finally:
            lagging.terminate()
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
