"""End to end: the real Application polls the Bot API double and asks the OpenAI double."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

import pytest

from llm.discovery import resolve_host
from llm.tokens import estimate_tokens
from tests.harness import make_config, running_bot, session
from transport.replies import TYPING_AFTER_S

ANN, BOB = 1001, 1002


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db")


def system_zero(request: dict) -> str:
    first = request["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def conversation(request: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"][1:]]


async def test_a_user_says_hello_and_gets_the_model_answer(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "Hello there")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: Hello there"
    [request] = model.requests
    assert request["model"] == "gpt-4o-mini"
    assert conversation(request) == [("user", "Hello there")]
    assert "This is your first conversation with them." in system_zero(request)
    assert "the season is" in system_zero(request)


async def test_a_name_stated_in_this_message_is_already_in_this_turns_system_message(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "Привет! Меня зовут Анна.", language_code="ru")
        await telegram.wait_for_sent(ANN, 1)
    assert 'Their name: "Анна"' in system_zero(model.requests[0])


async def test_restart_with_the_same_database_keeps_name_and_history(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "my name is Ann")
        await telegram.wait_for_sent(ANN, 1)
    async with running_bot(config):
        telegram.push_text(ANN, "do you remember me?")
        await telegram.wait_for_sent(ANN, 2)
    last = model.requests[-1]
    assert 'Their name: "Ann"' in system_zero(last)
    assert "You last talked less than a minute ago" in system_zero(last)
    assert conversation(last) == [
        ("user", "my name is Ann"),
        ("assistant", "echo: my name is Ann"),
        ("user", "do you remember me?"),
    ]


async def test_the_history_sent_is_capped(telegram, model, config):
    async with running_bot(replace(config, history_limit=4)):
        for i in range(4):
            telegram.push_text(ANN, f"message {i}")
            await telegram.wait_for_sent(ANN, i + 1)
    # The oldest kept message is the companion's: strict templates want the user first, so it rides in
    # system message zero as what was said earlier.
    assert conversation(model.requests[-1]) == [
        ("user", "message 2"),
        ("assistant", "echo: message 2"),
        ("user", "message 3"),
    ]
    assert system_zero(model.requests[-1]).endswith("said earlier in this chat:\necho: message 1")


async def test_a_reply_at_the_cap_is_shortened_in_the_next_prompt_not_dropped(telegram, model, config):
    long_reply = "Rome began as a village on the Palatine. " * 95 + "Which part shall we start with?"
    model.reply = lambda body: long_reply if "Rome" in body["messages"][-1]["content"] else "echo"
    assert 950 < estimate_tokens(long_reply) <= 1024  # as long as REPLY_MAX_TOKENS lets a reply be
    async with running_bot(replace(config, reply_max_tokens=1024, prompt_max_tokens=1000)):
        for i, text in enumerate(["hi", "tell me about Rome", "the Colosseum"]):
            telegram.push_text(ANN, text)
            await telegram.wait_for_sent(ANN, i + 1)
    last = model.requests[-1]
    [(asked, question), (answered, shortened), (newest, text)] = conversation(last)
    assert (asked, question, answered, newest, text) == ("user", "tell me about Rome", "assistant", "user",
                                                         "the Colosseum")
    start, end = shortened.split(" […] ")
    assert long_reply.startswith(start) and end.endswith("Which part shall we start with?")
    assert sum(estimate_tokens(m["content"]) for m in last["messages"]) <= 1000
    assert "Rome began" not in system_zero(last)  # "hi" and its answer went first: nothing rides in it


async def test_a_9000_character_answer_arrives_whole_in_several_messages(telegram, model, config):
    paragraphs = [f"Paragraph {i}. " + "All work and no play. " * 20 for i in range(20)]
    answer = "\n\n".join(paragraphs)
    assert len(answer) > 9000
    model.reply = lambda body: answer
    async with running_bot(replace(config, reply_max_tokens=4000)):  # over REPLY_MAX_TOKENS' default
        telegram.push_text(ANN, "tell me a long story")
        await telegram.wait_for_sent(ANN, 3)
        await asyncio.sleep(0.2)
    sent = telegram.sent_to(ANN)
    assert len(sent) == 3
    assert all(len(m["visible_text"]) <= 4096 for m in sent)
    assert " ".join(m["visible_text"] for m in sent).split() == answer.split()
    assert sent[1]["visible_text"].startswith("Paragraph")  # cut between paragraphs


async def test_an_answer_full_of_markup_characters_is_delivered_verbatim(telegram, model, config):
    answer = "if a < b && c > d: *stars* _under_ 2*3*4 <b>not a tag</b> &amp; snake_case_name"
    model.reply = lambda body: answer
    async with running_bot(config):
        telegram.push_text(ANN, "show me symbols")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["parse_mode"] == "HTML"
    assert reply["visible_text"] == answer.replace("*stars*", "stars").replace("_under_", "under")


async def test_a_reply_telegram_cannot_parse_is_resent_as_plain_text(telegram, model, config):
    model.reply = lambda body: "**bold** answer"
    telegram.fail_next("sendMessage", 400, "Bad Request: can't parse entities: unsupported start tag at byte offset 0")
    async with running_bot(config):
        telegram.push_text(ANN, "hi")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply.get("parse_mode") is None
    assert reply["visible_text"] == "**bold** answer"


async def test_an_openai_outage_gets_an_apology_and_keeps_the_history_consistent(telegram, model, config):
    model.fail_always(503)
    async with running_bot(config):
        telegram.push_text(ANN, "are you there?")
        [apology] = await telegram.wait_for_sent(ANN, 1)
        assert "Sorry" in apology["visible_text"]
        assert len(model.requests) >= 2  # retried before giving up
        model.recover()
        telegram.push_text(ANN, "hello again")
        await telegram.wait_for_sent(ANN, 2)
    # The unanswered message is kept, and goes with the next in one user turn (strict templates want turns).
    assert conversation(model.requests[-1]) == [("user", "are you there?\n\nhello again")]
    assert "Traceback" not in apology["visible_text"]


async def test_a_bad_openai_key_is_not_retried_and_the_user_gets_an_apology(telegram, model, config):
    async with running_bot(replace(config, openai_api_key="sk-wrong")):
        telegram.push_text(ANN, "hi")
        [apology] = await telegram.wait_for_sent(ANN, 1)
    assert "Sorry" in apology["visible_text"]
    assert len(model.requests) == 1


async def test_a_telegram_429_is_waited_out_and_the_message_still_arrives(telegram, model, config):
    telegram.fail_next("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    async with running_bot(config):
        started = time.monotonic()
        telegram.push_text(ANN, "hi")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: hi"
    assert time.monotonic() - started >= 1.0
    attempts = [params for method, params in telegram.calls if method == "sendMessage"]
    assert len(attempts) == 2


async def test_edited_messages_and_unknown_updates_crash_nothing(telegram, model, config):
    async with running_bot(config):
        telegram.push_edited_text(ANN, 1, "edited text")
        chat = {"id": ANN, "type": "private", "first_name": "Ann"}
        telegram.push_update({"message_reaction": {
            "chat": chat, "message_id": 1, "date": int(time.time()),
            "user": {"id": ANN, "is_bot": False, "first_name": "Ann"},
            "old_reaction": [], "new_reaction": [{"type": "emoji", "emoji": "👍"}]}})
        telegram.push_update({"channel_post": {
            "message_id": 5, "date": int(time.time()), "chat": {"id": -100777, "type": "channel", "title": "news"},
            "text": "a channel post"}})
        telegram.push_text(ANN, "still alive?")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: still alive?"
    assert len(model.requests) == 1


async def test_two_users_never_see_each_other(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "my name is Ann and my secret is pineapple")
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(BOB, "hello, who am I?", first_name="Bob")
        [reply] = await telegram.wait_for_sent(BOB, 1)
    bob_request = next(r for r in model.requests if conversation(r)[-1][1] == "hello, who am I?")
    everything_bob_sent = str(bob_request)
    assert "pineapple" not in everything_bob_sent and "Ann" not in everything_bob_sent
    assert conversation(bob_request) == [("user", "hello, who am I?")]
    assert "pineapple" not in reply["visible_text"]


async def ten_users_at_once(telegram, model, config, resolve=resolve_host, wait_s: float = 5.0) -> int:
    """Return how many of ten users' turns the model held at once, each answered only once all ten had arrived
    (or `wait_s` ran out: then some waited for a slot)."""
    everyone = asyncio.Event()
    in_flight, most = 0, 0

    async def held(body: dict) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            await asyncio.wait_for(everyone.wait(), 1.0)
        except TimeoutError:
            pass
        in_flight -= 1
        return f"echo: {body['messages'][-1]['content']}"

    model.reply = held
    users = range(2000, 2010)
    async with running_bot(config, resolve=resolve):
        for user in users:
            telegram.push_text(user, f"hi from {user}")
        with contextlib.suppress(AssertionError):
            await model.wait_for_request(10, timeout=wait_s)
        everyone.set()
        for user in users:
            [reply] = await telegram.wait_for_sent(user, 1)
            assert reply["visible_text"] == f"echo: hi from {user}"
    return most


async def test_ten_users_are_served_concurrently_against_a_slow_model(telegram, model, config):
    assert await ten_users_at_once(telegram, model, config) == 10


async def test_ten_users_of_a_provider_on_the_public_internet_are_served_concurrently_by_default(telegram, model,
                                                                                              config):
    """MODEL_CONCURRENCY unset: the double's host, resolved to a global address, stands for a hosted provider."""

    async def public(host: str) -> list[str]:
        return ["8.8.8.8"]

    assert await ten_users_at_once(telegram, model, replace(config, model_concurrency=None), public) == 10


