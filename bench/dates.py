"""Precision and recall of the dated-event rule (memory/rules/events.py) on bench/dates_corpus.json.

    .venv/bin/python bench/dates.py            # the figures, every false positive and every miss

The corpus holds hand-written Russian and English messages and one fixed `now` (a Thursday morning in
Berlin, with its zone) that every message is resolved against. About half state a dated event of the
user's own, labelled with the `when` a person would read from it ("2026-12-18" or "2026-12-18T09:00");
the rest are look-alikes that must give no event (`trap` says what kind: past, hypothetical, someone
else's, recurring, question, negation, quoted or reported, vague date, cancelled). Some events are there on
purpose that the rule does not know ("пересдача", "viva"): they are the LLM layer's job and count against
recall.

The user's own birthday is scored as an event too: the rule keeps it as the `birthday` fact (dated its coming
occurrence) rather than as a plan, and its label carries `"key": "birthday"`.

Matching. Within one message, a returned event is correct when its `when` equals a not yet paired expected
`when`, exactly, and it is the birthday fact exactly when the label says so: a date where the label has a
time (the rule dropped an hour it could not place) counts as wrong, and so does a birthday kept as a plan.
Precision = correct / returned, recall = correct / expected.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.rules.events import extract_event_facts

CORPUS = Path(__file__).with_name("dates_corpus.json")
COMMAND = ".venv/bin/python bench/dates.py"


def load_corpus(path: Path = CORPUS) -> tuple[datetime, list[dict]]:
    """Return the corpus's `now` (aware, in its zone) and its messages."""
    corpus = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(corpus["now"]).astimezone(ZoneInfo(corpus["zone"]))
    return now, corpus["messages"]


def _label(key: str, when: str) -> str:
    """Return `when` as it is matched and printed: "birthday 2027-03-14" for the birthday fact, else `when` alone."""
    return f"birthday {when}" if key == "birthday" else when


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score(now: datetime, messages: list[dict]) -> dict:
    """Return counts overall and per language, with every false positive and miss."""
    counts = {group: {"correct": 0, "returned": 0, "expected": 0} for group in ("all", "ru", "en")}
    false_positives, misses = [], []
    for message in messages:
        returned = [(fact.value, _label(fact.key, fact.when)) for fact in extract_event_facts(message["text"], now)
                    if fact.category == "plans" or fact.key == "birthday"]
        left = [_label(event.get("key", "plan"), event["when"]) for event in message["events"]]
        correct = 0
        for value, when in returned:
            if when in left:
                left.remove(when)
                correct += 1
            else:
                expected = [_label(event.get("key", "plan"), event["when"]) for event in message["events"]]
                false_positives.append({"text": message["text"], "value": value, "when": when,
                                        "trap": message.get("trap"), "expected": expected})
        misses += [{"text": message["text"], "when": when} for when in left]
        for group in ("all", message["lang"]):
            counts[group]["correct"] += correct
            counts[group]["returned"] += len(returned)
            counts[group]["expected"] += len(message["events"])
    for group in counts.values():
        group["precision"] = _ratio(group["correct"], group["returned"])
        group["recall"] = _ratio(group["correct"], group["expected"])
    return {"counts": counts, "false_positives": false_positives, "misses": misses,
            "messages": len(messages), "traps": sum(not m["events"] for m in messages)}


def _figure(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def main() -> None:
    """Print the rule's precision and recall on the corpus, its false positives and its misses."""
    print(f"$ {COMMAND}")
    now, messages = load_corpus()
    result = score(now, messages)
    print(f"\n== memory.rule_events.extract_event_facts: {result['messages']} messages ({result['traps']} traps), "
          f"now = {now.isoformat()} ({now:%A}, {now.tzinfo})")
    print(f"{'group':6} {'precision':>9} {'recall':>7} {'correct':>8} {'returned':>9} {'expected':>8}")
    for name, c in result["counts"].items():
        print(f"{name:6} {_figure(c['precision']):>9} {_figure(c['recall']):>7} "
              f"{c['correct']:>8} {c['returned']:>9} {c['expected']:>8}")
    print(f"\nfalse positives ({len(result['false_positives'])}):")
    for fp in result["false_positives"]:
        label = f"trap: {fp['trap']}" if fp["trap"] else f"expected {', '.join(fp['expected'])}"
        print(f"  {fp['when']} {fp['value']!r}  <- {fp['text']!r} [{label}]")
    print(f"\nmisses ({len(result['misses'])}):")
    for miss in result["misses"]:
        print(f"  {miss['when']}  <- {miss['text']!r}")


if __name__ == "__main__":
    main()
