"""The store's groups and memory's own record, on both engines: member keys, the group's conversation, what is
shared, what a reply used, what became of each fact, and /forget reaching every group."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory.facts import Correction, Extraction, Fact
from memory.scopes import is_member_key, member_keys
from tests.conftest import fetch

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
OLYA, PASHA, FRIENDS, WORK = 1001, 1002, -1001000000101, -1001000000202


async def say(store, key: int, text: str, minutes: int = 0, name: str = "Olya", payer: int | None = None):
    turn = await store.turns.begin_turn(user_id=key, first_name=name, language_code="en", text=text,
                                  now=T0 + timedelta(minutes=minutes), update_id=None, history_limit=20,
                                  private=not is_member_key(key), payer=payer)
    return turn


async def test_a_member_gets_one_key_per_group_the_same_each_time(store):
    friends = await store.scopes.member_key(OLYA, FRIENDS, "Friends", T0)
    assert is_member_key(friends) and friends == next(member_keys(OLYA, FRIENDS))
    assert await store.scopes.member_key(OLYA, FRIENDS, "Best friends", T0) == friends  # renamed: the same memory
    work = await store.scopes.member_key(OLYA, WORK, None, T0 + timedelta(minutes=1))
    assert work != friends and await store.scopes.known_member(OLYA, WORK) == work
    assert await store.scopes.known_member(PASHA, FRIENDS) is None
    assert [(m.key, m.chat_id, m.title) for m in await store.scopes.memberships(OLYA)] == [
        (friends, FRIENDS, "Best friends"), (work, WORK, None)]
    assert await store.scopes.owner_of(friends) == OLYA and await store.scopes.owner_of(OLYA) == OLYA
    assert await store.users.settings(OLYA) == {}  # the user got a row of their own


async def test_a_taken_key_is_probed_past(store):
    first, second = list(member_keys(OLYA, FRIENDS))[:2]
    await fetch(store, "INSERT INTO users (id, first_seen, last_seen) VALUES (?, 'x', 'x')", (first,))
    assert await store.scopes.member_key(OLYA, FRIENDS, "Friends", T0) == second


async def test_the_groups_conversation_holds_every_members_words_in_order_and_no_other_groups(store):
    olya, pasha = await store.scopes.member_key(OLYA, FRIENDS, "F", T0), await store.scopes.member_key(PASHA, FRIENDS,
                                                                                                       "F", T0)
    other = await store.scopes.member_key(OLYA, WORK, "W", T0)
    first = await say(store, olya, "film tonight?", 0)
    await store.turns.add_reply(olya, "how about Alien?", T0 + timedelta(minutes=1), 20, reply_to=first.message_id)
    await say(store, pasha, "I'm in", 2, name="Pasha")
    await say(store, other, "deadline is friday", 3)
    await say(store, FRIENDS, "admin here", 4, name="Friends")  # an anonymous admin: the group's own memory
    await say(store, OLYA, "private words", 5)
    history = await store.scopes.group_history(FRIENDS, 20)
    assert [(m.role, m.content, m.speaker) for m in history] == [
        ("user", "film tonight?", "Olya"), ("assistant", "how about Alien?", "Olya"),
        ("user", "I'm in", "Pasha"), ("user", "admin here", "Friends")]
    assert [m.content for m in await store.scopes.group_history(FRIENDS, 2)] == ["I'm in", "admin here"]


async def test_a_group_turn_charges_its_member(store):
    key = await store.scopes.member_key(OLYA, FRIENDS, "F", T0)
    turn = await say(store, key, "hello", payer=OLYA)
    reply = await store.turns.add_reply(key, "hi", T0, 20, reply_to=turn.message_id, tokens=7, payer=OLYA)
    assert isinstance(reply, int)
    assert await fetch(store, "SELECT user_id, messages, tokens FROM usage ORDER BY id") == [
        (OLYA, 1, 0), (OLYA, 0, 7)]


async def test_only_shared_facts_are_read_for_groups(store):
    await store.users.meet_user(OLYA, T0)
    await store.facts.save_facts(OLYA, Extraction([Fact("location", "city", "Berlin"), Fact("other", "debt", "300k")]),
                           T0, 100)
    city, debt = await store.facts.facts(OLYA)
    assert await store.scopes.shared_facts(OLYA) == []
    assert await store.scopes.set_shared(OLYA, city.id, True)
    assert not await store.scopes.set_shared(PASHA, debt.id, True)  # not his
    assert [fact.value for fact in await store.scopes.shared_facts(OLYA)] == ["Berlin"]
    assert (await store.facts.facts(OLYA))[0].shared and not (await store.facts.facts(OLYA))[1].shared
    assert await store.scopes.set_shared(OLYA, city.id, False) and await store.scopes.shared_facts(OLYA) == []


async def test_a_reply_keeps_what_it_used_and_the_message_that_carried_it(store):
    turn = await say(store, OLYA, "hi")
    first = await store.turns.add_reply(OLYA, "hello!", T0, 20, reply_to=turn.message_id, used='{"facts":[1]}')
    second = await store.turns.add_reply(OLYA, "again", T0, 20, used='{"facts":[]}')
    await store.turns.mark_sent(OLYA, first, 555)
    await store.turns.mark_sent(PASHA, second, 556)  # not his reply: nothing changes
    assert (await store.turns.reply_used(OLYA, 555)).id == first
    assert (await store.turns.reply_used(OLYA)).id == second and (await store.turns.reply_used(OLYA, 556)) is None
    assert (await store.turns.reply_used(OLYA, reply_id=first)).used == '{"facts":[1]}'
    assert await store.turns.reply_used(PASHA) is None
    assert [reply.content for reply in await store.turns.replies_used(OLYA, 5)] == ["again", "hello!"]


async def test_each_fact_records_what_became_of_it(store):
    await store.users.meet_user(OLYA, T0)
    await store.facts.save_facts(OLYA, Extraction([Fact("location", "city", "Berlin", source="llm")]), T0, 100)
    await store.facts.save_facts(OLYA, Extraction([Fact("pets", "pet:rex", "dog Rex")]), T0, 100, via="page")
    city, rex = await store.facts.facts(OLYA)
    await store.facts.save_facts(OLYA, Extraction([Fact("location", "city", "Kazan")]), T0 + timedelta(days=1), 100)
    await store.facts.save_facts(OLYA, Extraction(corrections=[Correction("pet:rex", Fact("pets", "pet:rex",
                                                                                          "dog Rexy"))]),
                           T0 + timedelta(days=2), 100)
    await store.facts.delete_facts(OLYA, [rex.id], T0 + timedelta(days=3))
    rows = await fetch(store, "SELECT event, source, fact_id FROM memory_events ORDER BY id")
    assert rows == [("learned", "llm", city.id), ("learned", "page", rex.id), ("replaced", "rule", city.id),
                    ("corrected", "rule", rex.id), ("removed", "user", rex.id)]
    figures = await store.events.memory_figures(T0 + timedelta(days=10))
    assert figures.settled == 2 and figures.undone == 1 and figures.undone_share == 0.5
    assert figures.learned == {} and (await store.events.memory_figures(T0 + timedelta(hours=1))).learned == {
        "llm": 1, "page": 1}


async def test_a_fact_marked_wrong_keeps_its_value_as_history_until_undone_or_forgotten(store):
    await store.users.meet_user(OLYA, T0)
    await store.facts.save_facts(OLYA, Extraction([Fact("location", "city", "Berlin")]), T0, 100)
    [city] = await store.facts.facts(OLYA)
    forgotten = await store.forgetting.forget(OLYA, [city.id], lambda text: text, T0, timedelta(minutes=15),
                                              event="wrong")
    assert await store.facts.facts(OLYA) == []
    assert await fetch(store, "SELECT event, value FROM memory_events WHERE event = 'wrong'") == [("wrong", "Berlin")]
    assert (await store.events.memory_figures(T0 + timedelta(hours=1))).wrong == 1
    assert await store.forgetting.restore_forgotten(OLYA, forgotten.undo_id, T0) == [city.id]
    assert await fetch(store, "SELECT COUNT(*) FROM memory_events WHERE event = 'wrong'") == [(0,)]
    await store.forgetting.forget(OLYA, [city.id], lambda text: text, T0, timedelta(minutes=15), event="wrong")
    assert (await store.accounts.export_user(OLYA))["marked_wrong"] == [{"value": "Berlin", "at": T0.isoformat()}]
    await store.accounts.forget_user(OLYA)
    assert await fetch(store, "SELECT user_id, value FROM memory_events WHERE event = 'wrong'") == [(None, None)]


async def test_forget_user_erases_their_memory_in_every_group_and_nobody_elses(store):
    olya = await store.scopes.member_key(OLYA, FRIENDS, "F", T0)
    pasha = await store.scopes.member_key(PASHA, FRIENDS, "F", T0)
    for key in (OLYA, olya, pasha):
        await say(store, key, "I have a cat")
        await store.facts.save_facts(key, Extraction([Fact("pets", "pet:cat", "a cat")]), T0, 100)
    messages, facts = await store.accounts.forget_user(OLYA)
    assert (messages, facts) == (2, 2)
    for key in (OLYA, olya):
        assert await fetch(store, "SELECT COUNT(*) FROM users WHERE id = ?", (key,)) == [(0,)]
    assert await fetch(store, "SELECT key FROM members") == [(pasha,)]
    assert [fact.value for fact in await store.facts.facts(pasha)] == ["a cat"]
    assert [m.speaker for m in await store.scopes.group_history(FRIENDS,
                                                                20)] == ["Olya"]  # Pasha's, as his turn named him
