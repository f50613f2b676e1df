"""Near-duplicate facts (memory/recall/duplicates.py): the slot test, the vector test per embedder, what is left out,
and the summary for /stats. Precision and recall on labelled pairs are bench/duplicates.py's."""

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memory.facts import STATE_DAYS, Fact
from memory.recall.duplicates import (
    DUPLICATE_SIMILARITY,
    DuplicatePair,
    compared_facts,
    duplicate_summary,
    duplicate_threshold,
    near_duplicates,
)
from memory.recall.embeddings import HashingEmbedder, local_embedder

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
E5 = "multilingual-e5-small-q4"


def fact(key, value, category="interests", id=None, ended=None, days_ago=1):
    stamp = NOW - timedelta(days=days_ago)
    return Fact(category, key, value, id=id, ended=ended, created_at=stamp, updated_at=stamp,
                ended_at=stamp if ended else None)


def keys(pairs):
    return [(pair.first.key, pair.second.key) for pair in pairs]


def same(first, second, vectors=None, threshold=None):
    """Return whether near_duplicates pairs the two facts."""
    return bool(near_duplicates([first, second], NOW, vectors, threshold))


def unit(*values):
    return np.array(values, dtype=np.float32)


# --- the slot test: wording ---------------------------------------------------


def test_the_rules_key_and_the_llms_key_for_one_pet_are_a_pair():
    pairs = near_duplicates([fact("pet:murka", "кошка Мурка", "pets"), fact("pet:мурка", "Мурка", "pets")], NOW)
    assert keys(pairs) == [("pet:murka", "pet:мурка")]
    assert pairs[0].reason == "slot" and pairs[0].similarity is None


def test_a_discriminator_in_two_alphabets_is_one_fact_whatever_the_values_say():
    assert same(fact("family:sister_katya", "сестра", "family"), fact("family:sister_катя", "старшая", "family"))
    assert same(fact("pet:rex", "dog", "pets"), fact("pet:рекс", "собака", "pets"))  # x read as ks


def test_a_value_whose_words_are_all_in_the_other_is_a_pair():
    assert same(fact("likes:coffee", "кофе", "preferences"), fact("likes:кофе", "кофе по утрам", "preferences"))
    assert same(fact("likes:harry_potter", "Гарри Поттер"), fact("likes:гарри_поттер", "книги про Гарри Поттера"))
    assert same(fact("dislikes:spicy", "острое"), fact("dislikes:spicy_food", "не любит острую еду"))


def test_a_name_matches_across_alphabets_though_the_stems_differ_at_the_end():
    assert same(fact("pet:barsik", "кот Барсик", "pets"), fact("pet:cat", "Barsik", "pets"))
    assert same(fact("employer", "Яндекс", "career"), fact("employer:ya", "Yandex", "career"))


def test_short_stems_do_not_match_by_their_start_and_one_alphabet_never_by_start():
    # "кофе" and "кофейни" share a start but are different words in one alphabet
    assert not same(fact("likes:coffee", "кофе"), fact("likes:coffee_shops", "кофейни"))
    # "ол" (Оля) is too short to stand for "olga"
    assert not same(fact("family:wife", "жена Оля", "family"), fact("family:wife_x", "жена Olga", "family"))


def test_relatives_and_animals_match_by_what_they_are_in_either_language():
    assert same(fact("family:mum", "mum", "family"), fact("family:mother", "мама, врач", "family"))
    assert same(fact("family:sister", "сестра", "family"), fact("family:sister_katya", "сестра Катя", "family"))
    # the key says it is about a son: "Tom, 7" covers "son Tom"
    assert same(fact("family:son", "son Tom", "family"), fact("family:son_tom", "Tom, 7 years old", "family"))


def test_a_value_with_no_words_falls_back_to_the_discriminator():
    assert same(fact("pet:murka", "🐈", "pets"), fact("pet:kitty", "Мурка", "pets"))
    assert not same(fact("pet:murka", "🐈", "pets"), fact("pet:kitty", "Барсик", "pets"))


def test_two_different_values_of_one_slot_are_no_pair():
    assert not same(fact("likes:tea", "чай", "preferences"), fact("likes:coffee", "кофе", "preferences"))
    assert not same(fact("likes:green_tea", "зелёный чай"), fact("likes:black_tea", "чёрный чай"))
    assert not same(fact("plan:exam_chemistry", "экзамен по химии", "plans"),
                    fact("plan:exam_physics", "экзамен по физике", "plans"))


