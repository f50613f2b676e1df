"""Precision and recall of fact extraction on the labelled corpus bench/extraction_corpus.json.

    .venv/bin/python bench/extraction.py            # the rules layer (memory/rules.py)
    .venv/bin/python bench/extraction.py --misses   # also list every expected fact the rules missed

The corpus holds user messages in Russian and English, each with the facts an ideal extractor should take
from it (`facts`, empty for a trap) and, for traps, the kind of trap (`trap`). Some facts are there on
purpose that no regex can be expected to find ("I teach high school chemistry"): they are the LLM layer's
job, and they count against the rules' recall.

Matching. Within one message, a predicted fact is correct when it pairs with a not yet paired expected
fact such that:
  - the keys are equal; for a key with a discriminator ("likes:hiking") the part before ":" must be equal
    and the discriminators must match like values do, since they are derived from the value and a
    longer or shorter phrase should not count twice against the extractor;
  - the values match: compared with memory.facts.comparable() (lowercase, letters and digits only, ё as е)
    they are equal, or, when the shorter one is over 3 characters, one contains the other.
Every predicted fact that pairs with nothing is a false positive; every expected fact left unpaired is a
miss. Precision = correct / predicted, recall = correct / expected.

`score(predict, corpus)` takes any extractor (text -> list of Fact), so a hybrid extractor (rules + LLM)
can be scored the same way in a later section.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.facts import Fact, comparable
from memory.rules import extract_rule_facts

CORPUS = Path(__file__).with_name("extraction_corpus.json")
COMMAND = ".venv/bin/python bench/extraction.py"
# Key slot -> the family it is reported under.
FAMILIES = {
    "name": "name", "age": "age", "city": "city/country", "country": "city/country", "hometown": "city/country",
    "job_title": "job", "employer": "job", "school": "job", "pet": "pet", "family": "family",
    "likes": "likes/dislikes", "dislikes": "likes/dislikes", "state": "state",
}
FAMILY_ORDER = ["name", "age", "city/country", "job", "pet", "family", "likes/dislikes", "state", "other"]


def load_corpus(path: Path = CORPUS) -> list[dict]:
    """Return the corpus entries: {"text", "lang", "facts": [{"key", "value"}], optional "trap"}."""
    return json.loads(path.read_text(encoding="utf-8"))


def family(key: str) -> str:
    """Return the reporting family of a fact key: 'pet:rex' -> 'pet', 'birthday' -> 'other'."""
    return FAMILIES.get(key.split(":")[0], "other")


def values_match(left: str, right: str) -> bool:
    """True when two values are the same once compared, or the shorter (over 3 characters) is inside the other."""
    a, b = comparable(left), comparable(right)
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) > 3 and shorter in longer


def keys_match(predicted: str, expected: str) -> bool:
    """True for equal keys, or the same slot with discriminators that match as values do."""
    if predicted == expected:
        return True
    slot, _, discriminator = predicted.partition(":")
    expected_slot, _, expected_discriminator = expected.partition(":")
    return bool(discriminator and expected_discriminator) and slot == expected_slot and values_match(
        discriminator, expected_discriminator
    )


def pair(predicted: list[tuple[str, str]], expected: list[tuple[str, str]]) -> tuple[list, list, list]:
    """Return (correct, false positives, misses) for one message's predicted and expected (key, value) pairs."""
    left = list(expected)
    correct, wrong = [], []
    for key, value in predicted:
        match = next((e for e in left if keys_match(key, e[0]) and values_match(value, e[1])), None)
        if match:
            left.remove(match)
            correct.append((key, value))
        else:
            wrong.append((key, value))
    return correct, wrong, left


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _tally(counts: dict, group: str, field: str, amount: int) -> None:
    counts.setdefault(group, {"correct": 0, "predicted": 0, "expected": 0})[field] += amount


def score(predict: Callable[[str], list[Fact]], corpus: Iterable[dict]) -> dict:
    """Return precision/recall overall, per language and per key family, with every false positive and miss."""
    counts: dict[str, dict[str, int]] = {}
    false_positives, misses = [], []
    messages = traps = 0
    for entry in corpus:
        messages += 1
        traps += "trap" in entry
        predicted = [(fact.key, fact.value) for fact in predict(entry["text"])]
        expected = [(fact["key"], fact["value"]) for fact in entry["facts"]]
        correct, wrong, missed = pair(predicted, expected)
        for facts, field in ((correct, "correct"), (predicted, "predicted"), (expected, "expected")):
            for key, _ in facts:
                for group in ("all", entry["lang"], family(key)):
                    _tally(counts, group, field, 1)
        false_positives += [{"text": entry["text"], "key": k, "value": v, "trap": entry.get("trap")} for k, v in wrong]
        misses += [{"text": entry["text"], "key": k, "value": v} for k, v in missed]
    groups = {
        group: {**c, "precision": _ratio(c["correct"], c["predicted"]), "recall": _ratio(c["correct"], c["expected"])}
        for group, c in counts.items()
    }
    return {"messages": messages, "traps": traps, "groups": groups, "false_positives": false_positives,
            "misses": misses}


def rules_predict(text: str) -> list[Fact]:
    """Return the facts the rules layer finds in `text`."""
    return extract_rule_facts(text).facts


def _figure(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def report(title: str, result: dict, show_misses: bool) -> None:
    """Print one extractor's figures, its false positives and, if asked, its misses."""
    print(f"\n== {title}: {result['messages']} messages ({result['traps']} traps)")
    print(f"{'group':16} {'precision':>9} {'recall':>7} {'correct':>8} {'predicted':>9} {'expected':>8}")
    order = ["all", "ru", "en"] + FAMILY_ORDER
    for group in order:
        c = result["groups"].get(group)
        if c:
            print(f"{group:16} {_figure(c['precision']):>9} {_figure(c['recall']):>7} "
                  f"{c['correct']:>8} {c['predicted']:>9} {c['expected']:>8}")
    print(f"\nfalse positives ({len(result['false_positives'])}):")
    for fp in result["false_positives"]:
        trap = f" [trap: {fp['trap']}]" if fp["trap"] else ""
        print(f"  {fp['key']} = {fp['value']!r}  <- {fp['text']!r}{trap}")
    if show_misses:
        print(f"\nmisses ({len(result['misses'])}):")
        for miss in result["misses"]:
            print(f"  {miss['key']} = {miss['value']!r}  <- {miss['text']!r}")


def main() -> None:
    """Print the rules layer's precision and recall on the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="also list every expected fact that was missed")
    args = parser.parse_args()
    print(f"$ {COMMAND}{' --misses' if args.misses else ''}")
    corpus = load_corpus()
    report("rules layer (memory.rules.extract_rule_facts)", score(rules_predict, corpus), args.misses)


if __name__ == "__main__":
    main()
