"""Recall of secret masking (memory/secrets/masking.py) on bench/secrets_corpus.json; how often it touches look-alikes.

    .venv/bin/python bench/secret_masking.py            # the figures
    .venv/bin/python bench/secret_masking.py --misses   # and every secret left in, every look-alike changed
    .venv/bin/python bench/secret_masking.py --corpus PATH  # another set in the same format

The corpus holds hand-written Russian and English messages, one JSON object a line. A secret statement carries
`secret`: the exact substring that must be gone after `mask_secrets` (a list when a message holds several, or a
passport's series and number apart: every piece must be gone), and `kind` says which family it belongs to
(password, pin, cvv, passport, snils, ssn, code, seed, card, iban, key; inn and answer, a security question's, in
bench/secrets_dev59.json). A look-alike has `"secret": null` and a `kind` (phone, date, price, order, tracking,
address, talk, time, other; title and organisation in bench/secrets_dev59.json) and must come back unchanged.

Recall = secret statements whose every piece is gone / secret statements.
Changed = look-alikes that `mask_secrets` changed at all / look-alikes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.secrets.masking import mask_secrets

CORPUS = Path(__file__).with_name("secrets_corpus.json")
COMMAND = ".venv/bin/python bench/secret_masking.py"


def load_corpus(path: Path = CORPUS) -> list[dict]:
    """Return the corpus entries."""
    return json.loads(path.read_text(encoding="utf-8"))


def secret_pieces(entry: dict) -> list[str]:
    """Return the substrings of an entry that must disappear (none for a look-alike)."""
    secret = entry["secret"]
    if secret is None:
        return []
    return [secret] if isinstance(secret, str) else list(secret)


def is_caught(entry: dict, masked: str) -> bool:
    """True when every secret piece of a secret statement is gone from its masked text."""
    return not any(piece in masked for piece in secret_pieces(entry))


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _tally(groups: dict, names: tuple[str, ...], field: str, hit: bool) -> None:
    for name in names:
        group = groups.setdefault(name, {"total": 0, field: 0})
        group["total"] += 1
        group[field] += hit


def score(entries: list[dict]) -> dict:
    """Return recall on secrets and the changed share of look-alikes, overall, by language and by kind."""
    recall: dict[str, dict] = {}
    changed: dict[str, dict] = {}
    misses: list[dict] = []
    touched: list[dict] = []
    for entry in entries:
        masked = mask_secrets(entry["text"])
        if entry["secret"] is None:
            hit = masked != entry["text"]
            _tally(changed, ("all", entry["lang"], entry["kind"]), "changed", hit)
            if hit:
                touched.append({"text": entry["text"], "masked": masked, "kind": entry["kind"]})
        else:
            hit = is_caught(entry, masked)
            _tally(recall, ("all", entry["lang"], entry.get("kind", "?")), "caught", hit)
            if not hit:
                misses.append({"text": entry["text"], "masked": masked, "secret": entry["secret"]})
    for group in recall.values():
        group["share"] = _ratio(group["caught"], group["total"])
    for group in changed.values():
        group["share"] = _ratio(group["changed"], group["total"])
    return {"recall": recall, "changed": changed, "misses": misses, "touched": touched}


def _print_groups(title: str, groups: dict, field: str) -> None:
    print(f"\n{title}")
    print(f"{'group':10} {'share':>6} {field:>8} {'total':>6}")
    languages = [name for name in ("all", "ru", "en") if name in groups]
    for name in languages + sorted(name for name in groups if name not in languages):
        group = groups[name]
        print(f"{name:10} {group['share']:>6.3f} {group[field]:>8} {group['total']:>6}")


def main() -> None:
    """Print recall and the changed share, with the misses and the changed look-alikes when asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list every secret left in and look-alike changed")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a corpus in the same format (default: ours)")
    args = parser.parse_args()
    corpus = "" if args.corpus == CORPUS else f" --corpus {args.corpus}"
    print(f"$ {COMMAND}{corpus}{' --misses' if args.misses else ''}")
    entries = load_corpus(args.corpus)
    result = score(entries)
    _print_groups("== recall on secret statements (every piece of the secret gone)", result["recall"], "caught")
    _print_groups("== look-alikes changed (goal: at most 0.02)", result["changed"], "changed")
    if args.misses:
        print(f"\nsecrets left in ({len(result['misses'])}):")
        for miss in result["misses"]:
            print(f"  {miss['secret']!r}  <- {miss['masked']!r}")
        print(f"\nlook-alikes changed ({len(result['touched'])}):")
        for item in result["touched"]:
            print(f"  [{item['kind']}] {item['text']!r} -> {item['masked']!r}")


if __name__ == "__main__":
    main()
