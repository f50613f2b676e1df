"""Precision and recall of near-duplicate facts (memory/recall/duplicates.py) on bench/duplicates_corpus.json,
and the cosine threshold each embedder gets.

    .venv/bin/python bench/duplicates.py                    # the slot test, then each embedder's thresholds
    .venv/bin/python bench/duplicates.py --misses           # also list the errors at each kept threshold
    .venv/bin/python bench/duplicates.py --heldout          # bench/duplicates_heldout.json at the kept thresholds
    .venv/bin/python bench/duplicates.py --embedders hashing
    OPENAI_API_KEY=... .venv/bin/python bench/duplicates.py --embedders openai   # text-embedding-3-small

The corpus holds 224 pairs of one user's current facts (category, key, value) in Russian and English, labelled
duplicate or not before anything was measured on them (its "about" says by what rule). A pair is predicted a
duplicate when near_duplicates finds it in the two facts: by the slot test, or by the cosine of the facts'
vectors (each embedded as stored: memory.recall.recaller.fact_text, the embedder's `embed`) at or above a
threshold. Precision = true pairs found / pairs found, recall = true pairs found / true pairs.

The threshold chosen is the one with the best recall among those whose precision is at least 0.90 (the highest
such threshold where several tie): a false pair claims a real memory is junk, and merging on it would lose a
sister to her brother; a missed pair leaves one redundant line. It is kept (for DUPLICATE_SIMILARITY) only when
a threshold chosen on either half of the pairs (even, odd) keeps precision >= 0.90 on the other half. Also
printed: the cosines of facts from two different pairs (mostly unrelated, as most of a user's pairs are), and
how long near_duplicates takes over 100 facts. `local` needs `pip install -r requirements-local.txt`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import openai

from memory.facts import Fact
from memory.recall.duplicates import duplicate_threshold, near_duplicates
from memory.recall.embeddings import EmbedderUnavailable, make_embedder
from memory.recall.recaller import fact_text

CORPUS = Path(__file__).with_name("duplicates_corpus.json")
HELDOUT = Path(__file__).with_name("duplicates_heldout.json")
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
MIN_PRECISION = 0.90
THRESHOLDS = [round(0.30 + 0.01 * step, 2) for step in range(70)]  # 0.30 .. 0.99


def load_pairs(path: Path) -> list[tuple[Fact, Fact, bool]]:
    """Return the corpus's pairs as (fact, fact, duplicate), the facts with ids 1 and 2 and stamped as stored."""
    pairs = []
    for item in json.loads(path.read_text(encoding="utf-8"))["pairs"]:
        first, second = (Fact(**item[side], id=number, created_at=NOW, updated_at=NOW)
                         for number, side in ((1, "a"), (2, "b")))
        pairs.append((first, second, bool(item["duplicate"])))
    return pairs


def verdicts(pairs: list[tuple[Fact, Fact, bool]], vectors: list[np.ndarray] | None) -> list[tuple[str, float]]:
    """Return, per pair, what near_duplicates says with no threshold in the way: ("slot", cosine), ("vector",
    cosine), or ("never", nan) for a pair it never makes (whatever the cosine)."""
    found = []
    for index, (first, second, _) in enumerate(pairs):
        by_id = {1: vectors[2 * index], 2: vectors[2 * index + 1]} if vectors is not None else None
        pair = near_duplicates([first, second], NOW, by_id, threshold=-1.0 if by_id else None)
        if not pair:
            found.append(("never", float("nan")))
        else:
            similarity = pair[0].similarity
            found.append((pair[0].reason, similarity if similarity is not None else float("nan")))
    return found


def scores(predicted: list[bool], labels: list[bool]) -> tuple[float, float, float, int, int]:
    """Return precision, recall, F1, pairs found and true pairs found."""
    hits = sum(p and label for p, label in zip(predicted, labels, strict=True))
    found, true = sum(predicted), sum(labels)
    precision = hits / found if found else 1.0
    recall = hits / true if true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, found, hits


