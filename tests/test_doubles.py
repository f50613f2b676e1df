"""The network doubles are as strict as the real services, checked through the real clients."""

from __future__ import annotations

import asyncio
import base64
import datetime as dtm
import math
import re
import time
from pathlib import Path

import httpx
import openai
import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict, InvalidToken, NetworkError, RetryAfter

from tests.doubles.openai_api import data_url_image, image_parts, ogg_crc, trigram_embedding
from tests.doubles.telegram_markup import ParseError, parse_html, parse_markdown_v2

ANN, GROUP = 1001, -100500
FIXTURES = Path(__file__).parent / "fixtures"
VOICE, PHOTO = (FIXTURES / "voice.ogg").read_bytes(), (FIXTURES / "photo.jpg").read_bytes()


@pytest.fixture
def tg(telegram):
    return telegram


@pytest.fixture
async def bot(tg):
    async with Bot(tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url) as client:
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


async def test_files_are_fetched_by_get_file_and_downloaded(tg, bot):
    voice = tg.voice(4, content=VOICE)
    photo = tg.photo(content=PHOTO)
    music = tg.audio(content=b"ID3" + bytes(40), file_name="song.flac")
    note, doc = tg.video_note(content=b"mp4"), tg.document("a.PDF", content=b"%PDF")
    tg.push_message(ANN, {"voice": voice})
    [update] = await bot.get_updates(timeout=1)
    assert update.message.voice.file_size == len(VOICE)
    file = await bot.get_file(update.message.voice.file_id)
    path = file.file_path.removeprefix(tg.base_file_url + tg.token + "/")
    assert re.fullmatch(r"voice/file_\d+\.oga", path)
    assert file.file_size == len(VOICE) and file.file_unique_id == voice["file_unique_id"]
    assert await file.download_as_bytearray() == bytearray(VOICE)
    assert tg.downloads == [path]
    assert (await bot.get_file(voice["file_id"])).file_path == file.file_path
    assert await (await bot.get_file(photo[-1]["file_id"])).download_as_bytearray() == PHOTO
    paths = [(await bot.get_file(item["file_id"])).file_path for item in (music, note, doc)]
    assert [re.sub(r".*/(\w+)/file_\d+", r"\1", p) for p in paths] == [
        "music.flac", "video_notes.mp4", "documents.PDF"]
    with pytest.raises(BadRequest, match="(?i)invalid file_id"):
        await bot.get_file(photo[0]["file_id"])  # the thumbnail was pushed without bytes


async def test_vanished_huge_and_unknown_files_are_refused(tg, bot):
    voice = tg.voice(content=VOICE)
    file = await bot.get_file(voice["file_id"])
    tg.forget_file(voice["file_id"])
    with pytest.raises(BadRequest, match="(?i)invalid file_id"):
        await bot.get_file(voice["file_id"])
    with pytest.raises(InvalidToken, match="Not Found"):  # PTB maps every 404 to InvalidToken
        await file.download_as_bytearray()
    huge = tg.voice(content=VOICE, file_size=25 * 1024 * 1024)
    assert huge["file_size"] == 25 * 1024 * 1024
    with pytest.raises(BadRequest, match="(?i)file is too big"):
        await bot.get_file(huge["file_id"])
    with pytest.raises(BadRequest, match="(?i)invalid file_id"):
        await bot.get_file("NO-SUCH-FILE")
    tg.fail_next("download", 502, "Bad Gateway")
    fresh = await bot.get_file(tg.voice(content=VOICE)["file_id"])
    with pytest.raises(NetworkError):
        await fresh.download_as_bytearray()
    assert tg.downloads == []
    path = fresh.file_path.removeprefix(tg.base_file_url + tg.token + "/")
    async with httpx.AsyncClient() as http:
        wrong = await http.get(f"{tg.base_file_url}999:WRONG/{path}")
        right = await http.get(f"{tg.base_file_url}{tg.token}/{path}")
    assert (wrong.status_code, wrong.json()["description"]) == (401, "Unauthorized")
    assert right.content == VOICE and right.headers["content-type"] == "application/octet-stream"
    assert tg.downloads == [path]


