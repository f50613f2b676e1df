"""What recording "why did you say that?" costs a reply: the CPU of the real Store's turn with and without it.

Issue 57 asks that recording what a reply's prompt held cost at most 0.3 ms of CPU a message and at most one row a
reply. A reply's record is one JSON column of its own row (`messages.used`, written by `add_reply`), and the id of the
Telegram message that carried it (`mark_sent`, one UPDATE once the reply is sent). This bench times exactly that
difference, in one process, against the real Store on a SQLite file (WAL, as the bot opens it):

- before: `begin_turn`, then `add_reply` without a record (the turn as it was);
- after: `begin_turn`, `Used.of(...)` of 20 facts, 5 recalled, 3 wishes, 3 topic lines and 2 reminders with its JSON,
  `add_reply` with it, then `mark_sent`.

CPU is the process's (time.process_time: every thread, aiosqlite's included), over blocks of `--turns` turns,
the two kinds of block interleaved for `--rounds` rounds, which goes first alternating; the figures are medians a
turn. The machine's noise is
the same for both, which is why they run side by side, not in two runs of bench/process_cpu.py.

    .venv/bin/python bench/why_record.py                    # 9 rounds of 300 turns each way: about a minute
    .venv/bin/python bench/why_record.py --rounds 3 --turns 100   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.continuity import Topic  # noqa: E402
from memory.facts import Extraction, Fact  # noqa: E402
from memory.reminder import Reminder  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from services.why import Used  # noqa: E402

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
HISTORY = 20


async def block(store: Store, user_id: int, turns: int, start: int, record: bool, held: tuple) -> float:
    """Run `turns` turns of one user; return the process CPU seconds they took."""
    facts, recalled, wishes, topics, reminders = held
    began = time.process_time()
    for n in range(start, start + turns):
        now = T0 + timedelta(seconds=n)
        turn = await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="en",
                                      text=f"message {n}: how was your day?", now=now,
                                      update_id=user_id * 1_000_000 + n,
                                      history_limit=HISTORY, chat_message_id=2 * n)
        assert turn is not None
        if record:
            used = Used.of(facts, recalled, wishes, topics, reminders).to_json()
            reply = await store.turns.add_reply(user_id, f"reply {n}: it sounds lovely", now, HISTORY,
                                          reply_to=turn.message_id, tokens=40, used=used)
            await store.turns.mark_sent(user_id, reply, 2 * n + 1)
        else:
            await store.turns.add_reply(user_id, f"reply {n}: it sounds lovely", now, HISTORY,
                                  reply_to=turn.message_id, tokens=40)
    return time.process_time() - began


async def measure(store: Store, rounds: int, turns: int) -> tuple[list[float], list[float], list[int], Used]:
    """Return the CPU a turn of each block without and with the record, the messages kept a user, and the record."""
    for user_id in (1, 2):
        await store.users.meet_user(user_id, T0)
        await store.facts.save_facts(user_id, Extraction([Fact("other", f"note:{i}", f"fact number {i}")
                                                    for i in range(30)]), T0, 100)
    known = await store.facts.facts(1)
    held = (known[:20], known[20:25], known[25:28], [Topic(f"topic {i}", T0, T0, id=i) for i in range(3)],
            [Reminder(i, 1, 1, None, f"task {i}", T0, None, "UTC", T0) for i in range(2)])
    await block(store, 1, turns, 0, False, held)  # warm-up: caches, the WAL, the first checkpoints
    await block(store, 2, turns, 0, True, held)
    before, after = [], []
    for index in range(rounds):  # which goes first alternates: a WAL checkpoint falls on either as often
        start = (index + 1) * turns
        if index % 2:
            after.append(await block(store, 2, turns, start, True, held) / turns)
        before.append(await block(store, 1, turns, start, False, held) / turns)
        if not index % 2:
            after.append(await block(store, 2, turns, start, True, held) / turns)
    rows = [(await store.users.profile(user_id)).messages for user_id in (1, 2)]
    return before, after, rows, Used.of(*held)


async def main(rounds: int, turns: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bot.db")
        try:
            before, after, rows, used = await measure(store, rounds, turns)
        finally:
            await store.close()
    b, a = statistics.median(before), statistics.median(after)
    print(f"{rounds} rounds of {turns} turns each way, process CPU a turn (median):")
    print(f"  before (no record):            {b * 1000:.3f} ms")
    print(f"  after (record + mark_sent):    {a * 1000:.3f} ms")
    print(f"  difference:                    {(a - b) * 1000:+.3f} ms a reply")
    rounds_ms = ", ".join(f"{(y - x) * 1000:+.3f}" for x, y in zip(before, after, strict=True))
    print(f"  per-round differences (ms):    {rounds_ms}")
    print(f"  rows kept a user (messages):   before {rows[0]}, after {rows[1]} (the record rides in the reply's row)")
    print(f"  the record of {used.count} memories: {len(used.to_json())} bytes of JSON")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--turns", type=int, default=300)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rounds, arguments.turns))
