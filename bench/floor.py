"""Where a turn's time goes, and how fast it could be if only the parts it cannot skip were left.

The same turn as bench/turn.py (the real Application, SQLite on disk, 10,000 users, the Bot API and the model
answering at once), run 2,000 times over 100 active users. While it runs, the time spent in a few places is
added up, turn by turn:

- the store: every script a turn runs (the inbox's record and mark, the turn's start, the reply), with their
  SQLite statements, BEGIN and COMMIT;
- python-telegram-bot's parsing: `Update.de_json` of the incoming update and `Message.de_json` of
  sendMessage's answer (Bot.send_message parses it; nested calls are counted once);
- the rules: facts, style wishes and events from the user's words (`Companion.rule_facts`), and what the
  user says has ended, is wrong or is to be forgotten (`Companion._plan`);
- fitting the prompt to the model's budget (`fit_with_carried_lines`, which builds system message zero).

The rest (the update processor, the handler, the limits, the recall, the reply's formatting, the request's
path through python-telegram-bot and the send gate) is printed as one line. Then the pickle baseline of
bench/turn.py is timed, and two ratios are printed: the whole turn's, and the best a turn could reach if it
were only the store and the parsing, that is, if all of the bot's own Python cost nothing.

    .venv/bin/python bench/floor.py            # under a minute on 2 cores
    .venv/bin/python bench/floor.py --quick    # 1,000 users, 300 turns

Means, not medians, so that the parts add up to the whole. The wrapping adds one Python call to each of
ten or so wrapped calls of a turn.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import telegram  # noqa: E402

import services.companion  # noqa: E402
from bench.turn import Counter, one_turn, pickle_baseline, populate, start, stop  # noqa: E402


class Tally:
    """Seconds spent in each wrapped place, the outermost call of each counted once."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._depth: dict[str, int] = {}

    def _enter(self, part: str) -> float | None:
        depth = self._depth.get(part, 0)
        self._depth[part] = depth + 1
        self.seconds.setdefault(part, 0.0)
        return time.perf_counter() if depth == 0 else None

    def _leave(self, part: str, started: float | None) -> None:
        self._depth[part] -= 1
        if started is not None:
            self.seconds[part] += time.perf_counter() - started

    def timed(self, part: str, function):
        """Return `function` (plain or async) adding its time to `part`."""
        if asyncio.iscoroutinefunction(function):
            @functools.wraps(function)
            async def timed_async(*args, **kwargs):
                started = self._enter(part)
                try:
                    return await function(*args, **kwargs)
                finally:
                    self._leave(part, started)
            return timed_async

        @functools.wraps(function)
        def timed_plain(*args, **kwargs):
            started = self._enter(part)
            try:
                return function(*args, **kwargs)
            finally:
                self._leave(part, started)
        return timed_plain


STORE = "the store: the turn's scripts (statements, BEGIN, COMMIT)"
PARSING = "python-telegram-bot: parsing the update and the answer"
RULES = "the rules: facts, style, events, endings, corrections"
PROMPT = "fitting the prompt (builds system message zero)"


def wrap(app, tally: Tally) -> None:
    """Wrap the places the tally follows; they stay wrapped for the rest of the process."""
    backend = app.bot_data.store.backend
    backend.run = tally.timed(STORE, backend.run)
    for cls in (telegram.Update, telegram.Message):
        cls.de_json = classmethod(tally.timed(PARSING, cls.de_json.__func__))
    companion = app.bot_data.companion
    companion.rule_facts = tally.timed(RULES, companion.rule_facts)
    companion._plan = tally.timed(RULES, companion._plan)
    services.companion.fit_with_carried_lines = tally.timed(PROMPT, services.companion.fit_with_carried_lines)


async def measure(folder: Path, population: int, turns: int, active: int) -> tuple[list[float], dict[str, float]]:
    """Return the seconds of each timed turn and the seconds each part took over all of them."""
    app, _api = await start(folder / "bench.db", 0.0)
    await populate(app, population)
    ids = Counter()
    for user_id in range(1, active + 1):  # warm up: a full session for everyone measured
        for _ in range(10):
            await one_turn(app, ids, user_id)
    tally = Tally()
    wrap(app, tally)
    samples = [await one_turn(app, ids, 1 + i % active) for i in range(turns)]
    await stop(app)
    return samples, tally.seconds


def report(samples: list[float], parts: dict[str, float], baseline: list[float] | None) -> None:
    turns, whole = len(samples), statistics.fmean(samples)
    print(f"a turn, mean of {turns:,}: {whole * 1000:.3f} ms (p50 {statistics.median(samples) * 1000:.3f} ms)")
    for part in (STORE, PARSING, RULES, PROMPT):
        mean = parts.get(part, 0.0) / turns
        print(f"  {part:<58} {mean * 1000:6.3f} ms  {100 * mean / whole:4.0f} %")
    rest = whole - sum(parts.values()) / turns
    print(f"  {'everything else':<58} {rest * 1000:6.3f} ms  {100 * rest / whole:4.0f} %")
    if baseline:
        pickled = statistics.median(baseline)
        floor = (parts.get(STORE, 0.0) + parts.get(PARSING, 0.0)) / turns
        print(f"pickle baseline p50 {pickled * 1000:.1f} ms ({len(baseline)} messages)")
        print(f"  baseline / a turn (mean):                         {pickled / whole:5.0f}x")
        print(f"  baseline / the store and the parsing alone:       {pickled / floor:5.0f}x")
        goal = pickled / 350
        left = (f"leaving {(goal - floor) * 1000:.3f} ms for everything but the store and the parsing"
                if goal > floor else "less than the store and the parsing alone")
        print(f"  a 350x turn would take {goal * 1000:.3f} ms, {left}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 users and 300 turns")
    parser.add_argument("--no-pickle-baseline", action="store_true", help="skip the baseline")
    args = parser.parse_args()
    population, turns = (1_000, 300) if args.quick else (10_000, 2_000)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        samples, parts = await measure(folder, population, turns, active=100)
        baseline = None if args.no_pickle_baseline else pickle_baseline(folder, population, 40)
    print(f"database of {population:,} users, 100 active:")
    report(samples, parts, baseline)


if __name__ == "__main__":
    asyncio.run(main())
