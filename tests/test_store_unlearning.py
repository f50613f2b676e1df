"""Unlearning in the store, on SQLite and PostgreSQL: facts that ended, corrections, forgetting with Undo."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory.continuity import Topic
from memory.facts import Correction, Ending, Extraction, Fact, Relation, is_current
from memory.store.memory_store import Store
from services.forgetting import REQUEST_MARK, UNDO_MINUTES, Forgetter
from tests.conftest import fetch

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
H = timedelta(hours=1)
KEEP = timedelta(minutes=UNDO_MINUTES)


def forgetter_over(store: Store, clock) -> Forgetter:
    """Return a Forgetter over the store's database, as bot.py builds it."""
    r = store
    return Forgetter(r.accounts, r.facts, r.forgetting, r.reminders, r.topics, r.users, clock)


@pytest.fixture
async def store(database):
    """A migrated Store on `database` (SQLite, then PostgreSQL) where users 1 and 2 have written once in their
    private chats (so follow-ups can be due for them)."""
    opened = await Store.open(database)
    for user_id in (1, 2):
        await talk(opened, "hi", user_id)
    yield opened
    await opened.close()


async def talk(store, text, user_id=1, now=T0):
    turn = await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="ru", text=text, now=now,
                                  update_id=None, history_limit=50)
    return turn.message_id


async def save(store, *facts, user_id=1, now=T0, endings=(), corrections=(), relations=(), plan=None, topic=None,
               **kw):
    extraction = Extraction(list(facts), list(relations), endings=list(endings), corrections=list(corrections))
    return await store.facts.save_facts(user_id, extraction, now, 100, plan=plan, topic=topic, **kw)


async def by_key(store, key, user_id=1):
    return next((fact for fact in await store.facts.facts(user_id) if fact.key == key), None)


async def history_rows(store, user_id=1):
    """(key now, old value, valid_until, old date) of the user's fact_history, oldest first."""
    return await fetch(
        store,
        "SELECT f.key, h.value, h.valid_until, h.when_at FROM fact_history h JOIN facts f ON f.id = h.fact_id"
        " WHERE h.user_id = ? ORDER BY h.id",
        (user_id,),
    )


def at(moment):
    return moment.astimezone(timezone.utc).isoformat()


def exam(when="2026-12-04", message_id=None):
    return Fact("plans", "plan:exam", "экзамен", when=when, source_message_id=message_id)


# Endings.


async def test_an_ending_makes_the_fact_the_past_and_it_stays_with_how_and_when(store):
    await save(store, Fact("career", "employer", "Google", source_message_id=1))
    await save(store, endings=[Ending("employer", "ended", "2026-11-27", 5)], now=T0 + H)
    employer = await by_key(store, "employer")
    assert (employer.value, employer.ended, employer.ended_on, employer.ended_at) == (
        "Google", "ended", "2026-11-27", T0 + H)
    assert employer.source_message_id == 5  # the message that ended it
    assert not is_current(employer, T0 + H)
    assert await store.facts.fact_history(1, "employer") == []  # the value did not change: it is just the past


async def test_an_ending_cancels_the_follow_up_of_a_dated_plan(store):
    await save(store, exam(), plan=lambda _fact: T0 + H)
    [due] = await store.outreach.due_items(T0 + H, 10)
    assert (due.kind, due.fact_value) == ("followup", "экзамен")
    await save(store, endings=[Ending("plan:exam", "ended", None, 7)], now=T0 + H / 2)
    assert await store.outreach.due_items(T0 + 100 * H, 10) == []
    assert await fetch(store, "SELECT followup_at FROM facts WHERE key = 'plan:exam'") == [(None,)]


async def test_a_pet_that_died_is_not_set_back_to_merely_ended(store):
    await save(store, Fact("pets", "pet:laika", "собака Лайка", source_message_id=1))
    await save(store, endings=[Ending("pet:laika", "died", "2026-11-29", 4)], now=T0 + H)
    await save(store, endings=[Ending("pet:laika", "ended", None, 6)], now=T0 + 2 * H)
    laika = await by_key(store, "pet:laika")
    assert (laika.ended, laika.ended_on, laika.ended_at, laika.source_message_id) == (
        "died", "2026-11-29", T0 + H, 4)
    assert not is_current(laika, T0 + 2 * H)


