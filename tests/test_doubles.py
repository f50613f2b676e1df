"""The network doubles are as strict as the real services, checked through the real clients."""

from __future__ import annotations

import asyncio
import datetime as dtm
import math
import time

import openai
import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict, InvalidToken, RetryAfter

from tests.doubles.openai_api import trigram_embedding
from tests.doubles.telegram_markup import ParseError, parse_html, parse_markdown_v2

ANN, GROUP = 1001, -100500


@pytest.fixture
def tg(telegram):
    return telegram


@pytest.fixture
async def bot(tg):
    async with Bot(tg.token, base_url=tg.base_url) as client:
        yield client


@pytest.fixture
def oai(model):
    return model


@pytest.fixture
async def client(oai):
    async with openai.AsyncOpenAI(base_url=oai.base_url, api_key="sk-test", max_retries=0) as c:
        yield c


# ----- Telegram -----

async def test_get_me_answers_with_the_bot_user(tg, bot):
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (tg.bot_id, "companion_test_bot", True)
    assert me.can_join_groups is True


async def test_a_wrong_token_is_unauthorized(tg):
    with pytest.raises(InvalidToken):
        async with Bot("999:WRONG", base_url=tg.base_url):
            pass
    assert tg.calls[-1][0] == "getMe"


async def test_an_unknown_chat_is_not_found(tg, bot):
    with pytest.raises(BadRequest, match="(?i)chat not found"):
        await bot.send_message(42, "hello")


async def test_text_length_is_counted_in_utf16_after_parsing(tg, bot):
    tg.push_text(ANN, "hi")
    await bot.send_message(ANN, "x" * 4096)
    await bot.send_message(ANN, "😀" * 2048)
    await bot.send_message(ANN, "<b>" + "y" * 4096 + "</b>", parse_mode="HTML")
    for text in ("x" * 5000, "😀" * 2049):
        with pytest.raises(BadRequest, match="(?i)message is too long"):
            await bot.send_message(ANN, text)
    assert len(tg.sent_to(ANN)) == 3


async def test_empty_text_is_rejected(tg, bot):
    tg.push_text(ANN, "hi")
    for text, mode in (("", None), ("  \n", None), ("<b></b>", "HTML")):
        with pytest.raises(BadRequest, match="(?i)message text is empty"):
            await bot.send_message(ANN, text, parse_mode=mode)


@pytest.mark.parametrize("text", ["1 < 2", "<foo>x</foo>", "<b>bold", "<b><i>x</b></i>",
                                  "AT&T", "&nbsp;", "<span>x</span>", "</b>"])
async def test_broken_html_cannot_be_parsed(tg, bot, text):
    tg.push_text(ANN, "hi")
    with pytest.raises(BadRequest, match="(?i)can't parse entities") as caught:
        await bot.send_message(ANN, text, parse_mode="HTML")
    assert "byte offset" in str(caught.value)
    assert tg.sent == [] and tg.calls[-1][1]["text"] == text


async def test_valid_html_is_accepted_and_its_visible_text_recorded(tg, bot):
    tg.push_text(ANN, "hi")
    html = ('<b>Hi</b> &amp; <i>you</i> <a href="https://e.com/?a=1&amp;b=2">link</a>\n'
            '<pre><code class="language-python">x = 1 &lt; 2</code></pre><tg-spoiler>s</tg-spoiler>')
    message = await bot.send_message(ANN, html, parse_mode="HTML")
    visible = "Hi & you link\nx = 1 < 2s"
    assert message.text == visible and tg.sent[-1]["visible_text"] == visible
    assert tg.sent[-1]["text"] == html and tg.sent[-1]["chat_id"] == ANN
    kinds = {e.type: e for e in message.entities}
    assert kinds["text_link"].url == "https://e.com/?a=1&b=2"
    assert kinds["pre"].language == "python"