async def test_ten_users_of_a_server_on_loopback_wait_for_its_one_slot_by_default(telegram, model, config):
    assert await ten_users_at_once(telegram, model, replace(config, model_concurrency=None,
                                                             model_attempt_timeout_s=30.0,
                                                             model_retry_budget_s=60.0), wait_s=0.5) == 1


async def test_a_burst_from_one_user_keeps_its_order(telegram, model, config):
    model.delay = 0.05
    texts = [f"burst {i}" for i in range(12)]
    async with running_bot(config):
        for item in texts:
            telegram.push_text(ANN, item)
        replies = await telegram.wait_for_sent(ANN, len(texts))
    assert [r["visible_text"] for r in replies] == [f"echo: {t}" for t in texts]
    turns = [r for r in model.requests if "response_format" not in r]  # not the memory extraction calls
    assert [conversation(r)[-1][1] for r in turns] == texts
    # each turn saw every earlier message of the burst, in order, with its reply
    last = conversation(turns[-1])
    assert [content for role, content in last if role == "user"] == texts[-10:]


def typing_times(telegram, chat_id: int) -> list[float]:
    return [at for (method, params), at in zip(telegram.calls, telegram.call_times, strict=True)
            if method == "sendChatAction" and params["chat_id"] == chat_id and params["action"] == "typing"]


