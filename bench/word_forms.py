"""How well the word toolkit and what stands on it read inflected Russian names and cities, on a blind set.

    .venv/bin/python bench/word_forms.py             # the figures on bench/word_forms_heldout.json
    .venv/bin/python bench/word_forms.py --misses    # and every miss, listed

The set was written by a helper that had not read the code (issue 43's word toolkit): each item a `kind`, an
`input` and the `expected` answer, null where the right answer is "none". What each kind asks:

- nominative: memory/text/word_forms.py `nominative(input)`, a name in another case -> its nominative;
- name: memory/rules/rules.py `extract_name(input)`, the name the user goes by, from a whole message;
- city: the value of the "city" fact memory/rules/rules.py `extract_rule_facts(input)` learns, or null;
- zone: memory/time/zones.py `zone_for_city(input)`, a city in any case -> its IANA zone, or null;
- same_word: whether `bases(a)` and `bases(b)` share a base (word_forms.py: are they forms of one word).

An item is right when the answer equals `expected` exactly (spelling, ё and capitals included).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.rules.rules import extract_name, extract_rule_facts
from memory.text.word_forms import bases, nominative
from memory.time.zones import zone_for_city

HELDOUT = Path(__file__).with_name("word_forms_heldout.json")


def city(text: str) -> str | None:
    """Return the value of the city fact the rules learn from `text`, or None."""
    return next((fact.value for fact in extract_rule_facts(text).facts if fact.key == "city"), None)


def same_word(pair: list[str]) -> bool:
    """True when the two words share a base."""
    first, second = pair
    return bool(bases(first) & bases(second))


ASK: dict[str, Callable] = {
    "nominative": nominative, "name": extract_name, "city": city, "zone": zone_for_city, "same_word": same_word,
}


def score(items: list[dict]) -> tuple[Counter, Counter, list[tuple[dict, object]]]:
    """Return the items and the right answers by kind, and each miss with the answer given."""
    asked, right, misses = Counter(), Counter(), []
    for item in items:
        answer = ASK[item["kind"]](item["input"])
        asked[item["kind"]] += 1
        if answer == item["expected"]:
            right[item["kind"]] += 1
        else:
            misses.append((item, answer))
    return asked, right, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=HELDOUT, help="the items (default: the blind held-out set)")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    args = parser.parse_args()
    asked, right, misses = score(json.loads(args.set.read_text(encoding="utf-8")))
    for kind in ASK:
        print(f"{kind:<11} {right[kind]:>3} / {asked[kind]:<3} right  {right[kind] / max(asked[kind], 1):.3f}")
    print(f"{'all':<11} {sum(right.values()):>3} / {sum(asked.values()):<3} right  "
          f"{sum(right.values()) / max(sum(asked.values()), 1):.3f}")
    if args.misses:
        shown = functools.partial(json.dumps, ensure_ascii=False)
        for item, answer in misses:
            print(f"  {item['kind']:<11} {shown(item['input'])}: {shown(answer)}, expected {shown(item['expected'])}")


if __name__ == "__main__":
    main()