async def test_an_ending_of_an_unknown_key_changes_nothing(store):
    await save(store, Fact("location", "city", "Kazan"))
    assert await save(store, endings=[Ending("employer", "ended", None, 3)]) == []
    assert [(f.key, f.ended) for f in await store.facts.facts(1)] == [("city", None)]


async def test_an_ending_is_the_users_own(store):
    await save(store, Fact("career", "employer", "Google"), user_id=2)
    await save(store, endings=[Ending("employer", "ended", None, 3)], user_id=1)
    assert (await by_key(store, "employer", user_id=2)).ended is None


async def test_said_again_after_it_ended_a_fact_is_current_again_and_the_past_goes_to_history(store):
    await save(store, Fact("career", "employer", "Google", source_message_id=1))
    await save(store, endings=[Ending("employer", "ended", "2026-11-29", 5)], now=T0 + H)
    back = T0 + 30 * 24 * H
    saved = await save(store, Fact("career", "employer", "Google", source_message_id=9), now=back)
    employer = await by_key(store, "employer")
    assert [fact.key for fact in saved] == ["employer"]
    assert (employer.ended, employer.ended_on, employer.ended_at) == (None, None, None)
    assert employer.source_message_id == 9 and employer.updated_at == back and is_current(employer, back)
    assert await store.facts.fact_history(1, "employer") == [("Google", T0, T0 + H)]  # valid until it ended


async def test_a_fact_from_a_message_written_before_it_ended_leaves_it_ended(store):
    await save(store, Fact("career", "employer", "Google", source_message_id=1))
    await save(store, endings=[Ending("employer", "ended", None, 5)], now=T0 + H)
    assert await save(store, Fact("career", "employer", "Google", source_message_id=3), now=T0 + 2 * H) == []
    employer = await by_key(store, "employer")
    assert (employer.ended, employer.ended_at, employer.source_message_id) == ("ended", T0 + H, 5)
    assert await store.facts.fact_history(1, "employer") == []


async def test_an_ending_and_an_older_mention_in_one_pass_leave_it_ended(store):
    await save(store, Fact("career", "employer", "Google", source_message_id=1))
    await save(store, Fact("career", "employer", "Google", source_message_id=4),
               endings=[Ending("employer", "ended", None, 6)], now=T0 + H)
    assert (await by_key(store, "employer")).ended == "ended"


# Corrections.


async def test_a_correction_replaces_the_value_and_the_old_one_goes_to_history(store):
    await save(store, Fact("family", "family:sister", "сестра Катя", source_message_id=1))
    [old] = await store.facts.facts(1)
    corrected = Fact("family", "family:sister", "сестра Оля", source_message_id=8)
    saved = await save(store, corrections=[Correction("family:sister", corrected)], now=T0 + H)
    [sister] = await store.facts.facts(1)
    assert (sister.id, sister.value, sister.source_message_id, sister.updated_at) == (old.id, "сестра Оля", 8, T0 + H)
    assert [(fact.key, fact.value) for fact in saved] == [("family:sister", "сестра Оля")]
    assert await store.facts.fact_history(1, "family:sister") == [("сестра Катя", T0, T0 + H)]


async def test_a_correction_moves_the_date_keeps_the_old_one_in_history_and_replans(store):
    await save(store, exam("2026-12-04"), plan=lambda _fact: T0 + H)
    await save(store, corrections=[Correction("plan:exam", exam("2026-12-07", 9))], now=T0 + H / 2,
               plan=lambda _fact: T0 + 80 * H)
    plan = await by_key(store, "plan:exam")
    assert (plan.value, plan.when) == ("экзамен", "2026-12-07")
    assert await history_rows(store) == [("plan:exam", "экзамен", at(T0 + H / 2), "2026-12-04")]
    assert await store.outreach.due_items(T0 + 79 * H, 10) == []
    [moved] = await store.outreach.due_items(T0 + 80 * H, 10)
    assert (moved.when, moved.due_at) == ("2026-12-07", T0 + 80 * H)


