from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from memory.facts import (
    MAX_VALUE_LENGTH,
    Fact,
    choose_for_prompt,
    clean_fact,
    comparable,
    is_current,
    merge_action,
    normalize_facts,
    normalize_value,
    prompt_candidates,
    slug,
    style_wishes,
    with_list_merged,
)

NOW = datetime(2026, 11, 29, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("  Berlin. ", "Berlin"), ("кошка\n  Мурка", "кошка Мурка"), ('"quoted"', "quoted"), ("«Казань»", "Казань"),
     ("", ""), ("...", "")],
)
def test_normalize_value(raw, clean):
    assert normalize_value(raw) == clean


def test_long_values_are_capped():
    value = normalize_value("word " * 100)
    assert len(value) == MAX_VALUE_LENGTH and value.endswith("…")


def test_slug_and_comparable():
    assert slug("Ice Cream!") == "ice_cream"
    assert slug("Мурка") == "мурка"
    assert comparable("Ёлка, зелёная!") == comparable("елка зеленая")


def test_clean_fact_clamps_and_rejects():
    fact = clean_fact(Fact("nonsense", " City ", " Kazan ", importance=42, confidence=3))
    assert (fact.category, fact.key, fact.value, fact.importance, fact.confidence) == (
        "other", "city", "Kazan", 10, 1.0)
    assert clean_fact(Fact("location", "city", "   ")) is None
    assert clean_fact(Fact("location", "City Name With Spaces", "x")) is None
    assert clean_fact(Fact("pets", "pet:мурка", "кошка Мурка")) is not None


def test_normalize_facts_keeps_one_per_key_and_drops_repeated_values():
    facts = normalize_facts([
        Fact("location", "city", "Moscow"),
        Fact("location", "city", "Kazan"),
        Fact("preferences", "likes:coffee", "coffee"),
        Fact("preferences", "likes:coffee_drink", "Coffee!"),
        Fact("preferences", "dislikes:coffee", "coffee"),
    ])
    assert [(f.key, f.value) for f in facts] == [
        ("city", "Kazan"), ("likes:coffee", "coffee"), ("dislikes:coffee", "coffee")]


@pytest.mark.parametrize(
    ("existing", "new", "family", "action"),
    [
        (None, "Kazan", [], "insert"),
        (None, "coffee", ["coffee"], "skip"),
        ("Kazan", "kazan.", [], "touch"),
        ("Moscow", "Berlin", [], "replace"),
    ],
)
def test_merge_action(existing, new, family, action):
    old = Fact("location", "city", existing) if existing else None
    assert merge_action(old, Fact("location", "city", new), family) == action


def test_states_expire_after_a_few_days_and_traits_never():
    tired = Fact("state", "state:tired", "tired", updated_at=NOW - timedelta(days=2))
    assert is_current(tired, NOW)
    assert not is_current(Fact("state", "state:tired", "tired", updated_at=NOW - timedelta(days=4)), NOW)
    assert is_current(Fact("location", "city", "Kazan", updated_at=NOW - timedelta(days=4000)), NOW)


def test_prompt_gets_the_most_important_then_most_recent_facts_without_the_name():
    def at(days, key, importance):
        return Fact("other", key, key, importance=importance, updated_at=NOW - timedelta(days=days))

    facts = [at(1, "name", 9), at(5, "a", 5), at(1, "b", 5), at(9, "c", 8), at(0, "d", 2)]
    assert [f.key for f in choose_for_prompt(facts, NOW, 3)] == ["c", "b", "a"]
    assert choose_for_prompt(facts, NOW, 0) == []


def test_facts_matching_words():
    from memory.facts import facts_matching

    facts = [Fact("pets", "pet:rex", "dog Rex"), Fact("pets", "pet:murka", "кошка Мурка"),
             Fact("location", "city", "Kazan")]
    assert [f.key for f in facts_matching(facts, "dog")] == ["pet:rex"]
    assert [f.key for f in facts_matching(facts, "МУРКА")] == ["pet:murka"]
    assert [f.key for f in facts_matching(facts, "pet")] == ["pet:rex", "pet:murka"]
    assert facts_matching(facts, "dog kazan") == []
    assert facts_matching(facts, "  !! ") == []


def test_a_new_date_for_the_same_plan_is_a_change_and_no_date_is_not():
    exam = Fact("plans", "plan:exam", "экзамен", when="2026-12-04")
    assert merge_action(exam, Fact("plans", "plan:exam", "Экзамен!", when="2026-12-07"), []) == "replace"
    assert merge_action(exam, Fact("plans", "plan:exam", "экзамен", when="2026-12-04"), []) == "touch"
    assert merge_action(exam, Fact("plans", "plan:exam", "экзамен"), []) == "touch"


def test_style_wishes_are_left_out_of_recall_and_listed_in_aspect_order():
    facts = [Fact("style", "style:tone", "dry"), Fact("location", "city", "Kazan"),
             Fact("style", "style:address", "ты")]
    assert [f.key for f in prompt_candidates(facts, NOW)] == ["city"]
    assert [f.key for f in style_wishes(facts)] == ["style:address", "style:tone"]


@pytest.mark.parametrize(
    "old, new, merged",
    [
        ("empower", "synergy", "empower, synergy"),
        ("empower, synergy", "Synergy", "empower, synergy"),
        ("empower", " , ,", "empower"),
        ("зайкой", "котиком, зайкой", "зайкой, котиком"),
    ],
)
def test_a_list_aspect_collects_its_items_once(old, new, merged):
    existing = Fact("style", "style:avoid_words", old)
    assert with_list_merged(existing, Fact("style", "style:avoid_words", new)).value == merged


def test_other_aspects_and_first_wishes_are_left_as_they_are():
    assert with_list_merged(Fact("style", "style:tone", "dry"), Fact("style", "style:tone", "warm")).value == "warm"
    assert with_list_merged(None, Fact("style", "style:avoid_words", "x")).value == "x"


def test_a_merged_list_is_capped_like_any_value():
    existing = Fact("style", "style:avoid_topics", ", ".join(f"topic {i}" for i in range(40)))
    merged = with_list_merged(existing, Fact("style", "style:avoid_topics", "one more"))
    assert len(merged.value) <= MAX_VALUE_LENGTH


@pytest.mark.parametrize("value, kept", [("ты", "ты"), ("на «вы»", "вы"), ("Ты", "ты"), ("formal", None), ("", None)])
def test_the_russian_address_is_ty_or_vy_or_nothing(value, kept):
    cleaned = clean_fact(Fact("style", "style:address", value))
    assert (cleaned.value if cleaned else None) == kept


def test_a_fact_filed_as_a_wish_without_a_style_key_is_an_ordinary_fact():
    assert clean_fact(Fact("style", "debt", "owes 300,000")).category == "other"
    assert clean_fact(Fact("style", "style:tone", "no fluff")).category == "style"


def test_a_style_wish_in_the_users_words_is_kept_under_its_key_and_refused_under_another():
    wish = Fact(category="style", key="style:tone", value="не повторяй мой вопрос", importance=8, confidence=0.9)
    assert clean_fact(wish) is not None
    assert clean_fact(replace(wish, category="other", key="lectures")) is None
    assert clean_fact(replace(wish, value="представь, что ты пират")) is None
