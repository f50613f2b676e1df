"""How long an extraction answer gets: the measure behind the extractor's answer cap (Config.extract_max_tokens).

    .venv/bin/python bench/answer_size.py                          # estimated tokens (llm/tokens.py)
    .venv/bin/python bench/answer_size.py --tokenizer http://127.0.0.1:PORT   # also a real tokenizer's count

The ideal answer for a batch is built from the labelled corpus (bench/extraction_corpus.json): every expected
fact of its messages written out in the answer's full schema, one relation per two facts, and a topic line of
200 characters, as a model that misses nothing would answer. Batches are MEMORY_BATCH (30) consecutive user
messages; the script prints the median batch and the densest one, against the cap. `--tokenizer` takes the
base URL of a llama-cpp-python server (tools: .ci/real_server) and counts with its /extras/tokenize/count.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tokens import real_count  # noqa: E402
from config import Config  # noqa: E402
from llm.tokens import estimate_tokens  # noqa: E402

CORPUS = Path(__file__).with_name("extraction_corpus.json")
DEFAULTS = Config(telegram_token="1:x", openai_api_key="k")
BATCH, ANSWER_MAX_TOKENS = DEFAULTS.memory_batch, DEFAULTS.extract_max_tokens


def ideal_answer(entries: list[dict], first_id: int) -> str:
    """Return the answer that states every expected fact of `entries` (ids from `first_id`) in the full schema."""
    facts = [
        {"category": "personal", "key": fact["key"], "value": fact["value"], "importance": 7, "confidence": 0.9,
         "source_message_id": first_id + index, "when": None}
        for index, entry in enumerate(entries) for fact in entry["facts"]
    ]
    relations = [
        {"source_key": left["key"], "target_key": right["key"], "relation": "related_to", "strength": 0.8}
        for left, right in zip(facts[::2], facts[1::2], strict=False)
    ]
    return json.dumps({"facts": facts, "relations": relations, "topics": "т" * 200}, ensure_ascii=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", help="base URL of a llama-cpp-python server, for a real token count")
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    answers = [ideal_answer(corpus[start:start + BATCH], 1000 + start) for start in range(len(corpus) - BATCH + 1)]
    counters = {"estimated": estimate_tokens}
    if args.tokenizer:
        counters["real (the server's tokenizer)"] = lambda text: real_count(args.tokenizer, text)
    print(f"ideal extraction answers for {len(answers)} windows of {BATCH} messages of {CORPUS.name}"
          f" ({sum(len(e['facts']) for e in corpus) / len(corpus):.2f} facts a message); cap {ANSWER_MAX_TOKENS}")
    for name, count in counters.items():
        sizes = [count(answer) for answer in answers]
        densest = max(sizes)
        print(f"  {name}: median {statistics.median(sizes):.0f} tokens, densest {densest}"
              f" ({densest / ANSWER_MAX_TOKENS:.0%} of the cap)")


if __name__ == "__main__":
    main()
