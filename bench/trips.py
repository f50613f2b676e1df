"""What a turn's database work costs on SQLite, three ways: a trip to aiosqlite's thread per statement, the same
inside one transaction, and in one transaction in the loop's own thread, no trip at all (what Store does since
2026-12-03, while no other connection is writing). All three through aiosqlite's public API.

Fills a database through the store's API (each user 10 turns, so a full 20-message session), then times the
start of a turn and its reply (`Store.begin_turn` and `Store.add_reply`, 7 statements on a user's first message
of the turn, 4 of them writes) for users round-robin, the four ways in turn on each round, side by side, with
a pause (1 ms) between a turn's start and its reply and after it, as a model and the rest of a turn make:

- *trip per statement*: each statement awaited on its own through aiosqlite's `execute_fetchall`, committing on
  its own (the code before issue 27);
- *trip per statement, one transaction*: BEGIN IMMEDIATE … COMMIT around them, each still a trip (the store
  written on aiosqlite's methods alone; the code of 2026-12-02 made it one trip through a private call of
  aiosqlite's, which the project no longer uses);
- *in the loop's thread*: the same transaction run where the turn runs (`SQLiteBackend.run`, as Store does now).

    .venv/bin/python bench/trips.py              # about 30 seconds
    .venv/bin/python bench/trips.py --users 500 --rounds 300
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.store.memory_store import Store  # noqa: E402
from memory.store.scripts import Script, await_each_statement  # noqa: E402
from memory.store.sqlite_backend import BUSY_TIMEOUT_MS  # noqa: E402

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)


async def trip_per_statement(store: Store, script: Script):
    connection = store.backend.connection
    async with store.backend.lock:
        return await await_each_statement(connection.execute_fetchall, script)


async def one_transaction(store: Store, script: Script):
    connection = store.backend.connection
    async with store.backend.lock:
        await connection.execute("BEGIN IMMEDIATE")
        try:
            result = await await_each_statement(connection.execute_fetchall, script)
        except BaseException:
            await connection.execute("ROLLBACK")
            raise
        await connection.execute("COMMIT")
        return result


async def in_the_loop(store: Store, script: Script):
    return await store.backend.run(script)  # as Store runs them since 2026-12-03: no trip at all


WAYS = {"trip per statement": trip_per_statement, "trip per statement, one transaction": one_transaction,
        "in the loop's thread": in_the_loop}


async def turn(store: Store, run, user_id: int, update_id: int, pause: float) -> float:
    """Return the seconds of one turn's database work (its start and its reply) run the given way; the
    `pause` between them (the model answering) is not counted."""
    started = time.perf_counter()
    begun = await run(store, store.turns._begin_turn(user_id, "U", "en", "How was your day? I went for a walk.", NOW,
                                               update_id, 20, "text", True, None, None, user_id))
    begun_in = time.perf_counter() - started
    await asyncio.sleep(pause)  # aiosqlite's thread goes back to waiting, as it does while a model answers
    started = time.perf_counter()
    await run(store, store.turns._add_reply(user_id, "That sounds lovely. Tell me more?", NOW, 20, begun.message_id, 30,
                                           None, user_id))
    return begun_in + time.perf_counter() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=600)
    parser.add_argument("--pause-ms", type=float, default=1.0, help="between a turn's start and its reply")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "trips.db")
        for user_id in range(1, args.users + 1):
            for n in range(10):
                begun = await store.turns.begin_turn(user_id=user_id, first_name="U", language_code="en", now=NOW,
                                               update_id=None, history_limit=20, text=f"message {n}")
                await store.turns.add_reply(user_id, "a reply", NOW, 20, reply_to=begun.message_id)
        # Every way waits for the checkpoint thread's RESTART, as the store on aiosqlite's methods alone would have
        # to (the store itself sends such a wait to aiosqlite's thread: SQLiteBackend.begin_patiently).
        await store.backend.connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        samples: dict[str, list[float]] = {name: [] for name in WAYS}
        update_id = 1_000_000
        for _ in range(args.rounds):
            for name, run in WAYS.items():  # side by side: each way once a round, on the next user
                update_id += 1
                samples[name].append(await turn(store, run, 1 + (update_id * 7) % args.users, update_id,
                                                args.pause_ms / 1000))
                await asyncio.sleep(args.pause_ms / 1000)
        await store.close()
    print(f"a turn's database work (begin_turn + add_reply), {args.rounds} each, {args.users:,} users, p50 / p99:")
    base = statistics.median(samples["trip per statement"])
    for name, seconds in samples.items():
        ms = sorted(s * 1000 for s in seconds)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        print(f"  {name:<36} {statistics.median(ms):6.3f} ms  {p99:6.3f} ms   {base / statistics.median(seconds):.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
