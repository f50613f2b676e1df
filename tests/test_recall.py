from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memory.facts import Fact
from memory.recall import (
    bm25_scores,
    cosine_scores,
    decode,
    encode,
    fuse,
    hashing_embedding,
    select_facts,
    trigrams,
)

NOW = datetime(2026, 11, 29, tzinfo=timezone.utc)


def fact(id, key="likes:x", importance=5, category="interests", days_ago=1, value="x"):
    stamp = NOW - timedelta(days=days_ago)
    return Fact(category, key, value, importance=importance, id=id, created_at=stamp, updated_at=stamp)


def ids(facts):
    return [f.id for f in facts]


# --- encode / decode ---------------------------------------------------------


def test_encode_decode_round_trip():
    vector = np.array([0.5, -1.25, 3.0], dtype=np.float64)
    blob = encode(vector)
    assert len(blob) == 12
    assert blob == np.array([0.5, -1.25, 3.0], dtype="<f4").tobytes()
    back = decode(blob, 3)
    assert back.dtype == np.float32
    assert np.array_equal(back, vector.astype(np.float32))


def test_decode_rejects_a_wrong_size():
    with pytest.raises(ValueError):
        decode(encode(np.zeros(4)), 5)
    with pytest.raises(ValueError):
        decode(b"\x00\x00\x00", 1)


# --- hashing embedding -------------------------------------------------------


def test_trigrams_are_padded_lowercased_and_fold_yo():
    assert trigrams("Ёж") == ["#еж", "еж#"]
    assert trigrams("a, b") == ["#a#", "#b#"]


def test_hashing_embedding_is_deterministic_and_normalised():
    first = hashing_embedding("I love my dog Rex", dim=128)
    assert first.dtype == np.float32 and first.shape == (128,)
    assert np.array_equal(first, hashing_embedding("I love my dog Rex", dim=128))
    assert np.linalg.norm(first) == pytest.approx(1.0, abs=1e-6)


def test_hashing_embedding_of_empty_text_is_zero():
    assert not hashing_embedding("  ...  ").any()


@pytest.mark.parametrize(
    ("text", "similar", "unrelated"),
    [
        ("I have a dog named Rex", "my dog Rex", "she works as an accountant in Berlin"),
        ("У меня есть кошка Мурка", "моя кошка Мурка", "работаю бухгалтером в Берлине"),
        ("Живу в посёлке", "живу в поселке", "люблю кофе по утрам"),
    ],
)
def test_similar_strings_are_closer_than_unrelated(text, similar, unrelated):
    base = hashing_embedding(text)
    assert base @ hashing_embedding(similar) > base @ hashing_embedding(unrelated)


# --- cosine scores -----------------------------------------------------------


def test_cosine_scores_on_known_vectors():
    matrix = np.array([[1, 0], [0, 2], [-3, 0], [1, 1]], dtype=np.float32)
    scores = cosine_scores(np.array([2, 0], dtype=np.float32), matrix)
    assert scores == pytest.approx([1.0, 0.0, -1.0, 2**-0.5], abs=1e-6)


def test_cosine_scores_give_zero_for_zero_vectors():
    matrix = np.array([[0, 0], [1, 0]], dtype=np.float32)
    assert cosine_scores(np.array([1.0, 0.0]), matrix) == pytest.approx([0.0, 1.0])
    assert cosine_scores(np.zeros(2), matrix) == pytest.approx([0.0, 0.0])


def test_cosine_scores_of_an_empty_matrix_are_empty():
    assert cosine_scores(np.ones(3), np.zeros((0, 3))).shape == (0,)
    assert cosine_scores(np.ones(3), np.array([])).shape == (0,)


# --- select_facts ------------------------------------------------------------


def test_threshold_is_respected():
    facts = [fact(1), fact(2), fact(3)]
    chosen = select_facts(facts, {1: 0.9, 2: 0.29, 3: 0.3}, NOW, limit=2, top_k=5)
    assert ids(chosen) == [1, 3]


def test_top_k_is_respected():
    facts = [fact(i, importance=1) for i in range(1, 6)]
    scores = {1: 0.5, 2: 0.9, 3: 0.7, 4: 0.8, 5: 0.6}
    assert ids(select_facts(facts, scores, NOW, limit=2, top_k=2)) == [2, 4]
    assert ids(select_facts(facts, scores, NOW, limit=5, top_k=0)) == [1, 2, 3, 4, 5]


