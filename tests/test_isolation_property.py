"""Isolation as a property: with several users and random interleavings of messages, /forget and /memory off, no
user's name, fact or message ever reaches another user's prompt, and after /forget nothing of theirs is kept.

One bot serves all of a test's examples (see tests/test_hostile_input.py for why and how: pytest-asyncio runs the
async `@given` test on the fixtures' event loop). Each user has tokens found nowhere else — a name, a city, a
marker in every message, a hobby the LLM "extracts" from their words — so a leak shows up as a foreign token in
a recorded request. An example is a list of steps: a burst of messages from several users at once (they are
served concurrently), or one user's /forget (confirmed with its button) or /memory off|on.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.harness import ProcessedUpdates, make_config, running_bot


class Person:
    def __init__(self, user_id: int, name: str, city: str) -> None:
        self.id, self.name, self.city = user_id, name, city
        self.marker, self.hobby = f"mark{name.lower()}", f"{name.lower()}ball"
        self.tokens = [name.lower(), city.lower(), self.marker, self.hobby, str(user_id)]
        self.sent = 0
        self.memory_on = True

    def intro(self) -> str:
        return f"My name is {self.name} and I live in {self.city}. {self.marker}"


# Ids far above any row id, so a user's id in a table is never a coincidence.
PEOPLE = [Person(7_000_000_001, "Zorblat", "Qwertyville"), Person(7_000_000_002, "Quilldon", "Asdfburg"),
          Person(7_000_000_003, "Vexmira", "Zxcvton")]
STEP = st.one_of(
    st.tuples(st.just("burst"), st.lists(st.tuples(st.sampled_from(range(3)), st.sampled_from(["intro", "chat"])),
                                         min_size=1, max_size=3, unique_by=lambda item: item[0])),
    st.tuples(st.sampled_from(["forget", "memory off", "memory on"]), st.sampled_from(range(3))),
)


def owners(text: str) -> set[int]:
    """Which people's tokens appear in `text`."""
    lowered = text.lower()
    return {person.id for person in PEOPLE if any(token in lowered for token in person.tokens)}


def extractor(body: dict) -> str:
    """Echo chat turns; for an extraction pass, a hobby named after the tokens found in the user's messages."""
    if "response_format" not in body:
        return "echo: " + body["messages"][-1]["content"]
    text = body["messages"][-1]["content"]
    facts = []
    for message_id, line in re.findall(r"\[user #(\d+)\] (.*)", text):
        for person in PEOPLE:
            if person.marker in line:
                facts.append({"category": "interests", "key": f"plays:{person.hobby}", "value": person.hobby,
                              "importance": 5, "confidence": 0.9, "source_message_id": int(message_id)})
    return json.dumps({"facts": facts, "relations": []})


def leftovers(path, person: Person) -> list[tuple]:
    """Every row, of every table, that holds the person's id or one of their tokens."""
    found = []
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if value == person.id or (isinstance(value, str) and owners(value) & {person.id}):
                        found.append((table, row))
    return found


def facts_of(path, person: Person) -> set[str]:
    with sqlite3.connect(path) as db:
        return {key for (key,) in db.execute("SELECT key FROM facts WHERE user_id = ?", (person.id,))}


@pytest.fixture
async def bot(telegram, model, tmp_path):
    model.reply = extractor
    config = make_config(telegram, model, tmp_path / "bot.db", memory_extract_delay_s=0.2, memory_extract_every=2,
                         telegram_max_rate=0)
    for person in PEOPLE:
        person.sent, person.memory_on = 0, True
    async with running_bot(config) as app:
        yield telegram, model, config.database_path, ProcessedUpdates(app)


async def say(telegram, person: Person, text: str) -> None:
    telegram.push_text(person.id, text, first_name=person.name)
    person.sent += 1


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # one bot for all examples, on purpose
@given(steps=st.lists(STEP, min_size=1, max_size=6))
async def test_no_user_ever_reaches_another_users_prompt_and_forget_leaves_nothing(bot, steps):
    telegram, model, database, processed = bot
    for kind, who in steps:
        if kind == "burst":
            for index, what in who:
                person = PEOPLE[index]
                await say(telegram, person, person.intro() if what == "intro" else f"how are you? {person.marker}")
            for index, what in who:
                await telegram.wait_for_sent(PEOPLE[index].id, PEOPLE[index].sent)
                if what == "intro" and PEOPLE[index].memory_on:  # the scan below has something to find
                    assert {"name", "city"} <= facts_of(database, PEOPLE[index])
            continue
        person = PEOPLE[who]
        if kind == "forget":
            await say(telegram, person, "/forget")
            ask = (await telegram.wait_for_sent(person.id, person.sent))[-1]
            erase = ask["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
            await processed.wait(telegram.push_callback(person.id, erase, ask["message_id"]))
            assert leftovers(database, person) == []
            person.memory_on = True  # the setting went with the rest (see the report: consent is erased too)
        else:
            await say(telegram, person, f"/{kind}")
            await telegram.wait_for_sent(person.id, person.sent)
            person.memory_on = kind == "memory on"
            if kind == "memory off":  # a stated name and city are not learned while memory is off
                before = facts_of(database, person)
                await say(telegram, person, person.intro())
                await telegram.wait_for_sent(person.id, person.sent)
                assert facts_of(database, person) - before <= {f"plays:{person.hobby}"}
    for request in model.requests:
        assert len(owners(json.dumps(request, ensure_ascii=False))) <= 1, request
    for request in model.embedding_requests:
        inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
        assert all(len(owners(text)) <= 1 for text in inputs), request
    for message in telegram.sent:
        assert owners(message["visible_text"]) <= {message["chat_id"]}, message
