"""How well memory/reminders/requests.py reads reminder requests, on bench/reminders_corpus.json or another corpus.

    .venv/bin/python bench/reminders.py                                  # the figures on the development corpus
    .venv/bin/python bench/reminders.py --misses                         # and every failure, listed
    .venv/bin/python bench/reminders.py --corpus bench/reminders_heldout.json   # the held-out set
    .venv/bin/python bench/reminders.py --corpus bench/reminders_dev59.json     # issue 59's development set

A corpus holds a `now` (ISO with offset) and a `zone` that every item is read against unless it carries its own,
and items in Russian and English: requests, labelled with the local time of the first delivery ("at",
"2026-12-04T10:27", null when the rules cannot tell), the repeat rule ("week mon 08:00" or null), the task, and
"ask" (a bare hour the bot must ask about); and look-alikes that are no request, labelled with their `trap`
(someone else reminded, a memory question, a negation, a quote, …).

Found: read_request gave SetReminder, AskReminder, Unclear or TooOften (a cancel or a move is not found).
Precision = found requests / all found; recall = found requests / requests. Time right, among found requests
with an expected "at" (or "ask"): a SetReminder whose `at`, local and to the minute, equals "at" and whose
repeat rule text equals "repeat"; an AskReminder when "ask" is true. Task match, among found requests with a
task: the returned task and the label, normalised (case, ё, punctuation, spaces), contain one another.
Wrong sets: a SetReminder whose time or repeat is not the labelled one (any SetReminder where the label has no
"at" or says "ask"), or any SetReminder on a look-alike: a date nobody asked for, set silently, which is worse
than a miss.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.reminders.kinds import AskReminder, SetReminder, TooOften, Unclear
from memory.reminders.requests import read_request

CORPUS = Path(__file__).with_name("reminders_corpus.json")
COMMAND = ".venv/bin/python bench/reminders.py"
FOUND = (SetReminder, AskReminder, Unclear, TooOften)


def load_corpus(path: Path = CORPUS) -> list[tuple[dict, datetime]]:
    """Return each item with the `now` it is read against (aware, in its zone)."""
    corpus = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for item in corpus["items"]:
        zone = ZoneInfo(item.get("zone") or corpus["zone"])
        items.append((item, datetime.fromisoformat(item.get("now") or corpus["now"]).astimezone(zone)))
    return items


def normalised(text: str) -> str:
    """Return `text` lowercased, ё as е, without punctuation, spaces made single."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("ё", "е")).split())


def time_right(found: object, item: dict) -> bool:
    """True when a found request has the labelled first time and repeat (or asks, when the label says so)."""
    if item.get("ask"):
        return isinstance(found, AskReminder)
    if not isinstance(found, SetReminder):
        return False
    at = found.at.strftime("%Y-%m-%dT%H:%M")
    rule = found.repeat.rule() if found.repeat else None
    return at == item["at"] and rule == item.get("repeat")


def wrong_set(found: object, item: dict) -> bool:
    """True when a SetReminder was made that the label does not allow: a trap, no labelled time, or another time."""
    if not isinstance(found, SetReminder):
        return False
    if not item["request"] or item.get("ask") or item.get("at") is None:
        return True
    return not time_right(found, item)


def task_right(found: object, item: dict) -> bool:
    """True when the returned task and the labelled one contain one another, once normalised."""
    mine, theirs = normalised(getattr(found, "task", "")), normalised(item.get("task") or "")
    return bool(mine) and (mine in theirs or theirs in mine)


def describe(found: object) -> str:
    """Return a found result in one short line."""
    if isinstance(found, SetReminder):
        rule = f" [{found.repeat.rule()}]" if found.repeat else ""
        return f"set {found.at:%Y-%m-%dT%H:%M}{rule} {found.task!r}"
    if isinstance(found, AskReminder):
        return f"ask {' / '.join(f'{c.at:%Y-%m-%dT%H:%M}' for c in found.choices)} {found.task!r}"
    return repr(found)


def score(items: list[tuple[dict, datetime]]) -> dict:
    """Return the counts per language and overall, and every failure."""
    groups = {name: dict.fromkeys(("requests", "traps", "found", "found_requests", "timed", "time_right",
                                   "tasked", "task_right", "wrong"), 0) for name in ("all", "ru", "en")}
    failures = []
    for item, now in items:
        found = read_request(item["text"], now)
        is_found = isinstance(found, FOUND)
        expected_time = item["request"] and (item.get("at") is not None or item.get("ask"))
        timed_ok = expected_time and is_found and time_right(found, item)
        tasked = item["request"] and is_found and bool(item.get("task"))
        tasked_ok = tasked and task_right(found, item)
        for name in ("all", item["lang"]):
            group = groups[name]
            group["requests" if item["request"] else "traps"] += 1
            group["found"] += is_found
            group["found_requests"] += is_found and item["request"]
            group["timed"] += bool(expected_time and is_found)
            group["time_right"] += bool(timed_ok)
            group["tasked"] += bool(tasked)
            group["task_right"] += bool(tasked_ok)
            group["wrong"] += wrong_set(found, item)
        if item["request"] and not is_found:
            failures.append(("missed", item, found))
        elif not item["request"] and is_found:
            failures.append(("false", item, found))
        elif expected_time and not timed_ok:
            failures.append(("time", item, found))
        elif tasked and not tasked_ok:
            failures.append(("task", item, found))
    return {"groups": groups, "failures": failures}


def _ratio(part: int, whole: int) -> str:
    return "  -  " if not whole else f"{part / whole:.3f}"


def main(arguments: list[str] | None = None) -> None:
    """Print precision, recall, time right and task match on a corpus, and with --misses every failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--misses", action="store_true", help="list every failure")
    options = parser.parse_args(arguments)
    items = load_corpus(options.corpus)
    result = score(items)
    print(f"$ {COMMAND}" + (f" --corpus {options.corpus}" if options.corpus != CORPUS else ""))
    print(f"\n== memory.reminders.requests.read_request: {len(items)} items, {options.corpus.name}")
    print(f"{'group':6} {'precision':>9} {'recall':>7} {'time right':>10} {'task match':>10} "
          f"{'requests':>8} {'traps':>6} {'found':>6} {'wrong sets':>10}")
    for name, g in result["groups"].items():
        print(f"{name:6} {_ratio(g['found_requests'], g['found']):>9} {_ratio(g['found_requests'], g['requests']):>7} "
              f"{_ratio(g['time_right'], g['timed']):>10} {_ratio(g['task_right'], g['tasked']):>10} "
              f"{g['requests']:>8} {g['traps']:>6} {g['found']:>6} {g['wrong']:>10}")
    if options.misses:
        for kind in ("false", "missed", "time", "task"):
            listed = [(item, found) for what, item, found in result["failures"] if what == kind]
            print(f"\n{kind} ({len(listed)}):")
            for item, found in listed:
                label = (f"trap: {item.get('trap')}" if not item["request"]
                         else f"at {item.get('at')} {item.get('repeat') or ''}{' ask' if item.get('ask') else ''} "
                              f"{item.get('task')!r}")
                print(f"  {item['text']!r}\n      got {describe(found)}  [{label}]")


if __name__ == "__main__":
    main()