def test_core_facts_are_always_in_after_the_recalled():
    facts = [fact(1, importance=3), fact(2, importance=9), fact(3, importance=8), fact(4, importance=7)]
    chosen = select_facts(facts, {1: 0.8}, NOW, limit=3)
    assert ids(chosen) == [1, 2, 3]


def test_limit_is_never_exceeded():
    facts = [fact(i, importance=9) for i in range(1, 11)]
    scores = {i: 0.9 for i in range(1, 11)}
    assert len(select_facts(facts, scores, NOW, limit=4, top_k=8)) == 4
    assert select_facts(facts, scores, NOW, limit=0) == []


def test_expired_states_are_dropped():
    tired = fact(1, key="mood", category="state", days_ago=10, importance=9)
    fresh = fact(2, key="mood_now", category="state", days_ago=1)
    chosen = select_facts([tired, fresh], {1: 0.99, 2: 0.5}, NOW, limit=5)
    assert ids(chosen) == [2]


def test_name_is_excluded():
    name = fact(1, key="name", category="personal", importance=10)
    assert ids(select_facts([name, fact(2)], {1: 0.99}, NOW, limit=5)) == [2]


def test_fill_goes_by_importance_then_recency():
    facts = [fact(1, importance=5, days_ago=5), fact(2, importance=6, days_ago=9), fact(3, importance=5, days_ago=1)]
    assert ids(select_facts(facts, {}, NOW, limit=3)) == [2, 3, 1]


def test_facts_without_a_score_are_not_recalled_and_never_counted_twice():
    unsaved = fact(None, importance=2)
    facts = [fact(1, importance=4), unsaved, fact(2, importance=3)]
    chosen = select_facts(facts, {2: 0.95, 99: 1.0}, NOW, limit=5)
    assert ids(chosen) == [2, 1, None]
    assert len(chosen) == len({id(f) for f in chosen})


# --- BM25 and fusion ---------------------------------------------------------


def test_bm25_prefers_documents_with_the_rarer_query_words():
    documents = ["my dog Rex likes the park", "the weather is nice", "the park is big", ""]
    scores = bm25_scores("Where does Rex walk in the park?", documents)
    assert scores.shape == (4,) and scores.dtype == np.float32
    assert scores[0] > scores[2] > scores[1] >= 0 and scores[3] == 0


def test_bm25_of_nothing():
    assert bm25_scores("dog", []).shape == (0,)
    assert not bm25_scores("ёжик", ["кошка", "собака"]).any()
    assert bm25_scores("ёжик", ["ежик в тумане", "кошка"])[0] > 0


def test_fuse_adds_a_bounded_lexical_bonus():
    dense = np.array([0.5, 0.4, 0.1], dtype=np.float32)
    assert fuse(dense, np.array([0.0, 4.0, 2.0]), 0.2) == pytest.approx([0.5, 0.6, 0.2])
    assert fuse(dense, np.zeros(3), 0.2) == pytest.approx(dense)
    assert fuse(np.zeros(0), np.zeros(0), 0.2).shape == (0,)


async def test_the_local_multilingual_model_ranks_the_related_fact_first():
    from memory.embeddings import local_embedder
    from memory.recaller import fact_text

    embedder = local_embedder()
    facts = [Fact("location", "city", "Казань"), Fact("pets", "pet:murka", "кошка Мурка"),
             Fact("preferences", "likes:jazz", "jazz")]
    vectors = await embedder.embed([fact_text(fact) for fact in facts])
    assert vectors.shape == (3, 384)
    for question, expected in (("как там моя кошка?", 1), ("what music should I listen to tonight?", 2)):
        query = await embedder.embed_query([question])
        assert int(np.argmax(cosine_scores(query[0], vectors))) == expected


def test_vector_matrix_matches_decoding_one_by_one():
    from memory.recaller import vector_matrix

    rng = np.random.default_rng(1)
    vectors = [rng.standard_normal(8).astype(np.float32) for _ in range(5)]
    blobs = [(encode(v), 8) for v in vectors]
    assert np.array_equal(vector_matrix(blobs), np.stack(vectors))
    mixed = blobs[:2] + [(encode(np.ones(8, dtype=np.float32)), 8)]
    assert vector_matrix(mixed).shape == (3, 8)
