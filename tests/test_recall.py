from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memory.facts import Fact
from memory.recall.ranking import (
    bm25_scores,
    cosine_scores,
    decode,
    encode,
    fuse,
    hashing_embedding,
    select_facts,
    session_pull,
    terms,
    trigrams,
)
from memory.text.word_forms import stem

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


@pytest.mark.parametrize("forms", [
    ("paint", "paints", "painted", "painting"),
    ("dance", "danced", "dancing", "dances"),
    ("hobby", "hobbies"),
    ("собака", "собаку", "собаки", "собакой"),
    ("играть", "играла", "играли"),
])
def test_stem_gives_one_stem_to_the_forms_of_a_word(forms):
    assert len({stem(form) for form in forms}) == 1


def test_stem_keeps_short_words_and_at_least_three_letters():  # Snowball's stems (memory/text/word_forms.py)
    assert [stem(word) for word in ("is", "was", "dog", "кот", "", "123")] == ["is", "was", "dog", "кот", "", "123"]
    assert all(len(stem(word)) >= 3 for word in ("eyes", "ties", "ages", "пела", "ноги") if len(word) >= 3)
    assert terms("Ёжики PAINTED, 2 dogs!") == ["ежик", "paint", "2", "dog"]


def test_bm25_matches_other_forms_of_the_query_words():
    scores = bm25_scores("When did she start painting?", ["She painted a sunrise", "She likes tea", ""])
    assert scores[0] > scores[1] > scores[2] == 0  # "painting" meets "painted"; "she" alone is in both
    assert bm25_scores("как там моя собака?", ["собаку зовут Рекс", "кошка Мурка"])[0] > 0


def test_fuse_adds_a_bounded_lexical_bonus():
    dense = np.array([0.5, 0.4, 0.1], dtype=np.float32)
    assert fuse(dense, np.array([0.0, 4.0, 2.0]), 0.2) == pytest.approx([0.5, 0.6, 0.2])
    assert fuse(dense, np.zeros(3), 0.2) == pytest.approx(dense)
    assert fuse(np.zeros(0), np.zeros(0), 0.2).shape == (0,)


async def test_the_local_multilingual_model_ranks_the_related_fact_first():
    from memory.recall.embeddings import local_embedder
    from memory.recall.recaller import fact_text

    embedder = local_embedder()
    facts = [Fact("location", "city", "Казань"), Fact("pets", "pet:murka", "кошка Мурка"),
             Fact("preferences", "likes:jazz", "jazz")]
    vectors = await embedder.embed([fact_text(fact) for fact in facts])
    assert vectors.shape == (3, 384)
    for question, expected in (("как там моя кошка?", 1), ("what music should I listen to tonight?", 2)):
        query = await embedder.embed_query([question])
        assert int(np.argmax(cosine_scores(query[0], vectors))) == expected


def test_vector_matrix_matches_decoding_one_by_one():
    from memory.recall.recaller import vector_matrix

    rng = np.random.default_rng(1)
    vectors = [rng.standard_normal(8).astype(np.float32) for _ in range(5)]
    blobs = [(encode(v), 8) for v in vectors]
    assert np.array_equal(vector_matrix(blobs), np.stack(vectors))
    mixed = blobs[:2] + [(encode(np.ones(8, dtype=np.float32)), 8)]
    assert vector_matrix(mixed).shape == (3, 8)


# --- session pull --------------------------------------------------------------

HOUR = 3600.0


def test_session_pull_lifts_the_facts_learned_with_the_best_one():
    scores = np.array([0.9, 0.3, 0.5, 0.4], dtype=np.float32)
    times = [0.0, 10 * 60, 5 * 24 * HOUR, 5 * 24 * HOUR + 60]  # facts 0, 1 together; 2, 3 days later
    pulled = session_pull(scores, times, 0.5)
    assert pulled.dtype == np.float32
    assert pulled == pytest.approx([0.9, 0.6, 0.5, 0.45])
    assert list(np.argsort(-pulled)) == [0, 1, 2, 3]  # fact 1 now outranks fact 2 of the other conversation
    assert list(np.argsort(-scores)) == [0, 2, 3, 1]


def test_session_pull_keeps_order_within_a_session_and_the_best_score():
    rng = np.random.default_rng(3)
    scores = rng.random(50).astype(np.float32)
    pulled = session_pull(scores, np.zeros(50), 0.4)  # one session
    assert list(np.argsort(-pulled, kind="stable")) == list(np.argsort(-scores, kind="stable"))
    assert pulled.max() == pytest.approx(scores.max())
    assert np.all(pulled >= scores - 1e-7)


def test_session_pull_splits_sessions_at_the_gap_whatever_the_order_of_the_times():
    scores = np.array([0.2, 0.8, 0.1], dtype=np.float32)
    # Unsorted times: fact 2 is 2 h after fact 1 (same session), fact 0 is 4 h before fact 1 (its own).
    pulled = session_pull(scores, [0.0, 4 * HOUR, 6 * HOUR], 0.5, gap_s=3 * HOUR)
    assert pulled == pytest.approx([0.2, 0.8, 0.45])
    assert session_pull(scores, [0.0, 4 * HOUR, 6 * HOUR], 0.5, gap_s=5 * HOUR) == pytest.approx([0.5, 0.8, 0.45])