async def test_a_correction_may_give_the_fact_a_new_key(store):
    await save(store, Fact("family", "family:sister_катя", "сестра Катя"))
    [old] = await store.facts.facts(1)
    olya = Fact("family", "family:sister_оля", "сестра Оля", source_message_id=4)
    await save(store, corrections=[Correction("family:sister_катя", olya)], now=T0 + H)
    [sister] = await store.facts.facts(1)
    assert (sister.id, sister.key, sister.value) == (old.id, "family:sister_оля", "сестра Оля")
    assert await store.facts.fact_history(1, "family:sister_оля") == [("сестра Катя", T0, T0 + H)]


async def test_a_corrected_name_is_the_name_the_bot_uses(store):
    await save(store, Fact("personal", "name", "Аня"))
    assert await store.users.user_name(1) == "Аня"
    await save(store, corrections=[Correction("name", Fact("personal", "name", "Анна", source_message_id=3))])
    assert await store.users.user_name(1) == "Анна"
    assert (await by_key(store, "name")).value == "Анна"


async def test_a_correction_onto_another_known_key_is_skipped(store):
    await save(store, Fact("family", "family:sister_катя", "сестра Катя"), Fact("family", "family:sister_оля",
                                                                                "сестра Оля"))
    before = await store.facts.facts(1)
    clash = Fact("family", "family:sister_оля", "сестра Оля Петрова", source_message_id=3)
    assert await save(store, corrections=[Correction("family:sister_катя", clash)], now=T0 + H) == []
    assert await store.facts.facts(1) == before
    assert await history_rows(store) == []


async def test_a_correction_of_an_unknown_key_is_skipped(store):
    assert await save(store, corrections=[Correction("car", Fact("other", "car", "Toyota"))]) == []
    assert await by_key(store, "car") is None


async def test_a_corrected_fact_is_embedded_again(store):
    await save(store, Fact("location", "city", "Kazan"))
    [city] = await store.facts.facts(1)
    await store.facts.save_embeddings(1, "m", [(city.id, b"\0\0\0\0", 1)])
    assert await store.facts.facts_to_embed(1, "m") == []
    await save(store, corrections=[Correction("city", Fact("location", "city", "Казань"))], now=T0 + H)
    assert [fact.value for fact in await store.facts.facts_to_embed(1, "m")] == ["Казань"]


# Forgetting.


async def remember_laika(store, user_id=1):
    """Facts, history, a relation, session messages and topic lines about a dog; return the message ids."""
    said = await talk(store, "Моя собака Лайка заболела. А я устала на работе.", user_id)
    await store.turns.add_reply(user_id, "Бедная Лайка! Что сказал врач?", T0, 50, reply_to=said)
    vet = await talk(store, "Лайку надо к ветеринару", user_id)
    hello = await talk(store, "Привет, как дела?", user_id)
    await save(store, Fact("pets", "pet:laika", "пёс Лайка", source_message_id=said), user_id=user_id)
    await save(store, Fact("pets", "pet:laika", "собака Лайка", source_message_id=vet),
               Fact("location", "city", "Kazan"), relations=[Relation("pet:laika", "city", "located_in")],
               topic=Topic("Лайка заболела; работа тяжёлая", T0, T0), user_id=user_id, now=T0 + H,
               plan=lambda fact: T0 + 50 * H if fact.key == "pet:laika" else None)
    await save(store, topic=Topic("Про Лайку", T0 + H, T0 + H), user_id=user_id, now=T0 + H)
    await save(store, topic=Topic("Погода в Казани", T0 + 2 * H, T0 + 2 * H), user_id=user_id, now=T0 + H)
    return said, vet, hello