async def test_drafts_are_checked_and_recorded(tg, bot):
    tg.push_text(ANN, "hi")
    tg.push_text(ANN, "hi all", chat_id=GROUP, chat_type="group")
    assert await bot.send_message_draft(ANN, 5, "partial") is True
    assert await bot.send_message_draft(ANN, 5) is True
    assert await bot.send_message_draft(ANN, 5, "<b>part</b>ial", parse_mode="HTML") is True
    drafts = await tg.wait_for_draft(ANN, 3, timeout=0.1)
    assert [d["visible_text"] for d in drafts] == ["partial", "", "partial"]
    assert drafts[0]["draft_id"] == 5 and drafts[0]["at"] <= drafts[1]["at"]
    refusals = [((GROUP, 5, "x"), "TEXTDRAFT_PEER_INVALID"), ((ANN, 0, "x"), "DRAFT_ID_INVALID"),
                ((ANN, 5, "x" * 5000), "message is too long"), ((42, 5, "x"), "chat not found")]
    for args, match in refusals:
        with pytest.raises(BadRequest, match=f"(?i){match}"):
            await bot.send_message_draft(*args)
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        await bot.send_message_draft(ANN, 5, "<b>open", parse_mode="HTML")
    sent = await bot.send_message(ANN, "done")
    assert tg.sent[-1]["at"] >= drafts[-1]["at"] and sent.text == "done"
    tg.refuse_drafts()
    with pytest.raises(BadRequest, match="(?i)method not found"):
        await bot.send_message_draft(ANN, 6, "later")
    assert len(tg.drafts_to(ANN)) == 3 and tg.drafts_to(GROUP) == []
    assert [m for m, _ in tg.calls].count("sendMessageDraft") == 9
    with pytest.raises(AssertionError, match="partial"):
        await tg.wait_for_draft(ANN, 4, timeout=0.1)


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


def transcribe(client, filename: str, content: bytes, model: str = "gpt-4o-mini-transcribe",
               **kwargs):
    return client.audio.transcriptions.create(model=model, file=(filename, content), **kwargs)


def test_ogg_crc_matches_the_pages_of_a_real_voice_note():
    assert ogg_crc(b"") == 0 and ogg_crc(b"OggS") != ogg_crc(b"OggT")
    first_page = VOICE[:VOICE.index(b"OggS", 4)]
    stored = int.from_bytes(first_page[22:26], "little")
    assert ogg_crc(first_page[:22] + bytes(4) + first_page[26:]) == stored


async def test_a_voice_note_is_transcribed_and_recorded(oai, client):
    result = await transcribe(client, "voice.ogg", VOICE, language="en", prompt="Anna")
    assert result.text == "transcribed speech"
    [record] = await oai.wait_for_request(endpoint="transcriptions", timeout=0.1)
    assert (record["model"], record["filename"], record["language"]) == (
        "gpt-4o-mini-transcribe", "voice.ogg", "en")
    assert record["prompt"] == "Anna" and record["content"] == VOICE
    assert record["size"] == len(VOICE) and record["response_format"] is None
    oai.transcript = lambda r: f"{r['filename']} of {r['size']} bytes"
    text = await transcribe(client, "voice.ogg", VOICE, response_format="text")
    assert text == f"voice.ogg of {len(VOICE)} bytes"
    with pytest.raises(openai.BadRequestError) as caught:
        await transcribe(client, "voice.ogg", VOICE, language="english")
    assert caught.value.body["param"] == "language"


async def test_oga_is_refused_by_gpt_4o_models_only(oai, client):
    with pytest.raises(openai.BadRequestError, match="Invalid file format") as caught:
        await transcribe(client, "voice.oga", VOICE)
    assert caught.value.body["param"] == "file"
    assert (await transcribe(client, "voice.oga", VOICE, model="whisper-1")).text
    with pytest.raises(openai.BadRequestError, match="Invalid file format"):
        await transcribe(client, "voice.opus", VOICE, model="whisper-1")


async def test_corrupt_truncated_and_empty_audio_is_refused(oai, client):
    middle = len(VOICE) // 2
    flipped = VOICE[:middle] + bytes([VOICE[middle] ^ 0x55]) + VOICE[middle + 1:]
    bad = [("voice.ogg", flipped), ("voice.ogg", VOICE[:middle]), ("voice.ogg", b""),
           ("voice.mp3", VOICE), ("voice.wav", b"RIFF" + bytes(40))]
    for filename, content in bad:
        with pytest.raises(openai.BadRequestError, match="corrupted or unsupported") as caught:
            await transcribe(client, filename, content)
        assert caught.value.code == "invalid_value" and caught.value.body["param"] == "file"
    good = [("a.mp3", b"ID3" + bytes(20)), ("a.mp3", b"\xff\xfb" + bytes(20)),
            ("a.m4a", bytes(4) + b"ftypM4A "), ("a.wav", b"RIFF" + bytes(4) + b"WAVEfmt "),
            ("a.flac", b"fLaC" + bytes(8)), ("a.webm", b"\x1a\x45\xdf\xa3" + bytes(8))]
    for filename, content in good:
        assert (await transcribe(client, filename, content)).text == "transcribed speech"
    assert len(oai.transcription_requests) == len(bad) + len(good)


