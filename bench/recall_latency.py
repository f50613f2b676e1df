"""The latency part of bench/recall.py: one recall without the query embedding, timed step by step at
100 / 1,000 / 10,000 facts.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import numpy as np

from bench.recall_data import conversation
from memory.recall.ranking import bm25_scores, cosine_scores, decode, encode, fuse, select_facts, session_pull

LATENCY_SIZES = (100, 1_000, 10_000)
LATENCY_DIM = 384


def median_ms(call, runs: int) -> float:
    """Return the median wall time of `call()` over `runs` runs, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def latency(samples: list[dict], session_weight: float) -> list[dict]:
    """Time one recall without the query embedding, as FactRecaller.choose does it, at each of LATENCY_SIZES.

    Facts carry real LoCoMo observation texts (cycled), their vectors are random 384-dim float32 BLOBs
    (`encode`), the query is a LoCoMo question. select_facts runs with min_similarity -1, so every fact is
    scored and sorted (the worst case); the session pull uses `session_weight`.
    """
    from memory.facts import Fact

    texts = [text for sample in samples for text in conversation(sample)[0]] or ["They like tea."]
    questions = [q for sample in samples for q, _ in conversation(sample)[3]] or ["What do they drink?"]
    rng = np.random.default_rng(0)
    now = datetime.now(timezone.utc)
    rows = []
    for size in LATENCY_SIZES:
        runs = 50 if size <= 1_000 else 20
        facts = [Fact("other", f"note:{i}", texts[i % len(texts)], id=i + 1, updated_at=now - timedelta(minutes=i))
                 for i in range(size)]
        stored = [(fact.id, encode(rng.standard_normal(LATENCY_DIM).astype(np.float32)), LATENCY_DIM) for fact in facts]
        query = rng.standard_normal(LATENCY_DIM).astype(np.float32)
        question = questions[size % len(questions)]
        rows.append(latency_row(facts, stored, query, question, now, runs, session_weight))
    return rows


def latency_row(facts: list, stored: list[tuple[int, bytes, int]], query: np.ndarray, question: str, now: datetime,
                runs: int, session_weight: float) -> dict:
    """Return the median times of each step of one recall over `facts` and their `stored` vectors."""
    from memory.recall.recaller import fact_text, learned_at

    matrix = np.stack([decode(blob, dim) for _, blob, dim in stored])
    dense = cosine_scores(query, matrix)
    scores = dict(zip((fact_id for fact_id, _, _ in stored), dense.tolist(), strict=True))

    def lexical() -> np.ndarray:
        by_id = {fact.id: fact for fact in facts}
        documents = [fact_text(by_id[fact_id]) if fact_id in by_id else "" for fact_id, _, _ in stored]
        return fuse(dense, bm25_scores(question, documents), 0.05)

    def pull() -> np.ndarray:
        by_id = {fact.id: fact for fact in facts}
        return session_pull(dense, [learned_at(by_id.get(fact_id)) for fact_id, _, _ in stored], session_weight)

    def select() -> list:
        chosen = dict(zip((fact_id for fact_id, _, _ in stored), dense.tolist(), strict=True))
        return select_facts(facts, chosen, now, limit=20, top_k=5, min_similarity=-1.0)

    row = {
        "facts": len(facts), "runs": runs,
        "decode": median_ms(lambda: np.stack([decode(blob, dim) for _, blob, dim in stored]), runs),
        "decode_join": median_ms(lambda: np.frombuffer(b"".join(blob for _, blob, _ in stored), dtype="<f4")
                                 .reshape(len(stored), LATENCY_DIM).astype(np.float32), runs),
        "cosine": median_ms(lambda: cosine_scores(query, matrix), runs),
        "bm25": median_ms(lexical, runs),
        "session": median_ms(pull, runs),
        "select": median_ms(select, runs),
    }
    assert scores and len(select()) == min(20, len(facts))
    row["total"] = row["decode"] + row["cosine"] + row["select"]
    row["total_join"] = row["decode_join"] + row["cosine"] + row["select"]
    return row


def report_latency(rows: list[dict]) -> None:
    """Print the latency table."""
    print("\nLatency of one recall, query embedding excluded (median ms; random 384-dim float32 BLOBs, LoCoMo")
    print("observation texts as facts; decode = np.stack of memory.recall.ranking.decode per BLOB as the bot does,")
    print("join = one np.frombuffer over b''.join(blobs); select = dict of scores + select_facts(limit 20, top_k 5);")
    print("total = decode + cosine + select, without BM25; bm25 = the fusion (fact_text, bm25_scores, fuse 0.05);")
    print("session = learned_at of each fact + session_pull; + both = total/join (the bot's vector_matrix) + bm25")
    print("+ session, the whole recall as FactRecaller.choose runs it):")
    print(f"{'facts':>7} {'runs':>5} {'decode':>8} {'join':>8} {'cosine':>8} {'select':>8} {'total':>8} "
          f"{'total/join':>10} {'bm25':>8} {'session':>8} {'+ both':>8}")
    for r in rows:
        print(f"{r['facts']:>7,} {r['runs']:>5} {r['decode']:8.2f} {r['decode_join']:8.2f} {r['cosine']:8.2f} "
              f"{r['select']:8.2f} {r['total']:8.2f} {r['total_join']:10.2f} {r['bm25']:8.2f} {r['session']:8.2f} "
              f"{r['total_join'] + r['bm25'] + r['session']:8.2f}")
    target = next((r for r in rows if r["facts"] == 1_000), None)
    if target:
        full = target["total_join"] + target["bm25"] + target["session"]
        verdict = "meets" if full <= 5 else "misses"
        print(f"At 1,000 facts: {target['total_join']:.2f} ms without BM25, {full:.2f} ms with BM25 and the session"
              f" pull ({verdict} the 5 ms target).")
