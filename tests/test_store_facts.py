from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from memory.facts import Extraction, Fact, Relation
from tests.conftest import fetch

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
H = timedelta(hours=1)


@pytest.fixture(autouse=True)
async def two_users(store):
    """Users 1 and 2 have written once: facts belong to a user who exists."""
    for user_id in (1, 2):
        await store.turns.begin_turn(user_id=user_id, first_name="U", language_code="en", text="hi", now=T0,
                               update_id=None, history_limit=20)


def fact(key, value, category="location", importance=5, **kw):
    return Fact(category, key, value, importance=importance, **kw)


async def save(store, *facts, user_id=1, now=T0, max_facts=100, relations=()):
    return await store.facts.save_facts(user_id, Extraction(list(facts), list(relations)), now, max_facts)


async def values(store, user_id=1):
    return {f.key: f.value for f in await store.facts.facts(user_id)}


async def test_a_new_fact_is_stored_with_its_fields(store):
    [saved] = await save(store, fact("city", "Kazan", importance=7, confidence=0.8, source="llm", source_message_id=3))
    [stored] = await store.facts.facts(1)
    assert (stored.category, stored.key, stored.value, stored.importance, stored.confidence) == (
        "location", "city", "Kazan", 7, 0.8)
    assert (stored.source, stored.source_message_id, stored.created_at) == ("llm", 3, T0)
    assert saved.value == "Kazan"


async def test_a_new_value_for_a_single_slot_replaces_the_old_one_which_goes_to_history(store):
    await save(store, fact("city", "Moscow"))
    moved = T0 + timedelta(days=40)
    await save(store, fact("city", "Berlin"), now=moved)
    assert await values(store) == {"city": "Berlin"}
    assert await store.facts.fact_history(1, "city") == [("Moscow", T0, moved)]
    [city] = await store.facts.facts(1)
    assert city.created_at == T0 and city.updated_at == moved  # the bot can say since when


async def test_saying_the_same_thing_again_only_refreshes_it(store):
    await save(store, fact("city", "Berlin", importance=5))
    saved = await save(store, fact("city", "berlin!", importance=7), now=T0 + timedelta(days=1))
    assert saved == []
    [city] = await store.facts.facts(1)
    assert city.value == "Berlin" and city.importance == 7 and city.updated_at == T0 + timedelta(days=1)
    assert await store.facts.fact_history(1, "city") == []


async def test_multi_valued_facts_never_overwrite_each_other(store):
    await save(store, fact("pet:murka", "кошка Мурка", "pets"), fact("pet:rex", "dog Rex", "pets"))
    await save(store, fact("likes:coffee", "coffee", "preferences"), fact("likes:jazz", "jazz", "preferences"))
    assert await values(store) == {"pet:murka": "кошка Мурка", "pet:rex": "dog Rex", "likes:coffee": "coffee",
                                   "likes:jazz": "jazz"}


async def test_a_near_duplicate_under_another_key_of_the_same_family_is_skipped(store):
    await save(store, fact("likes:coffee", "Coffee", "preferences"))
    assert await save(store, fact("likes:black_coffee_drink", "coffee.", "preferences")) == []
    assert await values(store) == {"likes:coffee": "Coffee"}


async def test_a_stated_name_becomes_the_users_name(store):
    await save(store, fact("name", "Анна", "personal", 9))
    assert await store.users.user_name(1) == "Анна"


async def test_relations_link_facts_and_the_graph_returns_them(store):
    await save(
        store,
        fact("job_title", "engineer", "career"),
        fact("employer", "Acme", "career"),
        relations=[Relation("job_title", "employer", "works_at", 0.9), Relation("job_title", "nowhere", "likes")],
    )
    facts, relations = await store.facts.fact_graph(1)
    assert {f.key for f in facts} == {"job_title", "employer"}
    assert relations == [Relation("job_title", "employer", "works_at", 0.9)]
    assert (await store.facts.fact_graph(2)) == ([], [])