async def snapshot(store, user_id=1):
    """Everything forgetting may touch, as stored."""
    return {
        "facts": await store.facts.facts(user_id),
        "followups": await fetch(store, "SELECT id, followup_at FROM facts WHERE user_id = ? ORDER BY id",
                                 (user_id,)),
        "history": await fetch(
            store, "SELECT id, fact_id, value, source, valid_from, valid_until, when_at FROM fact_history"
            " WHERE user_id = ? ORDER BY id", (user_id,)),
        "relations": await fetch(
            store, "SELECT id, source_fact_id, target_fact_id, relation, strength FROM fact_relations"
            " WHERE user_id = ? ORDER BY id", (user_id,)),
        "messages": await fetch(
            store, "SELECT id, role, content, created_at, update_id, reply_to, kind FROM messages"
            " WHERE user_id = ? ORDER BY id", (user_id,)),
        "topics": await store.topics.topics(user_id),
        "name": await store.users.user_name(user_id),
    }


async def contents(store, user_id=1):
    return [content for (content,) in await fetch(store, "SELECT content FROM messages WHERE user_id = ? ORDER BY id",
                                                  (user_id,))]


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


async def test_forget_removes_the_facts_their_history_and_relations_and_scrubs_the_session(store):
    said, vet, hello = await remember_laika(store)
    request = await talk(store, "Забудь мою собаку.", now=T0 + 2 * H)
    laika = await by_key(store, "pet:laika")
    assert await store.facts.fact_history(1, "pet:laika") != [] and (await store.facts.fact_graph(1))[1] != []
    forgotten = await forgetter_over(store, Clock(T0 + 3 * H)).forget(1, [laika], edits={request: REQUEST_MARK})

    assert forgotten.facts == [laika] and forgotten.undo_id is not None
    assert forgotten.messages == 4  # two scrubbed, one dropped, one edited
    assert [fact.key for fact in await store.facts.facts(1)] == ["city"]
    assert await fetch(store, "SELECT COUNT(*) FROM fact_history WHERE user_id = 1") == [(0,)]
    assert await fetch(store, "SELECT COUNT(*) FROM fact_relations WHERE user_id = 1") == [(0,)]
    assert await fetch(store, "SELECT id FROM facts WHERE id = ?", (laika.id,)) == []
    assert await contents(store) == ["hi", "А я устала на работе.", "Что сказал врач?", "Привет, как дела?",
                                     REQUEST_MARK]
    assert await fetch(store, "SELECT id FROM messages WHERE id = ?", (vet,)) == []
    assert [topic.text for topic in await store.topics.topics(1)] == ["Погода в Казани", "работа тяжёлая"]
    assert await store.facts.forget_count(1) == 1
    assert await store.outreach.due_items(T0 + 100 * H, 10) == []  # its follow-up went with it


async def test_forget_edits_set_a_messages_content_and_none_drops_it(store):
    keep = await talk(store, "Погода хорошая")
    drop = await talk(store, "Ничего особенного")
    await save(store, Fact("location", "city", "Kazan"))
    [city] = await store.facts.facts(1)
    forgotten = await store.forgetting.forget(1, [city.id], lambda text: text, T0, KEEP,
                                   edits={keep: "(edited)", drop: None})
    assert await contents(store) == ["hi", "(edited)"]
    assert forgotten.messages == 2 and forgotten.facts[0].id == city.id


async def test_forget_leaves_another_users_rows_alone(store):
    await remember_laika(store, user_id=2)
    theirs = await snapshot(store, 2)
    await remember_laika(store, user_id=1)
    laika = await by_key(store, "pet:laika", user_id=1)
    await forgetter_over(store, Clock(T0 + 3 * H)).forget(1, [laika])
    assert await snapshot(store, 2) == theirs
    assert await store.facts.forget_count(2) == 0


