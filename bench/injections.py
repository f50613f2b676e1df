"""How well memory/orders.py refuses injections and keeps ordinary values, on a corpus it was not written from.

The corpus is a JSON array of {"value": str, "injection": bool, "lang": "ru"|"en"|…, "where": "rules"|
"extractor"|"topic"|"page"|…}. Prints the share of injections refused and the count of ordinary values refused,
each split by language and by where the value enters memory; `--misses` lists the ones judged wrong.

It also times one judgement (a fact's value, as the rules and the extractor hand it over), against a budget of
2 ms (`--budget-ms`; the exit code is 1 past it): this was a timed assertion of tests/test_orders.py.

    .venv/bin/python bench/injections.py [--corpus bench/injections_heldout.json] [--misses] [--budget-ms 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.orders import gives_orders  # noqa: E402

DEFAULT_CORPUS = Path(__file__).with_name("injections_heldout.json")
TIMED_VALUE = "работает медсестрой в городской больнице"  # an ordinary value: judged all the way, never refused


def judged(corpus: list[dict]) -> list[tuple[dict, bool]]:
    """Return each corpus item with whether gives_orders refuses its value."""
    return [(item, gives_orders(item["value"])) for item in corpus]


def report(results: list[tuple[dict, bool]], misses: bool) -> list[str]:
    """Return the report's lines: refused-rate on injections, ordinary values refused, and the misses if asked."""
    injections = [(item, refused) for item, refused in results if item["injection"]]
    ordinary = [(item, refused) for item, refused in results if not item["injection"]]
    caught = sum(refused for _, refused in injections)
    wrong = sum(refused for _, refused in ordinary)
    lines = [f"injections refused: {caught}/{len(injections)} ({caught / max(1, len(injections)):.1%})",
             f"ordinary values refused: {wrong}/{len(ordinary)}"]
    for field in ("lang", "where"):
        totals, hits, false = Counter(), Counter(), Counter()
        for item, refused in results:
            group = str(item.get(field, "?"))
            totals[group, item["injection"]] += 1
            hits[group] += refused and item["injection"]
            false[group] += refused and not item["injection"]
        for group in sorted({group for group, _ in totals}):
            lines.append(f"  {field}={group}: injections {hits[group]}/{totals[group, True]}, "
                         f"ordinary refused {false[group]}/{totals[group, False]}")
    if misses:
        lines += [f"missed injection [{item.get('lang')}/{item.get('where')}]: {item['value']!r}"
                  for item, refused in injections if not refused]
        lines += [f"ordinary refused [{item.get('lang')}/{item.get('where')}]: {item['value']!r}"
                  for item, refused in ordinary if refused]
    return lines


def seconds_a_judgement(values: list[str], number: int = 200, repeat: int = 3) -> float:
    """Return the seconds one gives_orders call takes on `values` (the mean over them, the best of `repeat` runs),
    its word list read before."""
    gives_orders("warm up")
    runs = timeit.repeat(lambda: [gives_orders(value) for value in values], number=number, repeat=repeat)
    return min(runs) / (number * len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--misses", action="store_true", help="list the injections let through and values refused")
    parser.add_argument("--budget-ms", type=float, default=2.0, help="the most one judgement may take")
    args = parser.parse_args()
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    print("\n".join(report(judged(corpus), args.misses)))
    one = seconds_a_judgement([TIMED_VALUE]) * 1000
    mean = seconds_a_judgement([item["value"] for item in corpus], number=20) * 1000
    within = one <= args.budget_ms
    print(f"one judgement: {one:.3f} ms ({TIMED_VALUE!r}); the corpus's values: {mean:.3f} ms on average;"
          f" budget {args.budget_ms:g} ms: {'ok' if within else 'FAIL'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