def test_facts_of_two_slots_are_never_a_pair_by_their_words():
    assert not same(fact("likes:tea", "чай"), fact("hobby:tea", "чай"))


# --- the slot test: single- and multi-valued slots ------------------------------------


def test_a_single_valued_slot_held_twice_with_one_value_reworded_is_a_pair():
    assert same(fact("city", "Москва", "location"), fact("city:moscow", "г. Москва", "location"))
    assert same(fact("job_title", "designer", "career"), fact("job_title:ux", "UX designer", "career"))


def test_a_single_valued_slot_held_twice_with_two_values_is_a_contradiction_not_a_pair():
    assert not same(fact("city", "Berlin", "location"), fact("city:london", "London", "location"))
    assert not same(fact("employer", "Сбер", "career"), fact("employer:vtb", "ВТБ", "career"))


def test_two_pets_or_two_relatives_of_one_kind_are_two():
    assert not same(fact("pet:murka", "кошка Мурка", "pets"), fact("pet:barsik", "кот Барсик", "pets"))
    assert not same(fact("pet:murka", "кошка Мурка", "pets"), fact("pet:murzik", "кот Мурзик", "pets"))
    assert not same(fact("family:sister_katya", "сестра Катя", "family"),
                    fact("family:sister_olya", "сестра Оля", "family"))
    assert not same(fact("family:daughter_lily", "daughter Lily, 6", "family"),
                    fact("family:daughter_rose", "daughter Rose, 9", "family"))


# --- never a pair, whatever the vectors say --------------------------------------


ONE = {1: unit(1, 0), 2: unit(1, 0)}  # identical vectors: cosine 1.0


@pytest.mark.parametrize("first, second", [
    (fact("city", "Казань", "location", id=1), fact("hometown", "Казань", "location", id=2)),
    (fact("family:sister", "сестра", "family", id=1), fact("family:brother", "брат", "family", id=2)),
    (fact("family:son", "сын", "family", id=1), fact("family:son_in_law", "зять", "family", id=2)),
    (fact("family:mother", "мама", "family", id=1), fact("family:mother_in_law", "mother-in-law Anna", "family",
                                                        id=2)),
    (fact("family:wife", "жена Оля", "family", id=1), fact("family:ex_wife", "бывшая жена Оля", "family", id=2)),
    (fact("likes:cats", "кошки", id=1), fact("likes:dogs", "собаки", id=2)),
    (fact("family:brother_alexey", "брат Лёша", "family", id=1), fact("friend:alexey", "друг Лёша", "family",
                                                                     id=2)),
    (fact("job_title", "врач", "career", id=1), fact("family:mother", "мама — врач", "family", id=2)),
    (fact("likes:dogs", "собаки", id=1), fact("pet:sharik", "пёс Шарик", "pets", id=2)),
    (fact("likes:coffee", "кофе", id=1), fact("dislikes:coffee", "кофе", id=2)),
])
def test_pairs_that_are_never_duplicates(first, second):
    assert not same(first, second, ONE, threshold=0.5)


# --- the vector test ------------------------------------------------------------


def test_a_cosine_at_or_above_the_threshold_makes_a_pair_across_slots():
    first, second = fact("job_title", "программист", "career", id=1), fact("profession:dev", "developer", "career",
                                                                            id=2)
    vectors = {1: unit(1, 0, 0, 0), 2: unit(0.5, 0.5, 0.5, 0.5)}  # cosine exactly 0.5, even in float32
    pairs = near_duplicates([first, second], NOW, vectors, threshold=0.5)
    assert keys(pairs) == [("job_title", "profession:dev")]
    assert pairs[0].reason == "vector" and pairs[0].similarity == 0.5
    assert not near_duplicates([first, second], NOW, vectors, threshold=0.5001)


def test_the_vector_test_judges_a_single_valued_slot_held_twice():
    first, second = fact("city", "Москва", "location", id=1), fact("city:moscow", "Moscow", "location", id=2)
    assert not same(first, second)
    assert same(first, second, ONE, threshold=0.96)


def test_the_vector_test_never_judges_within_a_multi_valued_slot():
    first, second = fact("likes:tea", "чай", id=1), fact("likes:coffee", "кофе", id=2)
    assert not same(first, second, ONE, threshold=0.5)


def test_without_a_threshold_or_vectors_only_the_slot_test_counts():
    first, second = fact("job_title", "программист", "career", id=1), fact("profession:dev", "developer", "career",
                                                                            id=2)
    assert not same(first, second, ONE, threshold=None)
    assert not same(first, second, None, threshold=0.5)