async def test_typing_shows_once_the_model_has_thought_a_second_and_is_renewed_while_it_thinks(
    telegram, model, config
):
    model.delay = 2.2  # a full second past the first typing: room for three more under a loaded CI machine
    async with running_bot(config):
        pushed = time.monotonic()
        telegram.push_text(ANN, "think hard")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    typing = typing_times(telegram, ANN)
    assert len(typing) >= 3  # from about 1.0 s, every 0.2 s in tests (every 4 s in production)
    assert typing[0] - pushed >= TYPING_AFTER_S and typing[-1] < reply["at"]
    assert len(typing) == sum(1 for method, _ in telegram.calls if method == "sendChatAction")


async def test_a_reply_ready_within_a_second_sends_no_typing(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "quick one")
        await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(TYPING_AFTER_S)  # a typing action the reply outran would have come by now
    assert not any(method == "sendChatAction" for method, _ in telegram.calls)


async def test_slow_replies_to_users_writing_at_once_all_show_typing(telegram, model, config):
    users = [ANN, BOB, *range(2001, 2007)]  # eight turns at once, each answered 1.5 s later
    model.delay = 1.5
    async with running_bot(replace(config, typing_interval_s=1.0)):  # under the rate: eight actions a second
        pushed = time.monotonic()
        for user in users:
            telegram.push_text(user, "a hard question")
        replies = [(await telegram.wait_for_sent(user, 1))[0] for user in users]
    for user, reply in zip(users, replies, strict=True):
        typing = typing_times(telegram, user)
        assert typing, f"no typing for {user}"
        assert pushed + TYPING_AFTER_S <= typing[0] < reply["at"]


async def test_in_a_group_the_bot_answers_only_when_mentioned_or_replied_to(telegram, model, config):
    group = -100500
    async with running_bot(config):
        telegram.push_text(ANN, "just chatting with friends", chat_id=group, chat_type="group")
        telegram.push_text(ANN, f"@{telegram.bot_username} how are you?", chat_id=group, chat_type="group")
        telegram.push_text(BOB, "and what about me", chat_id=group, chat_type="group", reply_to_bot=True,
                           first_name="Bob")
        replies = await telegram.wait_for_sent(group, 2)
        await asyncio.sleep(0.3)
    assert len(telegram.sent_to(group)) == 2
    # The group's own conversation, each member's words marked with their name (memory/scopes.py): a turn that
    # starts while the other's waits for its reply sees both.
    said = {conversation(r)[-1][1].split("\n\n")[-1] for r in model.requests}
    assert said == {"[Ann] how are you?", "[Bob] and what about me"}
    assert {r["visible_text"].removeprefix("echo: ").split("\n\n")[-1] for r in replies} == said
    assert all(r["visible_text"].startswith("echo: [") for r in replies)


