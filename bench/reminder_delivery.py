"""Delivery lateness: many reminders due at the same moment, sent by the running bot.

The real Application (JobQueue sweep every second, the real Store on SQLite) sends into the Bot API double over
loopback HTTP. `--reminders` users each have one reminder due at the same moment, a few seconds after start-up
(set through the store: setting them is not what is timed). Lateness is the double's arrival time of each
reminder's sendMessage minus its due time. Run twice, side by side: at Telegram's own rate (TELEGRAM_MAX_RATE's
30 a second, which the bot keeps to, shared by all chats) and with that budget lifted, which shows the bot's
own cost.

    .venv/bin/python bench/reminder_delivery.py                  # 1,000 reminders, both rates
    .venv/bin/python bench/reminder_delivery.py --reminders 200
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.store.memory_store import Store  # noqa: E402
from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402

LEAD = timedelta(seconds=4)  # the reminders fall due this long after they are set


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run(count: int, rate: float, folder: Path) -> list[float]:
    """Return each reminder's lateness in seconds, with the bot sending at most `rate` requests a second."""
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    database = folder / f"rate-{int(rate)}.db"
    try:
        store = await Store.open(database)
        due = datetime.now(timezone.utc) + LEAD
        for user in range(1, count + 1):
            # The double answers "chat not found" for a chat that never wrote: make each one known to it.
            telegram.know_private_chat(user, "U")
            await store.users.meet_user(user, due)
            await store.reminders.add_reminder(user, user, f"task {user}", due, None, "UTC", due)
        await store.close()
        config = replace(make_config(telegram, model, database), telegram_max_rate=rate, proactive=False,
                         memory_extract_delay_s=3600)
        async with running_bot(config):
            deadline = time.monotonic() + 600
            while len([c for c in telegram.calls if c[0] == "sendMessage"]) < count:
                assert time.monotonic() < deadline, "not all reminders were sent"
                await asyncio.sleep(0.05)
            arrived = [message["at"] for user in range(1, count + 1) for message in telegram.sent_to(user)]
        # The double stamps messages with time.monotonic(): turn the due time into that clock.
        due_monotonic = time.monotonic() - (datetime.now(timezone.utc) - due).total_seconds()
        return [at - due_monotonic for at in arrived]
    finally:
        await telegram.close()
        await model.close()


async def main(args: argparse.Namespace) -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # "skipped: maximum number of running instances"
    with tempfile.TemporaryDirectory() as scratch:
        for label, rate in (("Telegram's rate, 30/s", 30.0), ("rate budget lifted", 100_000.0)):
            late = await run(args.reminders, rate, Path(scratch))
            print(f"{label:>22}: {len(late)} reminders due at one moment; lateness p50 {percentile(late, 0.5):.2f} s,"
                  f" p99 {percentile(late, 0.99):.2f} s, max {max(late):.2f} s, median {statistics.median(late):.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reminders", type=int, default=1000)
    asyncio.run(main(parser.parse_args()))
