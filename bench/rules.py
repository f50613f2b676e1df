"""How long the rules take on a message: secret masking, fact, event, style and change rules, one by one.

Every message of the corpora in bench/ and, where ../shared/data/locomo is at hand, every turn of LoCoMo's
conversations (the same messages tests/test_rules_golden.py keeps the rules' answers for) goes through each
family in turn; the microseconds per message are the median of three runs.

    .venv/bin/python bench/rules.py            # about a minute on 2 cores
    .venv/bin/python bench/rules.py --profile  # ... and cProfile's top 25 by own time
    .venv/bin/python bench/rules.py --without-prefilter  # every pattern run on every text, for comparison

The patterns are learned first, as bot.py's warm_up learns them (memory/text/prefilter.py: one RE2 filter for
all of them); the time that takes is printed.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.rules.change_rules import extract_changes  # noqa: E402
from memory.rules.events import extract_event_facts  # noqa: E402
from memory.rules.rules import extract_rule_facts  # noqa: E402
from memory.secrets.masking import mask_secrets  # noqa: E402
from memory.style.wishes import extract_style_facts  # noqa: E402
from memory.text import prefilter  # noqa: E402
from tests.rules_golden import CORPORA, NOW, corpus_texts, locomo_turns  # noqa: E402

FAMILIES = {
    "secret masking": mask_secrets,
    "fact rules": extract_rule_facts,
    "dated events": lambda text: extract_event_facts(text, NOW),
    "style wishes": extract_style_facts,
    "changes": lambda text: extract_changes(text, NOW),
}


def one_run(texts: list[str]) -> dict[str, float]:
    """Return microseconds per message for each family, over all of `texts`."""
    result = {}
    for name, family in FAMILIES.items():
        started = time.perf_counter()
        for text in texts:
            family(text)
        result[name] = (time.perf_counter() - started) / len(texts) * 1e6
    return result


def run_every_pattern() -> None:
    """Make the prefilter say yes to every pattern and every row, so that each pass runs, as without it."""
    prefilter.could_match = lambda pattern, text: True
    setattr(prefilter.Shortlist, "possible", lambda self, text: list(self.rows))  # noqa: B010 (mypy: no method-assign)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="also cProfile one run, top 25 by own time")
    parser.add_argument("--without-prefilter", action="store_true", help="run every pattern on every text")
    args = parser.parse_args()
    if args.without_prefilter:
        run_every_pattern()
    started = time.perf_counter()
    learned = prefilter.learn_patterns(module for name, module in list(sys.modules.items())
                                       if name.split(".")[0] == "memory")
    print(f"{learned} patterns learned in {(time.perf_counter() - started) * 1000:.0f} ms")
    texts = [text for name in CORPORA for text in corpus_texts(name)]
    turns = [text for _turn, text in locomo_turns()]
    print(f"{len(texts):,} corpus messages, {len(turns):,} LoCoMo turns")
    runs = [one_run(texts + turns) for _ in range(3)]
    total = 0.0
    for name in FAMILIES:
        median = statistics.median(run[name] for run in runs)
        total += median
        print(f"  {name:16s} {median:8.1f} µs a message")
    print(f"  {'all of them':16s} {total:8.1f} µs a message (median of 3 runs each)")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(one_run, texts + turns)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