async def test_strangers_are_refused_politely_and_nothing_of_theirs_is_kept(telegram, model, config, tmp_path):
    from memory.store.memory_store import Store

    async with running_bot(replace(config, allowed_user_ids=frozenset({ANN}))):
        telegram.push_text(BOB, "my name is Bob, let me in")
        [refusal] = await telegram.wait_for_sent(BOB, 1)
        telegram.push_text(ANN, "hi")
        await telegram.wait_for_sent(ANN, 1)
    assert "private bot" in refusal["visible_text"]
    assert len(model.requests) == 1
    store = await Store.open(config.database_path)
    assert await session(store, BOB, 20) == [] and await store.users.user_name(BOB) is None
    await store.close()


async def test_start_and_help_and_the_command_menu(telegram, model, config):
    async with running_bot(config):
        telegram.push_text(ANN, "/start")
        telegram.push_text(ANN, "/help")
        start, help_ = await telegram.wait_for_sent(ANN, 2)
    assert "/profile" in start["visible_text"] and "/forget" in start["visible_text"]
    assert "/profile" in help_["visible_text"]
    menus = [p for method, p in telegram.calls if method == "setMyCommands"]
    assert {c["command"] for c in menus[0]["commands"]} >= {"start", "help"}
    assert model.requests == []


async def test_a_failing_command_menu_registration_does_not_stop_the_bot(telegram, model, config):
    telegram.fail_next("setMyCommands", 400, "Bad Request: something odd")
    async with running_bot(config):
        telegram.push_text(ANN, "hi")
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: hi"


async def test_an_unexpected_error_is_logged_with_the_update_id_and_the_bot_keeps_going(
    telegram, model, config, caplog
):
    async with running_bot(config) as app:
        companion = app.bot_data.companion
        real_reply = companion.reply

        async def broken_once(*args, **kwargs):
            companion.reply = real_reply
            raise RuntimeError("a bug deep inside")

        companion.reply = broken_once
        update_id = telegram.push_text(ANN, "this one hits a bug")
        [apology] = await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "and this one works")
        await telegram.wait_for_sent(ANN, 2)
    assert apology["visible_text"] == "Sorry, something went wrong on my side. Please try again."
    assert telegram.sent_to(ANN)[1]["visible_text"] == "echo: and this one works"
    [record] = [r for r in caplog.records if r.name == "handlers.error_handler"]
    assert f"update {update_id}" in record.getMessage()
    assert "a bug deep inside" in caplog.text  # the traceback goes to the log, not the chat


async def test_a_redelivered_update_is_answered_once(telegram, model, config):
    async with running_bot(config):
        update_id = telegram.push_text(ANN, "only once, please")
        await telegram.wait_for_sent(ANN, 1)
    # A crash before Telegram saw the new offset: the same update comes again after the restart.
    chat = {"id": ANN, "type": "private", "first_name": "Ann"}
    user = {"id": ANN, "is_bot": False, "first_name": "Ann", "language_code": "en"}
    telegram.push_update({"update_id": update_id, "message": {
        "message_id": 1, "date": int(time.time()), "chat": chat, "from": user, "text": "only once, please"}})
    async with running_bot(config):
        telegram.push_text(ANN, "and this is new")
        await telegram.wait_for_sent(ANN, 2)
        await asyncio.sleep(0.2)
    assert [m["visible_text"] for m in telegram.sent_to(ANN)] == ["echo: only once, please", "echo: and this is new"]
    assert len([r for r in model.requests if "response_format" not in r]) == 2


async def test_the_prompt_keeps_to_prompt_max_tokens_by_sending_fewer_old_messages(telegram, model, config):
    async with running_bot(replace(config, prompt_max_tokens=1300)) as app:
        for i in range(6):
            telegram.push_text(ANN, f"story {i}: " + "and then we walked on " * 40)  # ~220 tokens each
            await telegram.wait_for_sent(ANN, i + 1)
        stored = await session(app.bot_data.store, ANN, 20)
    [*_, last] = [r for r in model.requests if "response_format" not in r]
    system, *sent = last["messages"]
    total = sum(len(m["content"].encode()) // 4 + 1 for m in last["messages"])
    before_reply = stored[:-1]  # the session as it stood when the last request went out
    assert total <= 1300 and 2 <= len(sent) < len(before_reply) == 11
    assert sent == before_reply[-len(sent):] and sent[-1]["content"].startswith("story 5:")


async def test_an_update_the_library_cannot_read_is_skipped_and_the_next_is_answered(telegram, model, config):
    poll = {"id": "1", "question": "?", "options": [], "total_voter_count": 0, "is_closed": False,
            "is_anonymous": True, "type": "regular"}  # lacks fields python-telegram-bot requires
    async with running_bot(config) as app:
        bad = telegram.push_update({"poll": poll})
        telegram.push_text(ANN, "are you still there?")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        assert reply["visible_text"] == "echo: are you still there?"
        assert await app.bot_data.transport.was_handled(bad)