async def test_forget_does_not_delete_another_users_fact_by_its_id(store):
    await save(store, Fact("location", "city", "Oslo"), user_id=2)
    [theirs] = await store.facts.facts(2)
    forgotten = await store.forgetting.forget(1, [theirs.id], lambda text: text, T0, KEEP)
    assert forgotten.facts == [] and forgotten.undo_id is None
    assert await store.facts.facts(2) == [theirs]


async def test_forgetting_the_name_clears_the_name_the_bot_uses(store):
    await save(store, Fact("personal", "name", "Аня"))
    forgotten = await forgetter_over(store, Clock(T0)).forget(1, await store.facts.facts(1))
    assert await store.users.user_name(1) is None
    await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0 + H / 60)
    assert await store.users.user_name(1) == "Аня"


# Undo.


async def test_undo_within_the_window_puts_everything_back_as_it_was(store):
    await remember_laika(store)
    request = await talk(store, "Забудь мою собаку.", now=T0 + 2 * H)
    before = await snapshot(store)
    laika = await by_key(store, "pet:laika")
    clock = Clock(T0 + 3 * H)
    forgetter = forgetter_over(store, clock)
    forgotten = await forgetter.forget(1, [laika], edits={request: REQUEST_MARK})
    assert await snapshot(store) != before

    clock.now = T0 + 3 * H + KEEP - timedelta(seconds=1)
    restored = await forgetter.undo(1, forgotten.undo_id)
    assert restored == [laika]  # the same id, the same fact
    after = await snapshot(store)
    for part in before:
        assert after[part] == before[part], part
    assert await fetch(store, "SELECT COUNT(*) FROM forgotten") == [(0,)]
    assert await store.forgetting.restore_forgotten(1, forgotten.undo_id, clock.now) is None  # once


async def test_undo_after_the_window_gives_nothing(store):
    await save(store, Fact("location", "city", "Kazan"))
    forgotten = await forgetter_over(store, Clock(T0)).forget(1, await store.facts.facts(1))
    assert await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0 + KEEP + timedelta(seconds=1)) is None
    assert await store.facts.facts(1) == []


async def test_another_user_cannot_undo_a_forget(store):
    await save(store, Fact("location", "city", "Kazan"))
    [city] = await store.facts.facts(1)
    forgotten = await forgetter_over(store, Clock(T0)).forget(1, [city])
    assert await store.forgetting.restore_forgotten(2, forgotten.undo_id, T0) is None
    assert await store.facts.facts(2) == [] and await store.facts.facts(1) == []
    assert await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0) == [city.id]  # still the owner's to undo


async def test_undo_keeps_a_fact_learned_again_meanwhile(store):
    await remember_laika(store)
    laika = await by_key(store, "pet:laika")
    forgotten = await forgetter_over(store, Clock(T0 + 3 * H)).forget(1, [laika])
    await save(store, Fact("pets", "pet:laika", "собака Лайка, 3 года", source_message_id=99), now=T0 + 3 * H)
    again = await by_key(store, "pet:laika")
    assert await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0 + 3 * H) == []
    assert await by_key(store, "pet:laika") == again
    assert await store.facts.fact_history(1, "pet:laika") == []  # the old fact's history stays gone with it
    assert (await store.facts.fact_graph(1))[1] == []  # its relation named the old id


async def test_undo_brings_a_relation_back_only_when_both_facts_exist(store):
    await remember_laika(store)
    laika, city = await by_key(store, "pet:laika"), await by_key(store, "city")
    forgotten = await forgetter_over(store, Clock(T0 + 3 * H)).forget(1, [laika])
    assert await store.facts.delete_facts(1, [city.id], T0) == 1
    assert await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0 + 3 * H) == [laika.id]
    facts, relations = await store.facts.fact_graph(1)
    assert [fact.key for fact in facts] == ["pet:laika"] and relations == []