async def test_over_the_cap_the_least_important_and_oldest_go_first(store):
    for i in range(5):
        await save(store, fact(f"likes:thing{i}", f"thing {i}", "preferences", importance=5),
                   now=T0 + timedelta(minutes=i), max_facts=5)
    await save(store, fact("city", "Kazan", importance=7), now=T0 + timedelta(minutes=9), max_facts=5)
    keys = set(await values(store))
    assert keys == {"city", "likes:thing1", "likes:thing2", "likes:thing3", "likes:thing4"}


async def test_old_states_are_dropped(store):
    await save(store, fact("state:tired", "tired", "state", 4))
    await save(store, fact("city", "Kazan"), now=T0 + timedelta(days=4))
    assert set(await values(store)) == {"city"}


async def test_facts_are_per_user(store):
    await save(store, fact("city", "Kazan"), user_id=1)
    await save(store, fact("city", "Oslo"), user_id=2)
    assert await values(store, 1) == {"city": "Kazan"}
    assert await values(store, 2) == {"city": "Oslo"}


async def test_deleting_a_fact_needs_its_owner(store):
    await save(store, fact("city", "Kazan"), user_id=1)
    [city] = await store.facts.facts(1)
    assert await store.facts.delete_facts(2, [city.id], T0) == 0
    assert await store.facts.delete_facts(1, [city.id, 999], T0) == 1
    assert await store.facts.facts(1) == []


async def test_unread_messages_and_who_has_them(store):
    assert await store.facts.unread_count(1) == 1
    assert await store.facts.users_due_for_extraction(T0) == []  # both wrote at T0: not idle yet
    assert sorted(await store.facts.users_due_for_extraction(T0 + timedelta(seconds=1))) == [1, 2]
    [message] = await store.facts.pending_messages(1, 10)
    await store.facts.save_facts(1, Extraction(), T0, 100, extracted_upto=message["id"])
    assert await store.facts.unread_count(1) == 0
    assert await store.facts.users_due_for_extraction(T0 + timedelta(seconds=1)) == [2]