def test_a_fact_without_a_vector_is_compared_by_its_slot_only():
    facts = [fact("job_title", "программист", "career", id=1), fact("profession:dev", "developer", "career", id=2),
             fact("pet:murka", "кошка Мурка", "pets", id=3), fact("pet:мурка", "Мурка", "pets", id=4),
             fact("job:coder", "coder", "career", id=None)]  # no id, so no vector either
    vectors = {1: unit(1, 0), 3: unit(1, 0)}  # 2 and 4 have none
    assert keys(near_duplicates(facts, NOW, vectors, threshold=0.5)) == [("pet:murka", "pet:мурка")]
    vectors[2] = unit(1, 0)
    assert keys(near_duplicates(facts, NOW, vectors, threshold=0.5)) == [("job_title", "profession:dev"),
                                                                         ("pet:murka", "pet:мурка")]


def test_a_slot_pair_carries_its_cosine_where_both_facts_have_a_vector():
    facts = [fact("pet:murka", "кошка Мурка", "pets", id=1), fact("pet:мурка", "Мурка", "pets", id=2)]
    [pair] = near_duplicates(facts, NOW, {1: unit(1, 0), 2: unit(0, 1)}, threshold=0.96)
    assert pair.reason == "slot" and pair.similarity == pytest.approx(0.0)


def test_vectors_of_two_dimensions_are_never_compared_with_each_other():
    facts = [fact("job_title", "a", "career", id=1), fact("profession:x", "b", "career", id=2),
             fact("job:y", "c", "career", id=3)]
    vectors = {1: unit(1, 0), 2: unit(1, 0, 0), 3: unit(1, 0, 0)}
    assert keys(near_duplicates(facts, NOW, vectors, threshold=0.9)) == [("profession:x", "job:y")]


def test_a_zero_vector_scores_zero_instead_of_failing():
    facts = [fact("job_title", "a", "career", id=1), fact("profession:x", "b", "career", id=2)]
    assert not near_duplicates(facts, NOW, {1: unit(0, 0), 2: unit(1, 0)}, threshold=0.0 + 1e-6)
    [pair] = near_duplicates(facts, NOW, {1: unit(0, 0), 2: unit(1, 0)}, threshold=0.0)
    assert pair.similarity == 0.0


# --- thresholds per embedder ----------------------------------------------------


def test_e5_has_its_measured_threshold_under_the_name_its_vectors_are_stored_with():
    assert local_embedder().name == E5
    assert duplicate_threshold(E5) == DUPLICATE_SIMILARITY[E5] == 0.96


def test_hashing_remote_and_unknown_embedders_have_the_vector_test_off():
    assert duplicate_threshold(HashingEmbedder().name) is None
    assert duplicate_threshold(HashingEmbedder(256).name) is None
    assert duplicate_threshold("text-embedding-3-small") is None
    assert duplicate_threshold("nomic-embed-text") is None
    assert duplicate_threshold("") is None


def test_every_threshold_is_a_cosine():
    assert all(-1.0 <= threshold <= 1.0 for threshold in DUPLICATE_SIMILARITY.values())


# --- what is compared --------------------------------------------------------------


def test_no_facts_and_one_fact_give_no_pairs():
    assert near_duplicates([], NOW) == []
    assert near_duplicates([fact("city", "Москва", "location", id=1)], NOW, {1: unit(1, 0)}, 0.5) == []


def test_identical_values_in_one_slot_are_a_pair():
    assert same(fact("likes:tea", "чай", "preferences"), fact("likes:чай", "чай", "preferences"))


@pytest.mark.parametrize("value", ["  чай ", "Чай", "ЧАЙ!", "чай.", "«чай»"])
def test_case_punctuation_and_whitespace_do_not_tell_two_values_apart(value):
    assert same(fact("likes:tea", "чай"), fact("likes:чай_x", value))


def test_yo_and_ye_are_one_letter():
    assert same(fact("hometown:a", "Орёл", "location"), fact("hometown:b", "Орел", "location"))


def test_a_composed_and_a_decomposed_letter_are_one_value():
    assert same(fact("likes:x", "чай"), fact("likes:y", "чаи\u0306"))  # и + combining breve
    assert same(fact("likes:x", "café"), fact("likes:y", "cafe\u0301"))
    assert same(fact("likes:x", "coffee"), fact("likes:y", "ｃｏｆｆｅｅ"))  # fullwidth