async def test_transcription_failures_hangs_and_missing_endpoint(oai, client):
    oai.fail_next(503, endpoint="transcriptions")
    with pytest.raises(openai.InternalServerError):
        await transcribe(client, "voice.ogg", VOICE)
    oai.hang_next(endpoint="transcriptions")
    with pytest.raises(openai.APITimeoutError):
        await transcribe(client, "voice.ogg", VOICE, timeout=0.3)
    oai.transcriptions_supported = False
    with pytest.raises(openai.NotFoundError) as caught:
        await transcribe(client, "voice.ogg", VOICE)
    assert caught.value.response.text == "404 page not found"
    assert len(await oai.wait_for_request(3, endpoint="transcriptions", timeout=0.1)) == 3


def photo_message(url: str, role: str = "user", **image) -> dict:
    content = [{"type": "text", "text": "what is this?"},
               {"type": "image_url", "image_url": {"url": url, **image}}]
    return {"role": role, "content": content}


async def test_images_must_be_valid_data_urls_in_user_messages(oai, client):
    photo_url = "data:image/jpeg;base64," + base64.b64encode(PHOTO).decode()
    messages = [{"role": "system", "content": "be kind"}, photo_message(photo_url, detail="low")]
    answer = await client.chat.completions.create(model="gpt-4o-mini", messages=messages)
    assert answer.choices[0].message.content == "echo: what is this?"
    [part] = image_parts(oai.requests[-1])
    assert data_url_image(part["image_url"]["url"]) == PHOTO
    await client.chat.completions.create(**chat(messages=[photo_message("https://e.com/a.png")]))
    garbage = ["data:image/jpeg;base64,bm90IGFuIGltYWdl", "data:image/png;base64," +
               base64.b64encode(PHOTO).decode(), "data:image/jpeg;base64,%%%",
               "http://e.com/a.jpg", "data:image/bmp;base64,Qk0="]
    for url in garbage:
        with pytest.raises(openai.BadRequestError, match="Invalid image") as caught:
            await client.chat.completions.create(**chat(messages=[messages[0], photo_message(url)]))
        assert caught.value.code == "invalid_image_format"
        assert caught.value.body["param"] == "messages.[1].content.[1].image_url"
    with pytest.raises(openai.BadRequestError, match="role 'assistant'"):
        await client.chat.completions.create(
            **chat(messages=[photo_message(photo_url, role="assistant")]))
    with pytest.raises(openai.BadRequestError, match="'huge'") as caught:
        await client.chat.completions.create(
            **chat(messages=[photo_message(photo_url, detail="huge")]))
    assert caught.value.body["param"] == "messages.[0].content.[1].image_url.detail"


async def test_a_text_only_model_rejects_images(oai, client):
    oai.reject_images = True
    photo_url = "data:image/jpeg;base64," + base64.b64encode(PHOTO).decode()
    with pytest.raises(openai.BadRequestError, match="image_url is only supported") as caught:
        await client.chat.completions.create(**chat(messages=[photo_message(photo_url)]))
    assert caught.value.body["param"] == "messages.[0].content.[1].type"
    assert (await client.chat.completions.create(**chat("plain"))).choices[0].message.content
    assert [len(image_parts(body)) for body in oai.requests] == [1, 0]


async def test_streams_are_paced(oai, client):
    oai.reply = lambda body: "0123456789" * 4
    oai.stream_first_delay, oai.stream_chunk_chars, oai.stream_chunk_interval = 0.3, 4, 0.02
    started = time.monotonic()
    stream = await client.chat.completions.create(**chat(stream=True))
    arrivals, parts = [], []
    async for chunk in stream:
        if chunk.choices[0].delta.content:
            arrivals.append(time.monotonic() - started)
            parts.append(chunk.choices[0].delta.content)
    assert parts == ["0123", "4567", "8901", "2345", "6789"] * 2
    assert arrivals[0] >= 0.3 and arrivals[-1] - arrivals[0] >= 9 * 0.02 * 0.5


async def test_a_stream_cut_by_abort_raises_while_iterating(oai, client):
    oai.reply = lambda body: "x" * 100
    oai.cut_stream_next(2)
    assert (await client.chat.completions.create(**chat())).choices[0].message.content
    stream = await client.chat.completions.create(**chat(stream=True))
    received = []
    with pytest.raises(openai.APIConnectionError) as caught:
        async for chunk in stream:
            received.append(chunk.choices[0].delta.content)
    assert isinstance(caught.value.__cause__, Exception)
    assert "incomplete chunked read" in str(caught.value.__cause__)
    assert received == ["", "x" * 16, "x" * 16]
    again = await client.chat.completions.create(**chat(stream=True))
    assert "".join([c.choices[0].delta.content or "" async for c in again]) == "x" * 100


