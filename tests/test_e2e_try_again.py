"""A model outage leaves the door open: the apology's Try again button answers the same message once."""

from __future__ import annotations

import pytest

from tests.harness import make_config, running_bot, session

ANN, BOB = 1001, 1002
GROUP = -100500


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db")


def button_of(message: dict) -> str:
    [[button]] = message["reply_markup"]["inline_keyboard"]
    assert button["text"] == "Try again"
    return button["callback_data"]


async def outage_apology(telegram, model, user_id: int = ANN, text: str = "are you there?", **where) -> dict:
    model.fail_always(503)
    telegram.push_text(user_id, text, **where)
    chat = where.get("chat_id", user_id)
    apology = (await telegram.wait_for_sent(chat, len(telegram.sent_to(chat)) + 1))[-1]
    assert apology["visible_text"].startswith("Sorry")
    model.recover()
    return apology


async def test_try_again_answers_the_same_message_once_and_a_second_press_does_nothing(telegram, model, config):
    async with running_bot(config) as app:
        apology = await outage_apology(telegram, model)
        calls = len(model.requests)
        telegram.push_callback(ANN, button_of(apology), apology["message_id"])
        [_, reply] = await telegram.wait_for_sent(ANN, 2)
        telegram.push_callback(ANN, button_of(apology), apology["message_id"])  # pressed again
        answers = await telegram.wait_for_call("answerCallbackQuery", 2)
        history = await session(app.bot_data.store, ANN)
    assert reply["visible_text"] == "echo: are you there?"
    assert len(model.requests) == calls + 1  # one model call for the press, none for the second
    assert answers[-1].get("text") == "This button has expired."
    assert len(telegram.sent_to(ANN)) == 2
    assert history == [{"role": "user", "content": "are you there?"},
                       {"role": "assistant", "content": "echo: are you there?"}]
    [removed] = [p for m, p in telegram.calls if m == "editMessageReplyMarkup"]
    assert removed["message_id"] == apology["message_id"]


async def test_another_users_press_is_refused_and_changes_nothing(telegram, model, config):
    async with running_bot(config) as app:
        apology = await outage_apology(telegram, model, chat_id=GROUP, chat_type="supergroup",
                                       text="@companion_test_bot are you there?")
        calls = len(model.requests)
        telegram.push_callback(BOB, button_of(apology), apology["message_id"], chat_id=GROUP)
        [answer] = await telegram.wait_for_call("answerCallbackQuery", 1)
        assert answer.get("text") == "This button has expired." and len(model.requests) == calls
        telegram.push_callback(ANN, button_of(apology), apology["message_id"], chat_id=GROUP)  # its author
        replies = await telegram.wait_for_sent(GROUP, 2)
        store = app.bot_data.store
        assert await store.turns.last_unanswered(await store.scopes.known_member(ANN, GROUP)) is None
    assert replies[-1]["visible_text"] == "echo: [Ann] are you there?"  # the group's words, marked whose


async def test_a_message_written_since_makes_the_old_button_stale(telegram, model, config):
    async with running_bot(config):
        apology = await outage_apology(telegram, model)
        telegram.push_text(ANN, "hello again")  # answered with the first, in one user turn
        await telegram.wait_for_sent(ANN, 2)
        calls = len(model.requests)
        telegram.push_callback(ANN, button_of(apology), apology["message_id"])
        [answer] = await telegram.wait_for_call("answerCallbackQuery", 1)
    assert answer.get("text") == "This button has expired." and len(model.requests) == calls
    assert len(telegram.sent_to(ANN)) == 2


async def test_a_press_while_the_model_is_still_down_brings_a_new_apology_and_loses_nothing(telegram, model,
                                                                                          config):
    async with running_bot(config) as app:
        apology = await outage_apology(telegram, model)
        model.fail_always(503)
        telegram.push_callback(ANN, button_of(apology), apology["message_id"])
        [_, second] = await telegram.wait_for_sent(ANN, 2)
        model.recover()
        telegram.push_callback(ANN, button_of(second), second["message_id"])
        [*_, reply] = await telegram.wait_for_sent(ANN, 3)
        history = await session(app.bot_data.store, ANN)
    assert second["visible_text"].startswith("Sorry") and button_of(second) == button_of(apology)
    assert reply["visible_text"] == "echo: are you there?"
    assert [message["content"] for message in history] == ["are you there?", "echo: are you there?"]