def predict(found: list[tuple[str, float]], threshold: float | None) -> list[bool]:
    """Return the pairs predicted duplicates at `threshold` (None: the slot test alone)."""
    return [reason == "slot" or (threshold is not None and reason == "vector" and cosine >= threshold)
            for reason, cosine in found]


def choose(found: list[tuple[str, float]], labels: list[bool]) -> float | None:
    """Return the threshold with the best recall at precision >= MIN_PRECISION (the highest of ties), or None."""
    best: tuple[float, float] | None = None
    for threshold in THRESHOLDS:
        precision, recall, *_ = scores(predict(found, threshold), labels)
        if precision >= MIN_PRECISION and (best is None or recall >= best[1]):
            best = (threshold, recall)
    return best[0] if best else None


def line(name: str, predicted: list[bool], labels: list[bool]) -> str:
    precision, recall, f1, found, hits = scores(predicted, labels)
    return f"{name:<28} P {precision:.3f}  R {recall:.3f}  F1 {f1:.3f}  ({hits} of {found} found pairs true)"


def embed(name: str, pairs: list[tuple[Fact, Fact, bool]], model: str) -> tuple[str, list[np.ndarray]] | None:
    """Return the embedder's name and one vector per fact (a, b of each pair in turn), or None when it cannot run."""
    if name == "openai" and not os.environ.get("OPENAI_API_KEY"):
        print(f"\nopenai ({model}): not measured (no OPENAI_API_KEY)")
        return None
    try:
        embedder = make_embedder(name, openai.AsyncOpenAI() if name == "openai" else None, model)
    except EmbedderUnavailable as error:
        print(f"\n{name}: not measured ({error})")
        return None
    texts = [fact_text(fact) for first, second, _ in pairs for fact in (first, second)]
    return embedder.name, list(asyncio.run(embedder.embed(texts)))


def check(name: str, pairs: list[tuple[Fact, Fact, bool]], model: str) -> None:
    """Print the figures at the threshold memory.recall.duplicates keeps for the embedder (held-out pairs)."""
    embedded = embed(name, pairs, model)
    if embedded is None:
        return
    model, vectors = embedded
    threshold = duplicate_threshold(model)
    labels = [label for _, _, label in pairs]
    name = f"{model}: slot or cosine >= {threshold}" if threshold is not None else f"{model}: vector test off"
    print(line(name, predict(verdicts(pairs, vectors), threshold), labels))


def report(name: str, pairs: list[tuple[Fact, Fact, bool]], model: str, misses: bool) -> None:
    embedded = embed(name, pairs, model)
    if embedded is None:
        return
    model, vectors = embedded
    labels = [label for _, _, label in pairs]
    found = verdicts(pairs, vectors)
    cosines = np.array([cosine for _, cosine in found])
    duplicate = np.array(labels)
    compared = np.array([reason == "vector" for reason, _ in found])
    print(f"\n{name} ({model}): cosines of the {int((compared & duplicate).sum())} duplicates the slot test leaves to "
          f"the vectors, median {np.median(cosines[compared & duplicate]):.3f}; of the "
          f"{int((compared & ~duplicate).sum())} others, median {np.median(cosines[compared & ~duplicate]):.3f}")
    unit = np.array(vectors) / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    firsts, seconds = unit[0::2], unit[1::2]
    cross = (firsts @ seconds.T)[~np.eye(len(pairs), dtype=bool)]  # pair i's first fact, pair j's second
    print(f"  facts of two different pairs ({len(cross)}, mostly unrelated): median {np.median(cross):.3f}, "
          f"99th percentile {np.percentile(cross, 99):.3f}")
    for threshold in THRESHOLDS[::5]:
        print(line(f"  slot or cosine >= {threshold:.2f}", predict(found, threshold), labels))
    chosen = choose(found, labels)
    print(line(f"  best at P >= {MIN_PRECISION:.2f}: {chosen}", predict(found, chosen), labels))
    print(line("  of which the vector test's", [r == "vector" and chosen is not None and c >= chosen
                                                  for r, c in found], labels))
    halves = (list(range(0, len(pairs), 2)), list(range(1, len(pairs), 2)))
    holds = chosen is not None
    for tuned, held in (halves, halves[::-1]):
        picked = choose([found[i] for i in tuned], [labels[i] for i in tuned])
        predicted, truth = predict([found[i] for i in held], picked), [labels[i] for i in held]
        holds = holds and picked is not None and scores(predicted, truth)[0] >= MIN_PRECISION
        print(line(f"  chosen on the {'even' if tuned[0] == 0 else 'odd'} half ({picked}), on the other", predicted,
                   truth))
    if holds:
        print(f"  kept: cosine >= {chosen:.2f} for {model} (it holds on the half it was not chosen on)")
    else:
        print(f"  off for {model}: no threshold keeps P >= {MIN_PRECISION:.2f} on the half it was not chosen on")
    if misses:
        print_misses(pairs, found, chosen if holds else None)