async def test_a_stream_cut_by_eof_ends_without_finish_reason(oai, client):
    oai.cut_stream_next(1, mode="eof", times=2)
    for _ in range(2):
        stream = await client.chat.completions.create(**chat("hello there", stream=True))
        chunks = [chunk async for chunk in stream]
        assert [c.choices[0].delta.content for c in chunks] == ["", "echo: hello ther"]
        assert all(c.choices[0].finish_reason is None for c in chunks)
    whole = [chunk async for chunk in await client.chat.completions.create(**chat(stream=True))]
    assert whole[-1].choices[0].finish_reason == "stop"
    with pytest.raises(ValueError):
        oai.cut_stream_next(1, mode="later")


async def test_speech_answers_ogg_opus_and_is_strict_like_openai(oai, client):
    spoken = await client.audio.speech.create(model="tts-1", voice="alloy", input="Hello!", response_format="opus")
    assert spoken.content == VOICE and spoken.content[:4] == b"OggS"
    [record] = await oai.wait_for_request(endpoint="speech", timeout=0.1)
    assert (record["model"], record["voice"], record["input"], record["response_format"]) == (
        "tts-1", "alloy", "Hello!", "opus")
    assert (await client.audio.speech.create(model="tts-1", voice="alloy", input="Hi")).content[:3] == b"ID3"
    with pytest.raises(openai.BadRequestError, match="maximum length 4096") as caught:
        await client.audio.speech.create(model="tts-1", voice="alloy", input="x" * 4097)
    assert caught.value.body["param"] == "input"
    assert (await client.audio.speech.create(model="tts-1", voice="alloy", input="x" * 4096)).content
    for missing in ("model", "voice", "input"):
        body = {"model": "tts-1", "voice": "alloy", "input": "Hi"}
        del body[missing]
        with pytest.raises(openai.BadRequestError, match=f"'{missing}'"):
            await client.post("/audio/speech", body=body, cast_to=httpx.Response)
    with pytest.raises(openai.BadRequestError, match="Invalid value"):
        await client.post("/audio/speech", body={"model": "tts-1", "voice": "alloy", "input": "Hi",
                                                 "response_format": "ogg"}, cast_to=httpx.Response)
    assert len(oai.speech_requests) == 8


async def test_speech_fails_hangs_and_is_missing_on_demand(oai, client):
    oai.fail_next(500, endpoint="speech")
    with pytest.raises(openai.InternalServerError):
        await client.audio.speech.create(model="tts-1", voice="alloy", input="Hi")
    oai.hang_next(endpoint="speech")
    with pytest.raises(openai.APITimeoutError):
        await client.with_options(timeout=0.2).audio.speech.create(model="tts-1", voice="alloy", input="Hi")
    oai.speech_supported = False
    with pytest.raises(openai.NotFoundError):
        await client.audio.speech.create(model="tts-1", voice="alloy", input="Hi")
    assert len(oai.speech_requests) == 3


async def test_send_voice_takes_ogg_opus_only_and_checks_its_caption(tg, bot):
    tg.push_text(ANN, "hi")
    message = await bot.send_voice(ANN, VOICE, filename="reply.ogg", caption="<b>said</b>", parse_mode="HTML")
    assert message.voice is not None and message.caption == "said"
    [sent] = tg.voices_to(ANN)
    assert sent["content"] == VOICE and sent["visible_caption"] == "said"
    with pytest.raises(BadRequest, match="(?i)voice_file_invalid"):
        await bot.send_voice(ANN, b"ID3" + bytes(100), filename="reply.mp3")
    with pytest.raises(BadRequest, match="(?i)voice_file_invalid"):
        await bot.send_voice(ANN, VOICE.replace(b"OpusHead", b"OpusHeat"), filename="reply.ogg")
    with pytest.raises(BadRequest, match="caption is too long"):
        await bot.send_voice(ANN, VOICE, filename="reply.ogg", caption="x" * 1025)
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        await bot.send_voice(ANN, VOICE, filename="reply.ogg", caption="<b>open", parse_mode="HTML")
    again = await bot.send_voice(ANN, message.voice.file_id)
    assert again.voice is not None and len(tg.voices_to(ANN)) == 2
    assert await bot.send_chat_action(ANN, "record_voice") is True
