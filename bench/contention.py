"""A conversation and memory upkeep on one real local model server: first words, apologies, tokens evaluated.

The real Application talks to the Bot API double and to llama-cpp-python's server with Gemma 3 270M, as
.ci/real_server builds it and CI runs it (one request at a time, `interrupt_requests` on: its defaults). The bot
runs with the settings a newcomer would use for a local server: everything at its default but `OPENAI_MODEL`
and `TRANSCRIPTION_MODEL=` empty (MODEL_CONCURRENCY is then 1: a server on loopback that reports no slots;
MODEL_TIMEOUT_SECONDS 20, REPLY_MAX_TOKENS 1024,
MEMORY_EXTRACT_EVERY 10), except the idle delay, which the first two phases shorten so that a pass begins.

- quiet: a message with no memory pass in flight; first words (the first draft) from the push. `--runs` times.
- during a pass: a user says something, falls idle, a memory pass begins on the server, and then a message
  arrives; its first words from the push. `--runs` times.
- conversation: 20 messages of one user back to back (MEMORY_EXTRACT_EVERY starts a pass after the 10th and
  the 20th), then a second user; apologies counted.

For every chat request the server's own log gives the prompt tokens it evaluated (llama.cpp reuses the
longest prefix of the previous prompt and evaluates only the rest): their median per turn is printed.

    .venv/bin/python bench/contention.py            # 3 runs of each phase and the conversation, about 25 min
    .venv/bin/python bench/contention.py --runs 1 --phases-only
    .venv/bin/python bench/contention.py --conversation-only --log /tmp/contention.log
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from config import Config, load_config  # noqa: E402
from handlers.texts import text  # noqa: E402
from tests.doubles import TelegramDouble  # noqa: E402
from tests.harness import running_bot  # noqa: E402
from tests.real_server import ALIAS, RealServer, free_port, missing  # noqa: E402

EVALUATED = re.compile(r"prompt eval time\s*=\s*[\d.]+ ms /\s*(\d+) tokens")
SAYINGS = [
    "Hi! My name is Anna, I live in Berlin and I work as a nurse.", "I have a cat called Murka, she is three.",
    "Yesterday I walked along the river after my shift.", "What do you think about learning to paint?",
    "My sister Olga is visiting next week.", "I am a bit tired today, long night at the hospital.",
    "Do you like jazz? I listen to it while cooking.", "Tomorrow I have a dentist appointment at ten.",
    "I want to plan a trip to Lisbon in spring.", "Tell me something calming, please.",
    "My favourite food is pasta with mushrooms.", "I started reading a novel about the sea.",
    "Murka broke a cup this morning.", "How do you remember what I tell you?", "I got a small raise at work!",
    "Olga wants to go to a museum, any ideas?", "It is raining in Berlin again.", "I think I will bake bread.",
    "What should I cook for dinner?", "Thank you for listening today.",
]


def newcomer_config(telegram: TelegramDouble, server: RealServer, database: Path, **overrides) -> Config:
    """Return the settings of the README's local-model row as load_config reads them from the environment,
    everything else at its default; `overrides` replace fields afterwards."""
    config = load_config({
        "TELEGRAM_BOT_TOKEN": telegram.token, "OPENAI_BASE_URL": server.base_url, "OPENAI_MODEL": ALIAS,
        "TRANSCRIPTION_MODEL": "", "TELEGRAM_API_BASE_URL": telegram.base_url,
        "TELEGRAM_FILE_BASE_URL": telegram.base_file_url, "DATABASE_PATH": str(database),
    })
    return replace(config, **overrides)


async def first_words(telegram: TelegramDouble, user: int, words: str) -> tuple[float, bool]:
    """Push `words` from `user`; return seconds to the first draft (or the message) and whether it apologised."""
    drafts, sent = len(telegram.drafts), len(telegram.sent_to(user))
    pushed = time.monotonic()
    telegram.push_text(user, words)
    [*_, reply] = await telegram.wait_for_sent(user, sent + 1, timeout=600)
    mine = [draft for draft in telegram.drafts[drafts:] if draft["chat_id"] == user]
    return (mine[0]["at"] if mine else reply["at"]) - pushed, reply["visible_text"] == text("model_down", None)


async def pass_in_flight(app) -> None:
    """Return once a memory pass holds the server's slot."""
    keeper = app.bot_data.keeper
    while not getattr(keeper, "passes", len(keeper._running)):
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)  # its request is on the server by now


async def phase(server: RealServer, folder: Path, runs: int, during: bool) -> list[tuple[float, bool]]:
    results = []
    for run in range(runs):
        telegram = TelegramDouble()
        await telegram.start()
        try:
            config = newcomer_config(telegram, server, folder / f"{'during' if during else 'quiet'}-{run}.db",
                                     memory_extract_delay_s=1.0 if during else 3600.0)
            async with running_bot(config) as app:
                user = 9000 + run
                if during:
                    await first_words(telegram, user, SAYINGS[0])
                    await asyncio.wait_for(pass_in_flight(app), 300)
                results.append(await first_words(telegram, user, SAYINGS[3]))
        finally:
            await telegram.close()
    return results


async def conversation(server: RealServer, folder: Path) -> list[tuple[float, bool]]:
    telegram = TelegramDouble()
    await telegram.start()
    try:
        async with running_bot(newcomer_config(telegram, server, folder / "conversation.db")):
            results = [await first_words(telegram, 9100, words) for words in SAYINGS]
            results.append(await first_words(telegram, 9101, "Hello! Who are you?"))
            return results
    finally:
        await telegram.close()


def evaluated(log: Path, since: int) -> list[int]:
    """Return the prompt tokens the server evaluated for each request logged after byte `since`."""
    return [int(found) for found in EVALUATED.findall(log.read_text(errors="replace")[since:])]


async def main(args: argparse.Namespace) -> None:
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # "skipped: maximum number of running instances"
    if args.log:  # the bot's own account of each turn and pass, to see where a wait went
        logging.basicConfig(filename=args.log, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    reason = missing()
    if reason:
        sys.exit(reason)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        server = RealServer(free_port(), folder / "server.log")
        server.start()
        try:
            for name, during in (("quiet", False), ("during a pass", True)):
                if args.conversation_only:
                    break
                results = await phase(server, folder, args.runs, during)
                seconds = [round(result[0], 2) for result in results]
                print(f"{name:>14}: first words {seconds} s, median {statistics.median(seconds):.2f} s; "
                      f"apologies {sum(result[1] for result in results)} of {len(results)}", flush=True)
            if args.phases_only:
                return
            since = server.log.stat().st_size
            results = await conversation(server, folder)
            seconds = [result[0] for result in results]
            tokens = evaluated(server.log, since)
            print(f"  conversation: {len(results)} messages, apologies {sum(r[1] for r in results)}, first words "
                  f"median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
            if tokens:
                print(f"  prompt tokens the server evaluated per request: median {statistics.median(tokens)}, "
                      f"total {sum(tokens)} over {len(tokens)} requests (chat and memory upkeep)")
        finally:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phases-only", action="store_true", help="skip the 20-message conversation")
    parser.add_argument("--conversation-only", action="store_true", help="only the 20-message conversation")
    parser.add_argument("--log", help="write the bot's INFO log to this file")
    # A SIGTERM (a `timeout` around the bench) still stops the server, which would go on working otherwise.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    asyncio.run(main(parser.parse_args()))