async def test_markdown_v2_needs_escapes_and_closed_entities(tg, bot):
    tg.push_text(ANN, "hi")
    message = await bot.send_message(ANN, r"*Hi* there\. 1\+1", parse_mode="MarkdownV2")
    assert message.text == "Hi there. 1+1"
    for text in ("Hello.", "*bold", "a (b)"):
        with pytest.raises(BadRequest, match="(?i)can't parse entities"):
            await bot.send_message(ANN, text, parse_mode="MarkdownV2")
    assert (await bot.send_message(ANN, "1 < 2 & *x*")).text == "1 < 2 & *x*"


async def test_a_429_with_retry_after_raises_retry_after(tg, bot, monkeypatch):
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    tg.push_text(ANN, "hi")
    tg.fail_next("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(ANN, "first")
    assert caught.value.retry_after == dtm.timedelta(seconds=1)
    await bot.send_message(ANN, "second")
    assert [p["text"] for m, p in tg.calls if m == "sendMessage"] == ["first", "second"]
    assert [m["visible_text"] for m in tg.sent] == ["second"]


async def test_get_updates_long_polls_and_confirms_by_offset(tg, bot):
    update_id = tg.push_text(ANN, "hello", username="ann")
    [update] = await bot.get_updates(timeout=1)
    assert update.update_id == update_id and update.message.text == "hello"
    assert update.effective_user.username == "ann" and update.effective_chat.type == "private"
    started = time.monotonic()
    assert await bot.get_updates(offset=update_id + 1, timeout=1) == ()
    assert time.monotonic() - started >= 0.9


async def test_a_push_wakes_a_waiting_long_poll(tg, bot):
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await tg.wait_for_call("getUpdates")
    started = time.monotonic()
    tg.push_text(ANN, "/start")
    [update] = await poll
    assert time.monotonic() - started < 1.0
    assert update.message.entities[0].type == "bot_command"


async def test_a_second_poller_terminates_the_first(tg, bot):
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await tg.wait_for_call("getUpdates")
    async with Bot(tg.token, base_url=tg.base_url) as other:
        await other.get_updates(timeout=0)
    with pytest.raises(Conflict, match="terminated by other getUpdates"):
        await poll


async def test_media_edits_callbacks_and_groups_parse_in_ptb(tg, bot):
    tg.push_message(ANN, {"sticker": tg.sticker("😀")})
    tg.push_message(ANN, {"photo": tg.photo(), "caption": "look"})
    tg.push_message(ANN, {"voice": tg.voice(3), "document": tg.document("a.pdf")})
    tg.push_edited_text(ANN, 1, "edited")
    tg.push_text(ANN, f"@{tg.bot_username} hi", chat_id=GROUP, chat_type="group")
    tg.push_text(ANN, "and you?", chat_id=GROUP, chat_type="group", reply_to_bot=True)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Yes", callback_data="yes")]])
    sent = await bot.send_message(ANN, "Sure?", reply_markup=keyboard)
    tg.push_callback(ANN, "yes", sent.message_id)
    updates = await bot.get_updates(timeout=1)
    sticker, photo, voice, edited, mention, reply, callback = updates
    assert sticker.message.sticker.emoji == "😀" and photo.message.photo[-1].width == 800
    assert voice.message.voice.file_id and voice.message.document.file_name == "a.pdf"
    assert edited.edited_message.text == "edited"
    assert mention.message.entities[0].type == "mention" and mention.message.chat.id == GROUP
    assert reply.message.reply_to_message.from_user.id == tg.bot_id
    assert callback.callback_query.data == "yes"
    assert callback.callback_query.message.message_id == sent.message_id
    assert await bot.answer_callback_query(callback.callback_query.id) is True
    with pytest.raises(BadRequest, match="(?i)query is too old"):
        await bot.answer_callback_query(callback.callback_query.id)


async def test_edit_and_delete_follow_the_message_state(tg, bot):
    tg.push_text(ANN, "hi")
    sent = await bot.send_message(ANN, "one")
    with pytest.raises(BadRequest, match="(?i)not modified"):
        await bot.edit_message_text("one", ANN, sent.message_id)
    edited = await bot.edit_message_text("<i>two</i>", ANN, sent.message_id, parse_mode="HTML")
    assert edited.text == "two" and tg.message(ANN, sent.message_id)["text"] == "two"
    with pytest.raises(BadRequest, match="(?i)can't be edited"):
        await bot.edit_message_text("x", ANN, 1)
    assert await bot.delete_message(ANN, sent.message_id) is True
    with pytest.raises(BadRequest, match="(?i)message to delete not found"):
        await bot.delete_message(ANN, sent.message_id)


async def test_documents_commands_actions_and_buttons(tg, bot):
    tg.push_text(ANN, "hi")
    message = await bot.send_document(ANN, b"hello", filename="notes.txt",
                                      caption="<b>notes</b>", parse_mode="HTML")
    assert message.document.file_name == "notes.txt" and message.caption == "notes"
    assert tg.documents[-1]["document"]["content"] == b"hello"
    assert await bot.set_my_commands([BotCommand("start", "Start"), BotCommand("help", "Help")])
    assert [c["command"] for c in tg.commands] == ["start", "help"]
    with pytest.raises(BadRequest):
        await bot.set_my_commands([BotCommand("Start!", "Bad")])
    assert await bot.send_chat_action(ANN, "typing") is True
    with pytest.raises(BadRequest):
        await bot.send_chat_action(ANN, "dancing")
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="d" * 65)]])
    with pytest.raises(BadRequest, match="(?i)button_data_invalid"):
        await bot.send_message(ANN, "pick", reply_markup=too_long)