def test_session_pull_on_nasty_inputs():
    assert session_pull(np.zeros(0), [], 0.4).shape == (0,)
    assert session_pull(np.array([0.7]), [123.0], 0.4) == pytest.approx([0.7])
    scores = np.array([0.1, 0.9, 0.5], dtype=np.float32)
    unchanged = session_pull(scores, [0.0, 0.0, 0.0], 0.0)
    assert unchanged == pytest.approx(scores) and unchanged is not scores
    # Unknown times (NaN) are sessions of their own: nothing pulls them and they pull nothing.
    assert session_pull(scores, [float("nan"), float("nan"), 0.0], 0.5) == pytest.approx(scores)
    # Ties: equal scores and equal times stay equal; weight 1 gives every fact its session's best score.
    assert session_pull(np.full(3, 0.5), [1.0, 1.0, 1.0], 0.4) == pytest.approx([0.5, 0.5, 0.5])
    assert session_pull(scores, [0.0, 1.0, 2.0], 1.0) == pytest.approx([0.9, 0.9, 0.9])
    # Negative scores (cosines of unrelated vectors) are pulled up too, never down.
    assert session_pull(np.array([-0.5, 0.1]), [0.0, 1.0], 0.5) == pytest.approx([-0.2, 0.1])
    with pytest.raises(ValueError):
        session_pull(scores, [0.0, 1.0], 0.4)


def test_learned_at_prefers_the_last_update_and_is_nan_when_unknown():
    from memory.recall.recaller import learned_at

    created, updated = NOW - timedelta(days=3), NOW - timedelta(days=1)
    assert learned_at(Fact("pets", "pet:rex", "dog", created_at=created, updated_at=updated)) == updated.timestamp()
    assert learned_at(Fact("pets", "pet:rex", "dog", created_at=created)) == created.timestamp()
    assert np.isnan(learned_at(Fact("pets", "pet:rex", "dog")))
    assert np.isnan(learned_at(None))


class _Embedder:
    """An embedder whose every query is the vector (1, 0)."""

    name = "stub"
    lexical_weight = 0.0
    remote = False

    def __init__(self, session_weight):
        self.session_weight = session_weight
        self.calls: list[list[str]] = []

    async def embed_query(self, texts):
        self.calls.append(list(texts))
        # The query is (1, 0); a fact "note: nK" gets (K, 1) before normalising.
        return np.array([[1.0, 0.0]] + [[float(t.split("n")[-1]), 1.0] for t in texts[1:]], dtype=np.float32)

    async def embed(self, texts):
        self.calls.append(list(texts))
        return np.array([[float(t.split("n")[-1]), 1.0] for t in texts], dtype=np.float32)


class _Store:
    """The store's vectors of one user: what is saved is read back by the next recall."""

    def __init__(self, rows, facts=()):
        self.rows = list(rows)
        self.facts = list(facts)
        self.saved: list[int] = []

    async def fact_vectors(self, user_id, model):
        return list(self.rows)

    async def save_embeddings(self, user_id, model, rows):
        self.saved += [fact_id for fact_id, _, _ in rows]
        self.rows += rows

    async def facts_to_embed(self, user_id, model):
        have = {fact_id for fact_id, _, _ in self.rows}
        return [fact for fact in self.facts if fact.id not in have]


def _recaller(rows, session_weight, facts=()):
    from memory.recall.recaller import FactRecaller, RecallSettings

    config = RecallSettings(memory_prompt_facts=2, recall_timeout_s=1.0, recall_top_k=2, recall_min_similarity=-1.0)
    return FactRecaller(_Store(rows, facts), _Embedder(session_weight), config)


def _told(id, days_ago, minutes=0):
    stamp = NOW - timedelta(days=days_ago) + timedelta(minutes=minutes)
    return Fact("other", f"note:{id}", f"n{id}", importance=1, id=id, created_at=stamp, updated_at=stamp)


async def test_recaller_brings_in_the_fact_told_with_the_best_match():
    facts = [_told(1, 10), _told(2, 10, minutes=5), _told(3, 2)]
    vectors = {1: [1.0, 0.0], 2: [0.0, 1.0], 3: [0.6, 0.8]}  # cosines to the query: 1.0, 0.0, 0.6
    rows = [(i, encode(np.array(v, dtype=np.float32)), 2) for i, v in vectors.items()]
    plain = await _recaller(rows, 0.0).choose(1, "q", facts + [_told(4, 1)], NOW)
    pulled = await _recaller(rows, 0.9).choose(1, "q", facts + [_told(4, 1)], NOW)
    assert ids(plain) == [1, 3] and ids(pulled) == [1, 2]