async def test_purge_deletes_only_expired_undo_records(store):
    await save(store, Fact("location", "city", "Kazan"), Fact("career", "employer", "Acme"))
    city, employer = await by_key(store, "city"), await by_key(store, "employer")
    first = await forgetter_over(store, Clock(T0)).forget(1, [city])
    second = await forgetter_over(store, Clock(T0 + KEEP / 2)).forget(1, [employer])
    assert await fetch(store, "SELECT COUNT(*) FROM forgotten") == [(2,)]
    assert await store.forgetting.purge_forgotten(T0 + KEEP - timedelta(seconds=1)) == 0
    assert await store.forgetting.purge_forgotten(T0 + KEEP + timedelta(seconds=1)) == 1
    assert await fetch(store, "SELECT id FROM forgotten") == [(second.undo_id,)]
    assert await store.forgetting.restore_forgotten(1, first.undo_id, T0 + KEEP) is None
    assert await store.forgetting.restore_forgotten(1, second.undo_id, T0 + KEEP) == [employer.id]


# An extraction pass that read the messages before a forget.


async def test_a_pass_that_read_before_a_forget_saves_nothing_and_the_messages_stay_unread(store):
    said = await talk(store, "Моя собака Лайка")
    seen = await store.facts.forget_count(1)
    await save(store, Fact("location", "city", "Kazan"))
    await forgetter_over(store, Clock(T0)).forget(1, [await by_key(store, "city")])
    stale = await save(store, Fact("pets", "pet:laika", "собака Лайка", source_message_id=said),
                       extracted_upto=said, forgets_seen=seen, topic=Topic("Про Лайку", T0, T0))
    assert stale == [] and await store.facts.facts(1) == [] and await store.topics.topics(1) == []
    assert await store.facts.unread_count(1) == 2
    fresh = await save(store, Fact("pets", "pet:laika", "собака Лайка", source_message_id=said),
                       extracted_upto=said, forgets_seen=await store.facts.forget_count(1))
    assert [fact.key for fact in fresh] == ["pet:laika"] and await store.facts.unread_count(1) == 0


async def test_a_pass_that_read_before_the_user_was_forgotten_saves_nothing_and_fails_nothing(store):
    said = await talk(store, "Моя собака Лайка")
    seen = await store.facts.forget_count(1)
    await store.accounts.forget_user(1)  # /forget, while the pass waited for the model
    stale = await save(store, Fact("pets", "pet:laika", "собака Лайка", source_message_id=said),
                       extracted_upto=said, forgets_seen=seen, topic=Topic("Про Лайку", T0, T0))
    assert stale == [] and await store.facts.facts(1) == [] and await store.topics.topics(1) == []
    assert await fetch(store, "SELECT COUNT(*) FROM users WHERE id = 1") == [(0,)]
    assert await store.facts.forget_count(1) == 0


# The due query and the migration.


async def test_the_due_query_gives_no_city_once_it_ended(store):
    await save(store, Fact("location", "city", "Kazan"))
    await save(store, exam(), plan=lambda _fact: T0 + H)
    [before] = await store.outreach.due_items(T0 + H, 10)
    assert before.city == "Kazan"
    await save(store, endings=[Ending("city", "ended", None, 5)])
    [after] = await store.outreach.due_items(T0 + H, 10)
    assert (after.kind, after.city) == ("followup", None)


async def test_a_fact_from_schema_9_is_current_after_the_migration(database):
    store = await Store.open(database, migrate_to=9)
    try:
        stamp = at(T0)
        await fetch(store, "INSERT INTO users (id, name, first_seen, last_seen) VALUES (1, 'Ann', ?, ?)",
                    (stamp, stamp))
        await fetch(
            store,
            "INSERT INTO facts (user_id, category, key, value, importance, confidence, source, source_message_id,"
            " created_at, updated_at, when_at) VALUES (1, 'career', 'employer', 'Acme', 7, 0.9, 'llm', 3, ?, ?, NULL)",
            (stamp, stamp),
        )
        await store.migrate()
        [employer] = await store.facts.facts(1)
        assert (employer.key, employer.value, employer.importance, employer.created_at) == ("employer", "Acme", 7, T0)
        assert (employer.ended, employer.ended_on, employer.ended_at) == (None, None, None)
        assert is_current(employer, T0)
        assert await store.facts.forget_count(1) == 0
    finally:
        await store.close()