async def test_webhook_and_polling_exclude_each_other(tg, bot):
    with pytest.raises(BadRequest, match="(?i)https url"):
        await bot.set_webhook("http://example.com/hook")
    assert await bot.set_webhook("https://example.com/hook", secret_token="s3cret")
    assert (await bot.get_webhook_info()).url == "https://example.com/hook"
    assert tg.webhook_secret == "s3cret"
    with pytest.raises(Conflict):
        await bot.get_updates()
    tg.push_text(ANN, "pending")
    assert await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates() == ()


async def test_wait_for_sent_reports_what_was_sent(tg, bot):
    tg.push_text(ANN, "hi")
    await bot.send_message(ANN, "only one")
    assert len(await tg.wait_for_sent(ANN, 1, timeout=0.1)) == 1
    with pytest.raises(AssertionError, match="only one"):
        await tg.wait_for_sent(ANN, 2, timeout=0.1)


def test_markup_parsers_report_byte_offsets():
    assert parse_html("😀 <b>x</b>") == ("😀 x", [{"type": "bold", "offset": 3, "length": 1}])
    with pytest.raises(ParseError, match="byte offset 5"):
        parse_html("😀 < x")
    assert parse_markdown_v2("__u__ ||s|| `a.b`")[0] == "u s a.b"
    with pytest.raises(ParseError, match="Can't find end of Italic entity"):
        parse_markdown_v2("_open")


# ----- OpenAI -----

def chat(text: str = "hi", **kwargs):
    return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}], **kwargs}


async def test_a_completion_returns_the_reply_and_is_recorded(oai, client):
    completion = await client.chat.completions.create(**chat("hello"))
    assert completion.choices[0].message.content == "echo: hello"
    assert completion.choices[0].finish_reason == "stop"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (2, 3)
    assert completion.usage.total_tokens == 5
    assert oai.requests == [chat("hello")]

    async def slow_reply(body):
        await asyncio.sleep(0)
        return '{"ok": true}'
    oai.reply = slow_reply
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    answer = await client.chat.completions.create(**chat(response_format=fmt))
    assert answer.choices[0].message.content == '{"ok": true}'


