"""End to end: lines of a reply that repeat system message zero never reach the user or the session."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.harness import make_config, running_bot, session

ANN, GROUP = 1001, -100500
ANSWER = "Привет, Анна! Как прошёл твой день?"


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_interval_s=0.2)


def echoed_lines(body: dict) -> list[str]:
    """Return what a small model copies of the request's system message zero: the persona's opening, the name
    line with its heading, the clock with its heading."""
    lines = body["messages"][0]["content"].split("\n")
    name = next(index for index, line in enumerate(lines) if line.startswith("Their name:"))
    clock = next(index for index, line in enumerate(lines) if line.startswith("It is "))
    return [lines[0], "", lines[name - 1], lines[name], "", lines[clock - 1], lines[clock]]


def echo(body: dict) -> str:
    return "\n".join(echoed_lines(body))


def echo_then_answer(body: dict) -> str:
    return f"{echo(body)}\n\n{ANSWER}"


@pytest.mark.parametrize("where", [{}, {"chat_id": GROUP, "chat_type": "group"}], ids=["private", "group"])
async def test_an_echo_before_the_answer_is_cut_from_what_is_sent_and_stored(telegram, model, config, caplog,
                                                                               where):
    model.reply = echo_then_answer
    chat = where.get("chat_id", ANN)
    mention = f"@{telegram.bot_username} " if where else ""
    caplog.set_level(logging.INFO, logger="services.companion")
    async with running_bot(config) as app:
        telegram.push_text(ANN, f"{mention}Привет! Меня зовут Анна.", **where)
        [reply] = await telegram.wait_for_sent(chat, 1)
        model.reply = lambda body: "Хорошо."
        telegram.push_text(ANN, f"{mention}как дела?", **where)
        await telegram.wait_for_sent(chat, 2)
        # In a group the session is her memory there (memory/scopes.py).
        key = await app.bot_data.store.scopes.known_member(ANN, GROUP) if where else ANN
        history = await session(app.bot_data.store, key)
    assert reply["visible_text"] == ANSWER
    assert [m["content"] for m in model.requests[-1]["messages"][1:] if m["role"] == "assistant"] == [ANSWER]
    assert [m["content"] for m in history if m["role"] == "assistant"] == [ANSWER, "Хорошо."]
    [logged] = [r.getMessage() for r in caplog.records if "system message zero" in r.getMessage()]
    assert logged.startswith("removed 5 line(s)")
    assert "Анна" not in logged and "It is" not in logged


async def test_drafts_never_show_the_echo(telegram, model, config):
    # An answer long enough to be shown as drafts several times (0.2 s apart) after the echo.
    answer = f"{ANSWER} Я помню, ты собиралась в выходные за город, к друзьям на дачу. Получилось выбраться?"
    model.reply = lambda body: f"{echo(body)}\n\n{answer}"
    # 4 characters every 20 ms: the echo alone takes over a second, so drafts would show it; the answer, 0.5 s
    model.stream_first_delay, model.stream_chunk_chars, model.stream_chunk_interval = 0.05, 4, 0.02
    async with running_bot(config):
        telegram.push_text(ANN, "Привет! Меня зовут Анна.")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        await asyncio.sleep(0.3)  # a draft still on its way would land now
    drafts = [draft["visible_text"] for draft in telegram.drafts_to(ANN)]
    assert reply["visible_text"] == answer
    assert drafts and all(answer.startswith(draft) for draft in drafts)  # not a piece of the echo


async def test_an_answer_that_is_only_the_echo_is_asked_for_once_more(telegram, model, config, caplog):
    model.reply = lambda body: echo(body) if len(model.requests) == 1 else ANSWER
    caplog.set_level(logging.INFO, logger="services.companion")
    async with running_bot(config) as app:
        telegram.push_text(ANN, "Привет! Меня зовут Анна.")
        [reply] = await telegram.wait_for_sent(ANN, 1)
        history = await session(app.bot_data.store, ANN)
    assert reply["visible_text"] == ANSWER
    first, second = model.requests
    assert first["messages"] == second["messages"]  # the same prompt, asked again
    assert history[-1] == {"role": "assistant", "content": ANSWER}
    assert [r.getMessage() for r in caplog.records if "system message zero" in r.getMessage()] == [
        "removed 5 line(s) repeating system message zero from a reply"]


async def test_two_answers_that_are_only_the_echo_get_the_apology_with_try_again(telegram, model, config):
    model.reply = echo
    async with running_bot(config) as app:
        telegram.push_text(ANN, "Привет! Меня зовут Анна.")
        [apology] = await telegram.wait_for_sent(ANN, 1)
        history = await session(app.bot_data.store, ANN)
        assert len(model.requests) == 2
        model.reply = lambda body: ANSWER
        [[button]] = apology["reply_markup"]["inline_keyboard"]
        telegram.push_callback(ANN, button["callback_data"], apology["message_id"])
        [_, reply] = await telegram.wait_for_sent(ANN, 2)
    assert apology["visible_text"].startswith("Sorry") and button["text"] == "Try again"
    assert history == [{"role": "user", "content": "Привет! Меня зовут Анна."}]  # no echo was kept
    assert reply["visible_text"] == ANSWER