def print_misses(pairs: list[tuple[Fact, Fact, bool]], found: list[tuple[str, float]], threshold: float | None
                 ) -> None:
    for (first, second, label), guess, (reason, cosine) in zip(pairs, predict(found, threshold), found, strict=True):
        if guess != label:
            kind = "missed     " if label else "false pair "
            print(f"    {kind} {reason:<6} {cosine:.3f}  {first.key} = {first.value!r}  |  {second.key} = "
                  f"{second.value!r}")


def timing(pairs: list[tuple[Fact, Fact, bool]]) -> None:
    """Print how long near_duplicates takes over one user at MEMORY_MAX_FACTS's default: 100 facts of the corpus
    (distinct keys), each with a 384-dimension vector as e5's; the median of 5 calls."""
    facts: dict[str, Fact] = {}
    for first, second, _ in pairs:
        for fact in (first, second):
            facts.setdefault(fact.key, replace(fact, id=len(facts) + 1))
    user = list(facts.values())[:100]
    rng = np.random.default_rng(57)
    vectors = {fact.id: rng.standard_normal(384).astype(np.float32) for fact in user if fact.id is not None}
    times = []
    for _ in range(5):
        start = time.perf_counter()
        found = near_duplicates(user, NOW, vectors, threshold=0.96)
        times.append((time.perf_counter() - start) * 1000)
    print(f"\n{len(user)} facts of one user: near_duplicates {statistics.median(times):.1f} ms (median of 5), "
          f"{len(found)} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=f"pairs to score (default {CORPUS.name})")
    parser.add_argument("--embedders", nargs="+", default=["hashing", "local", "openai"],
                        choices=["hashing", "local", "openai"])
    parser.add_argument("--openai-model", default="text-embedding-3-small",
                        help="the model for `openai` (with OPENAI_API_KEY, and OPENAI_BASE_URL for another server)")
    parser.add_argument("--misses", action="store_true", help="list every error at the chosen thresholds")
    parser.add_argument("--heldout", action="store_true",
                        help=f"score {HELDOUT.name} at the thresholds memory.recall.duplicates keeps")
    args = parser.parse_args()
    pairs = load_pairs(HELDOUT if args.heldout else args.corpus)
    labels = [label for _, _, label in pairs]
    print(f"{len(pairs)} pairs, {sum(labels)} duplicates" + (
        "" if args.heldout else f"; threshold: best recall at precision >= {MIN_PRECISION}"))
    found = verdicts(pairs, None)
    print(line("the slot test alone", predict(found, None), labels))
    if args.misses:
        print_misses(pairs, found, None)
    if not args.heldout:
        timing(pairs)
    for name in args.embedders:
        if args.heldout:
            check(name, pairs, args.openai_model)
        else:
            report(name, pairs, args.openai_model, args.misses)


if __name__ == "__main__":
    main()