async def test_recaller_with_vectors_of_another_model_falls_back_to_importance():
    facts = [_told(1, 10), _told(2, 10), _told(3, 2)]
    rows = [(1, encode(np.ones(2, dtype=np.float32)), 2), (2, encode(np.ones(3, dtype=np.float32)), 3)]
    chosen = await _recaller(rows, 0.4).choose(1, "q", facts, NOW)
    assert len(chosen) == 2  # the 2-dim query cannot score a 3-dim vector: importance order, no error


async def test_a_remote_embedder_takes_the_facts_without_a_vector_along_with_the_query():
    facts = [_told(1, 10), _told(2, 10), _told(3, 10), _told(9, 10)]
    rows = [(1, encode(np.array([0.0, 1.0], dtype=np.float32)), 2)]  # only fact 1 has a vector (cosine 0)
    recaller = _recaller(rows, 0.0)
    recaller.embedder.remote = True
    chosen = await recaller.choose(1, "q", facts, NOW)
    assert recaller.embedder.calls == [["q", "note: n2", "note: n3", "note: n9"]]  # one call, not two
    assert recaller.facts.saved == [2, 3, 9]
    assert ids(chosen) == [9, 3]  # the facts embedded on the way are ranked (9 is nearest to the query)
    assert not recaller.embeds_eagerly


async def test_a_remote_embedder_takes_more_facts_without_a_vector_with_each_query_until_none_is_left():
    from memory.recall.recaller import RIDE_ALONG

    facts = [_told(id, 10) for id in range(1, RIDE_ALONG + 9)]  # 40 facts, none with a vector (a new model)
    recaller = _recaller([], 0.0)
    recaller.embedder.remote = True
    for _ in range(3):
        await recaller.choose(1, "q", facts, NOW)
    assert [len(call) - 1 for call in recaller.embedder.calls] == [RIDE_ALONG, 8, 0]  # then the query alone
    assert recaller.facts.saved == ids(facts)
    assert not recaller.lacks_vectors(1)  # a remote model's facts never wait for an embedding pass


async def test_an_in_process_embedder_embeds_only_the_query_at_recall_and_marks_facts_without_a_vector():
    facts = [_told(1, 10), _told(2, 10), _told(3, 10)]
    recaller = _recaller([], 0.0, facts)
    await recaller.choose(1, "q", facts, NOW)
    assert recaller.embedder.calls == [["q"]] and recaller.facts.saved == []
    assert recaller.embeds_eagerly
    # The turn's upkeep embeds them (as stored texts, not as a query), all in one call, and clears the mark.
    assert recaller.lacks_vectors(1) and not recaller.lacks_vectors(2)
    assert await recaller.embed_missing(1) == 3
    assert recaller.embedder.calls[1] == ["note: n1", "note: n2", "note: n3"] and recaller.facts.saved == [1, 2, 3]
    assert not recaller.lacks_vectors(1)
    await recaller.choose(1, "q", facts, NOW)
    assert recaller.embedder.calls[2] == ["q"] and not recaller.lacks_vectors(1)


async def test_an_in_process_recall_whose_query_fails_still_leaves_the_facts_without_a_vector_to_the_turns_upkeep():
    facts = [_told(1, 10), _told(2, 10), _told(3, 10)]
    recaller = _recaller([], 0.0, facts)

    async def overloaded(texts):
        raise TimeoutError

    recaller.embedder.embed_query = overloaded
    chosen = await recaller.choose(1, "q", facts, NOW)
    assert len(chosen) == 2 and recaller.lacks_vectors(1)  # importance order now, vectors after the turn


async def test_an_in_process_recall_with_every_vector_or_with_facts_that_all_fit_marks_nothing():
    facts = [_told(1, 10), _told(2, 10), _told(3, 10)]
    rows = [(fact.id, encode(np.array([1.0, 0.0], dtype=np.float32)), 2) for fact in facts]
    recaller = _recaller(rows, 0.0, facts)
    await recaller.choose(1, "q", facts, NOW)
    few = _recaller([], 0.0, facts[:2])
    await few.choose(1, "q", facts[:2], NOW)  # MEMORY_PROMPT_FACTS (2) hold them all: no recall, no vectors needed
    assert not recaller.lacks_vectors(1) and not few.lacks_vectors(1) and few.embedder.calls == []


@pytest.mark.parametrize("rows, expected", [
    ([[0.1, 0.2]], 2),  # fewer vectors than texts
    ([[0.1, float("nan")]], 1),
    ([[0.1, float("inf")]], 1),
    ([[0.1, 0.2], [0.3]], 2),  # ragged
    ([[]], 1),
    ([], 1),
])
def test_unusable_vectors_from_the_server_are_refused(rows, expected):
    from memory.recall.embeddings import checked_vectors

    with pytest.raises(ValueError):
        checked_vectors(rows, expected)


def test_usable_vectors_come_back_as_float32_rows():
    from memory.recall.embeddings import checked_vectors

    vectors = checked_vectors([[1, 2], [3, 4]], 2)
    assert vectors.dtype == np.float32 and vectors.shape == (2, 2)