async def test_over_the_cap_a_fact_that_ended_goes_before_a_current_one_and_a_loss_stays(store):
    await save(store, Fact("career", "employer", "Google", importance=9), Fact("pets", "pet:laika", "собака Лайка"),
               Fact("preferences", "likes:tea", "tea", importance=2))
    await save(store, endings=[Ending("employer", "ended", None, 3), Ending("pet:laika", "died", None, 3)])
    await store.facts.save_facts(1, Extraction([Fact("location", "city", "Kazan")]), T0 + H, 3)
    assert {fact.key for fact in await store.facts.facts(1)} == {"pet:laika", "likes:tea", "city"}


async def test_the_export_says_which_facts_ended_and_the_old_dates(store):
    await save(store, Fact("pets", "pet:laika", "собака Лайка"), exam("2026-12-04"))
    await save(store, endings=[Ending("pet:laika", "died", "2026-11-29", 3)],
               corrections=[Correction("plan:exam", exam("2026-12-07", 4))], now=T0 + H)
    export = await store.accounts.export_user(1)
    laika = next(item for item in export["facts"] if item["key"] == "pet:laika")
    assert (laika["ended"], laika["ended_on"], laika["ended_at"]) == ("died", "2026-11-29", at(T0 + H))
    assert "ended" not in next(item for item in export["facts"] if item["key"] == "plan:exam")
    assert [(row["key"], row["value"], row["when"]) for row in export["fact_history"]] == [
        ("plan:exam", "экзамен", "2026-12-04")]


async def test_erasing_the_user_erases_what_undo_kept(store):
    await remember_laika(store, user_id=1)
    await remember_laika(store, user_id=2)
    mine = await forgetter_over(store, Clock(T0 + 3 * H)).forget(1, [await by_key(store, "pet:laika", user_id=1)])
    theirs = await forgetter_over(store, Clock(T0 + 3 * H)).forget(2, [await by_key(store, "pet:laika", user_id=2)])
    await store.accounts.forget_user(1)
    assert await fetch(store, "SELECT id FROM forgotten") == [(theirs.undo_id,)]
    assert await store.forgetting.restore_forgotten(1, mine.undo_id, T0 + 3 * H) is None



async def test_an_old_undo_button_never_restores_a_later_forget(store):
    await save(store, Fact("location", "city", "Kazan"), Fact("career", "employer", "Acme"))
    city, employer = await by_key(store, "city"), await by_key(store, "employer")
    first = await forgetter_over(store, Clock(T0)).forget(1, [city])
    later = T0 + KEEP + timedelta(minutes=1)  # the first Undo has expired and this forget purges it
    second = await forgetter_over(store, Clock(later)).forget(1, [employer])
    assert second.undo_id != first.undo_id
    assert await store.forgetting.restore_forgotten(1, first.undo_id, later) is None  # "fg:undo:<first>" pressed late
    assert await store.facts.facts(1) == []


async def test_undo_brings_back_a_dropped_topic_line_after_new_lines_were_written(store):
    await save(store, Fact("pets", "pet:laika", "собака Лайка"), topic=Topic("Про Лайку", T0, T0))
    before = await store.topics.topics(1)
    forgotten = await forgetter_over(store, Clock(T0 + H)).forget(1, [await by_key(store, "pet:laika")])
    assert await store.topics.topics(1) == []
    await save(store, topic=Topic("Про погоду", T0 + H, T0 + H), user_id=2, now=T0 + H)  # another user's pass
    await store.forgetting.restore_forgotten(1, forgotten.undo_id, T0 + H)
    lines = [(topic.text, topic.started_at, topic.ended_at) for topic in await store.topics.topics(1)]
    assert lines == [(topic.text, topic.started_at, topic.ended_at) for topic in before]  # under a new id if taken
    assert [topic.text for topic in await store.topics.topics(2)] == ["Про погоду"]