def test_style_wishes_are_left_out():
    wishes = [fact("style:length", "коротко", "style", id=1), fact("style:tone", "коротко", "style", id=2)]
    assert near_duplicates(wishes, NOW, ONE, threshold=0.5) == []
    assert compared_facts(wishes, NOW) == ([], [])


def test_an_ended_fact_is_never_a_pair_with_a_current_one():
    old = fact("city:moscow", "Москва", "location", id=1, ended="ended")
    new = fact("city", "Москва", "location", id=2)
    assert near_duplicates([old, new], NOW, ONE, threshold=0.5) == []


def test_two_ended_facts_that_say_the_same_are_a_pair():
    facts = [fact("pet:barsik", "кот Барсик", "pets", ended="died"), fact("pet:барсик", "Барсик", "pets", ended="died"),
             fact("pet:барсик_2", "Барсик", "pets")]
    assert keys(near_duplicates(facts, NOW)) == [("pet:barsik", "pet:барсик")]


def test_a_state_past_its_days_is_left_out():
    new = fact("state:устала", "очень устала", "state")
    stale = fact("state:tired", "устала", "state", days_ago=STATE_DAYS + 1)
    assert near_duplicates([stale, new], NOW) == []
    fresh = fact("state:tired", "устала", "state", days_ago=STATE_DAYS - 1)
    assert keys(near_duplicates([fresh, new], NOW)) == [("state:tired", "state:устала")]


def test_pairs_come_in_the_order_of_the_facts():
    facts = [fact("likes:tea", "чай"), fact("pet:murka", "кошка Мурка", "pets"), fact("likes:чай", "чай"),
             fact("pet:мурка", "Мурка", "pets")]
    assert keys(near_duplicates(facts, NOW)) == [("likes:tea", "likes:чай"), ("pet:murka", "pet:мурка")]


def test_three_sayings_of_one_fact_are_three_pairs():
    facts = [fact("likes:tea", "чай"), fact("likes:чай", "Чай"), fact("likes:chai", "чай!")]
    assert len(near_duplicates(facts, NOW)) == 3


# --- the summary -----------------------------------------------------------------


def test_the_summary_counts_pairs_and_the_share_of_facts_in_them():
    facts = [fact("likes:tea", "чай"), fact("likes:чай", "Чай"), fact("likes:chai", "чай!"),
             fact("pet:murka", "кошка Мурка", "pets"), fact("pet:мурка", "Мурка", "pets"),
             fact("city", "Казань", "location"), fact("style:tone", "коротко", "style")]
    summary = duplicate_summary(facts, NOW, near_duplicates(facts, NOW))
    assert (summary.pairs, summary.involved, summary.compared) == (4, 5, 6)  # the wish is not compared
    assert summary.share == pytest.approx(5 / 6)


def test_the_summary_of_nothing_is_zero():
    summary = duplicate_summary([], NOW, [])
    assert (summary.pairs, summary.involved, summary.compared, summary.share) == (0, 0, 0, 0.0)


def test_the_summary_counts_a_fact_in_two_pairs_once():
    a, b, c = fact("likes:a", "x"), fact("likes:b", "x"), fact("likes:c", "y")
    pairs = [DuplicatePair(a, b, "slot"), DuplicatePair(b, a, "vector", 0.99)]
    summary = duplicate_summary([a, b, c], NOW, pairs)
    assert (summary.pairs, summary.involved, summary.compared) == (2, 2, 3)


# --- the labelled pairs keep their figures -------------------------------------


@pytest.mark.parametrize("name, slot_recall, e5_recall", [
    ("duplicates_corpus.json", 0.40, 0.48),  # measured 0.430 and 0.510 (bench/README.md)
    ("duplicates_heldout.json", 0.48, 0.54),  # measured 0.514 and 0.571 on its one run
])
def test_the_labelled_pairs_keep_their_figures(name, slot_recall, e5_recall):
    """bench/duplicates.py's sets, scored as it scores them: the slot test alone, then with e5 at its threshold."""
    from bench.duplicates import CORPUS, embed, load_pairs, predict, scores, verdicts

    pairs = load_pairs(CORPUS.with_name(name))
    labels = [label for _, _, label in pairs]
    precision, recall, *_ = scores(predict(verdicts(pairs, None), None), labels)
    assert precision >= 0.90 and recall >= slot_recall
    model, vectors = embed("local", pairs, "")
    precision, recall, *_ = scores(predict(verdicts(pairs, vectors), duplicate_threshold(model)), labels)
    assert precision >= 0.90 and recall >= e5_recall