async def test_a_wrong_key_is_an_authentication_error(oai):
    async with openai.AsyncOpenAI(base_url=oai.base_url, api_key="sk-wrong", max_retries=0) as c:
        with pytest.raises(openai.AuthenticationError) as caught:
            await c.chat.completions.create(**chat())
    assert caught.value.code == "invalid_api_key"


async def test_injected_failures_and_outages(oai, client):
    oai.fail_next(500)
    with pytest.raises(openai.InternalServerError):
        await client.chat.completions.create(**chat())
    oai.fail_next(429, retry_after=2)
    with pytest.raises(openai.RateLimitError) as caught:
        await client.chat.completions.create(**chat())
    assert caught.value.response.headers["retry-after"] == "2"
    oai.fail_always(503)
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            await client.chat.completions.create(**chat())
    oai.recover()
    assert (await client.chat.completions.create(**chat())).choices[0].message.content
    assert len(oai.requests) == 5


async def test_invalid_bodies_are_bad_requests(oai, client):
    bad = [chat(messages=[]), chat(messages=[{"role": "robot", "content": "x"}]),
           chat(messages=[{"role": "user"}]), chat(temperature=3),
           chat(response_format={"type": "json_object"})]
    for body in bad:
        with pytest.raises(openai.BadRequestError):
            await client.chat.completions.create(**body)
    oai.reject_json_schema = True
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}
    with pytest.raises(openai.BadRequestError, match="json_schema"):
        await client.chat.completions.create(**chat(response_format=fmt))


async def test_a_hang_times_out_and_a_delay_is_waited(oai):
    oai.hang_next()
    async with openai.AsyncOpenAI(base_url=oai.base_url, api_key="sk-test", max_retries=0,
                                  timeout=0.5) as c:
        with pytest.raises(openai.APITimeoutError):
            await c.chat.completions.create(**chat())
    async with openai.AsyncOpenAI(base_url=oai.base_url, api_key="sk-test", max_retries=0) as c:
        oai.delay = 0.3
        started = time.monotonic()
        await c.chat.completions.create(**chat())
        assert time.monotonic() - started >= 0.3
    assert len(await oai.wait_for_request(2, timeout=0.1)) == 2


async def test_streaming_and_length_limits(oai, client):
    oai.reply = lambda body: "a fairly long answer " * 5
    stream = await client.chat.completions.create(
        **chat(stream=True, stream_options={"include_usage": True}))
    parts = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    assert "".join(parts) == "a fairly long answer " * 5
    short = await client.chat.completions.create(**chat(max_tokens=2))
    assert short.choices[0].finish_reason == "length"
    assert short.choices[0].message.content == ("a fairly long answer " * 5)[:8]


async def test_embeddings_are_deterministic_unit_vectors(oai, client):
    first = await client.embeddings.create(model="text-embedding-3-small",
                                           input=["I love cats", "I love cats!", "tax forms"])
    again = await client.embeddings.create(model="text-embedding-3-small", input="I love cats",
                                           encoding_format="float")
    cats, cats2, tax = (d.embedding for d in first.data)
    assert len(cats) == 64 and again.data[0].embedding == trigram_embedding("I love cats")
    assert cats == pytest.approx(again.data[0].embedding, abs=1e-6)
    assert math.isclose(sum(v * v for v in cats), 1.0, rel_tol=1e-5)
    dot = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))  # noqa: E731
    assert dot(cats, cats2) > dot(cats, tax)
    oai.fail_next(503, endpoint="embeddings")
    with pytest.raises(openai.InternalServerError):
        await client.embeddings.create(model="m", input="x")
    with pytest.raises(openai.BadRequestError):
        await client.embeddings.create(model="m", input="")
    assert len(oai.embedding_requests) == 4


async def test_models_lists_one_model(client):
    models = [m.id async for m in client.models.list()]
    assert models == ["gpt-4o-mini"]