async def test_forget_leaves_no_row_of_the_user_in_any_table(store):
    await save(store, fact("city", "Moscow"), fact("job_title", "cook", "career"),
               relations=[Relation("job_title", "city", "located_in")])
    await save(store, fact("city", "Berlin"), now=T0 + timedelta(days=1))
    await save(store, fact("city", "Oslo"), user_id=2)
    assert await store.accounts.forget_user(1) == (1, 2)
    tables = [row[0] for row in await fetch(store, (
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        " AND table_name <> 'schema_version'") if store.on_postgres else
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    assert set(tables) >= {"users", "messages", "facts", "fact_history", "fact_relations"}
    # The inbox has no user column: it keeps an update's JSON only until the update is handled
    # (test_store.py), and /forget runs while its own update is being handled. send_budget is one row, the
    # bot's shared Telegram rate: nobody's data.
    for table in set(tables) - {"inbox", "send_budget"}:
        column = "id" if table == "users" else "user_id"
        rows = await fetch(store, f"SELECT COUNT(*) FROM {table} WHERE {column} = 1")
        assert rows[0][0] == 0, table
    assert await values(store, 2) == {"city": "Oslo"}


async def test_saved_facts_come_back_with_their_ids_new_or_replaced(store):
    [new] = await save(store, fact("city", "Kazan"))
    [changed] = await save(store, fact("city", "Oslo"), now=T0 + timedelta(minutes=1))
    [stored] = await store.facts.facts(1)
    assert new.id == changed.id == stored.id is not None


async def test_a_new_wish_on_a_list_aspect_adds_to_it_and_the_same_again_only_refreshes(store):
    await save(store, fact("style:avoid_words", "empower", "style"))
    [grown] = await save(store, fact("style:avoid_words", "synergy, Empower", "style"), now=T0 + timedelta(minutes=1))
    again = await save(store, fact("style:avoid_words", "synergy", "style"), now=T0 + timedelta(minutes=2))
    assert grown.value == "empower, synergy" and again == []
    assert (await values(store))["style:avoid_words"] == "empower, synergy"
    assert [v for v, _, _ in await store.facts.fact_history(1, "style:avoid_words")] == ["empower"]


async def test_a_new_wish_on_another_aspect_replaces_the_old_one_with_history(store):
    await save(store, fact("style:address", "вы", "style"))
    await save(store, fact("style:address", "ты", "style"), now=T0 + timedelta(minutes=1))
    assert (await values(store))["style:address"] == "ты"
    assert [v for v, _, _ in await store.facts.fact_history(1, "style:address")] == ["вы"]


async def test_style_wishes_are_never_evicted_by_the_cap(store):
    await save(store, fact("style:emoji", "no emoji", "style", importance=1))
    for i in range(4):
        await save(store, fact(f"likes:thing{i}", f"thing {i}", "preferences", importance=5),
                   now=T0 + timedelta(minutes=i + 1), max_facts=3)
    keys = set(await values(store))
    assert "style:emoji" in keys and len(keys) == 3


async def test_deleting_the_name_fact_clears_the_name_the_bot_uses(store):
    [name] = await save(store, fact("name", "Шура", "personal"))
    assert await store.users.user_name(1) == "Шура"
    assert await store.facts.delete_facts(1, [name.id], T0) == 1
    assert await store.users.user_name(1) is None
    assert await store.facts.delete_facts(2, [name.id], T0) == 0  # another user's id deletes nothing


async def test_a_conversation_line_is_written_rewritten_and_the_oldest_go_past_the_cap(store):
    from memory.continuity import Topic

    await store.facts.save_facts(1, Extraction(), T0, 100, topic=Topic("exam", T0, T0), max_topics=2)
    [first] = await store.topics.topics(1)
    await store.facts.save_facts(1, Extraction(), T0, 100, topic=replace(first, text="exam; flat", ended_at=T0 + H),
                           max_topics=2)
    assert [(t.text, t.ended_at) for t in await store.topics.topics(1)] == [("exam; flat", T0 + H)]
    for day in (1, 2):
        moment = T0 + timedelta(days=day)
        await store.facts.save_facts(1, Extraction(), moment, 100, topic=Topic(f"day {day}", moment, moment),
                                     max_topics=2)
    assert [t.text for t in await store.topics.topics(1)] == ["day 2", "day 1"]
    assert await store.topics.topics(2) == []


async def test_no_line_is_kept_with_max_topics_zero_and_one_is_deleted_only_by_its_owner(store):
    from memory.continuity import Topic

    await store.facts.save_facts(1, Extraction(), T0, 100, topic=Topic("exam", T0, T0), max_topics=0)
    assert await store.topics.topics(1) == []
    await store.facts.save_facts(1, Extraction(), T0, 100, topic=Topic("exam", T0, T0), max_topics=5)
    [line] = await store.topics.topics(1)
    assert await store.topics.delete_topic(2, line.id) == 0
    assert await store.topics.delete_topic(1, line.id) == 1 and await store.topics.topics(1) == []


async def test_lines_are_exported_and_forgotten(store):
    from memory.continuity import Topic

    await store.facts.save_facts(1, Extraction(), T0, 100, topic=Topic("exam", T0, T0 + H), max_topics=5)
    data = await store.accounts.export_user(1)
    assert data["conversations"] == [{"topics": "exam", "started": T0.isoformat(), "ended": (T0 + H).isoformat()}]
    await store.accounts.forget_user(1)
    assert await store.topics.topics(1) == []


async def test_a_turn_brings_the_newest_lines_newest_first_and_the_time_of_each_message(store):
    from memory.continuity import Topic

    for day in range(8):
        moment = T0 + timedelta(days=day)
        await store.facts.save_facts(1, Extraction(), moment, 100, topic=Topic(f"day {day}", moment, moment),
                                     max_topics=30)
    turn = await store.turns.begin_turn(user_id=1, first_name="U", language_code="en", text="hello again",
                                  now=T0 + timedelta(days=9), update_id=None, history_limit=20)
    assert [t.text for t in turn.topics] == [f"day {day}" for day in range(7, 1, -1)]  # six of them
    assert turn.times == [T0, T0 + timedelta(days=9)] and len(turn.history) == 2
    other = await store.turns.begin_turn(user_id=2, first_name="U", language_code="en", text="hi", now=T0,
                                   update_id=None, history_limit=20)
    assert other.topics == []
