"""Pure helpers for semantic recall: vector storage, a hashing embedder, cosine scores and fact selection."""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np

from memory.facts import Fact, by_importance, prompt_candidates
from memory.text.word_forms import stem

CORE_IMPORTANCE = 8  # facts at or above this importance are always shown
_WORD = re.compile(r"[^\W_]+")
SESSION_GAP_S = 3 * 3600  # facts learned less than this apart belong to one conversation (session_pull)


def encode(vector: np.ndarray) -> bytes:
    """Return the vector as a float32 little-endian BLOB."""
    return np.asarray(vector, dtype="<f4").ravel().tobytes()


def decode(blob: bytes, dim: int) -> np.ndarray:
    """Return the float32 vector stored in `blob`; ValueError if it does not hold exactly `dim` values."""
    if len(blob) != 4 * dim:
        raise ValueError(f"expected {4 * dim} bytes for dim {dim}, got {len(blob)}")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def trigrams(text: str) -> list[str]:
    """Return the character trigrams of each word of `text`, lowercased, ё as е, padded with '#' at both ends."""
    words = _WORD.findall(text.lower().replace("ё", "е"))
    grams: list[str] = []
    for word in words:
        padded = f"#{word}#"
        grams.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


def hashing_embedding(text: str, dim: int = 256) -> np.ndarray:
    """Return an L2-normalised float32 vector of hashed character trigrams (all zeros for text without words)."""
    vector = np.zeros(dim, dtype=np.float32)
    for gram in trigrams(text):
        vector[zlib.crc32(gram.encode("utf-8")) % dim] += 1.0
    norm = np.linalg.norm(vector)
    return vector / norm if norm > 0 else vector


def cosine_scores(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Return the cosine similarity of `query` to each row of `matrix`; zero rows (or a zero query) score 0."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    matrix = matrix.reshape(len(matrix), -1)
    rows = _unit_rows(matrix)
    unit_query = _unit_rows(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
    return rows @ unit_query


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Return `matrix` with every non-zero row scaled to length 1 (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def select_facts(
    facts: Sequence[Fact],
    scores: Mapping[int, float],
    now: datetime,
    *,
    limit: int,
    top_k: int = 5,
    min_similarity: float = 0.3,
) -> list[Fact]:
    """Return at most `limit` current facts (no "name"): recalled by score, then core facts, then by importance
    and recency."""
    candidates = prompt_candidates(facts, now)
    recalled = recalled_facts(candidates, scores, top_k=top_k, min_similarity=min_similarity)
    fill = by_importance(candidates)
    core = [fact for fact in fill if fact.importance >= CORE_IMPORTANCE]
    chosen: list[Fact] = []
    for fact in [*recalled, *core, *fill]:
        if len(chosen) >= limit:
            break
        if not any(fact is other for other in chosen):
            chosen.append(fact)
    return chosen


def recalled_facts(
    facts: Sequence[Fact], scores: Mapping[int, float], *, top_k: int, min_similarity: float
) -> list[Fact]:
    """Return the `top_k` facts with a score of at least `min_similarity`, best score first."""
    scored = [(scores[fact.id], fact) for fact in facts
              if fact.id is not None and scores.get(fact.id, float("-inf")) >= min_similarity]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [fact for _, fact in scored[: max(top_k, 0)]]


def words(text: str) -> list[str]:
    """Return the lowercase words of `text`, ё as е."""
    return _WORD.findall(text.lower().replace("ё", "е"))


def terms(text: str) -> list[str]:
    """Return the Snowball stems of the words of `text` (what BM25 matches): "Ёжики PAINTED" -> ["ежик", "paint"]."""
    return [stem(word) for word in words(text)]


def bm25_scores(query: str, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """Return the Okapi BM25 score of each document for `query` over stemmed words (float32; zeros when none match).

    Fused with a dense score (see `fuse`) it raises LoCoMo recall (bench/recall.py, 5 dev conversations,
    760 questions, R@5 / R@10): e5 56.8/62.2 -> 59.4/64.7 (weight 0.05), hashing-1024 45.4/52.2 -> 51.2/57.7
    (weight 0.2); USE 49.6/57.0 -> 56.8/61.8 (weight 0.2, with the suffix list stems came from before issue 43).
    A recency term did not help (-0.7 to -21). BM25 alone: 48.3/53.3 unstemmed, 52.5/58.4 with that suffix list,
    53.3/58.6 with Snowball's stems.
    """
    docs = [_term_counts(document) for document in documents]
    scores = np.zeros(len(docs), dtype=np.float32)
    if not docs:
        return scores
    lengths = np.array([length for length, _ in docs], dtype=np.float32)
    average = max(float(lengths.mean()), 1.0)
    for term in set(terms(query)):
        counts = np.fromiter((counted.get(term, 0) for _, counted in docs), dtype=np.float32, count=len(docs))
        found = int((counts > 0).sum())
        if found:
            idf = np.log(1.0 + (len(docs) - found + 0.5) / (found + 0.5))
            scores += idf * counts * (k1 + 1) / (counts + k1 * (1 - b + b * lengths / average))
    return scores


@lru_cache(maxsize=16_384)
def _term_counts(text: str) -> tuple[int, dict[str, int]]:
    """Return a document's length in words and its term counts; cached, since a user's facts recur every turn."""
    found = terms(text)
    return len(found), dict(Counter(found))


def fuse(dense: np.ndarray, lexical: np.ndarray, weight: float) -> np.ndarray:
    """Return dense + weight * lexical / max(lexical): a lexical bonus of at most `weight` on the cosine scale.

    Keeping the cosine scale keeps `min_similarity` meaningful. Measured best weights: e5 0.05, USE 0.2,
    hashing 0.2 (gains in `bm25_scores`).
    """
    dense = np.asarray(dense, dtype=np.float32)
    lexical = np.asarray(lexical, dtype=np.float32)
    top = float(lexical.max()) if lexical.size else 0.0
    return dense + weight * lexical / top if top > 0 else dense.copy()


def session_pull(
    scores: np.ndarray, times: Sequence[float] | np.ndarray, weight: float, gap_s: float = SESSION_GAP_S
) -> np.ndarray:
    """Return (1 - weight) * score + weight * the best score among the facts learned in the same conversation.

    A conversation (session) is a run of facts whose times (seconds; NaN = unknown, a session of its own) lie
    less than `gap_s` apart. A fact the query hits pulls up the facts told around it, which LoCoMo questions
    often need too. Ranks within a session stay as they were; a session's best fact keeps its score.
    bench/recall.py (5 dev conversations, R@5 / R@10, weight 0.4, on top of the BM25 fusion): e5 +2.6 / +1.2,
    USE +2.0 / +2.1, hashing-1024 +1.7 / +1.2. Weight chosen on conversations 1-3 (0.3-0.5 do about as well);
    on the held-out 4-5, e5 + fusion goes 59.0/63.1 -> 60.4/64.6.
    """
    scores = np.asarray(scores, dtype=np.float32)
    times = np.asarray(times, dtype=np.float64).ravel()
    if len(times) != len(scores):
        raise ValueError(f"{len(scores)} scores but {len(times)} times")
    if weight <= 0 or scores.size == 0:
        return scores.copy()
    order = np.argsort(times, kind="stable")  # NaN sorts last
    starts = np.r_[True, ~(np.diff(times[order]) < gap_s)]  # a gap, or an unknown time, opens a session
    best = np.maximum.reduceat(scores[order], np.flatnonzero(starts))
    pulled = np.empty_like(scores)
    pulled[order] = best[np.cumsum(starts) - 1]
    return (1 - weight) * scores + weight * pulled
