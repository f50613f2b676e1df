"""End to end: voice notes, photos and stickers through the real Application, against the doubles."""

from __future__ import annotations

import base64
import json
import logging
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from memory.store.memory_store import Store
from tests.doubles.openai_api import image_parts
from tests.harness import make_config, running_bot

ANN, BOB, GROUP = 1001, 1002, -100500
FIXTURES = Path(__file__).parent / "fixtures"
VOICE = (FIXTURES / "voice.ogg").read_bytes()
JPEG = (FIXTURES / "photo.jpg").read_bytes()


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_replies=False)


def rows(path: Path, query: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(query, args).fetchall()


def database_bytes(path: Path) -> bytes:
    """The database file and its write-ahead log, as they lie on disk."""
    return b"".join(file.read_bytes() for file in (path, Path(f"{path}-wal")) if file.exists())


def chat_requests(model) -> list[dict]:
    """The turns' completions: not extraction, not the one-token probe of whether images are seen."""
    return [r for r in model.requests if "response_format" not in r and r.get("max_tokens") != 1]


def probe_requests(model) -> list[dict]:
    return [r for r in model.requests if r.get("max_tokens") == 1]


def last_user_content(request: dict):
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


# ----- voice -----

async def test_a_voice_note_is_transcribed_stored_as_theirs_learned_from_and_answered(telegram, model, config):
    model.transcript = "Hi! My name is Anna and I live in Berlin."
    async with running_bot(config):
        telegram.push_message(ANN, {"voice": telegram.voice(3, content=VOICE)})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: Hi! My name is Anna and I live in Berlin."
    [heard] = model.transcription_requests
    assert (heard["model"], heard["filename"], heard["language"]) == ("whisper-1", "voice.ogg", "en")
    assert heard["content"] == VOICE
    assert last_user_content(chat_requests(model)[0]) == model.transcript
    assert 'Their name: "Anna"' in chat_requests(model)[0]["messages"][0]["content"]  # the rules heard it
    db = config.database_path
    assert rows(db, "SELECT role, kind, content FROM messages ORDER BY id") == [
        ("user", "voice", model.transcript), ("assistant", "text", reply["visible_text"])]
    assert {(k, v) for k, v in rows(db, "SELECT key, value FROM facts")} >= {("name", "Anna"), ("city", "Berlin")}
    store = await Store.open(db)
    exported = await store.accounts.export_user(ANN)
    await store.close()
    assert exported["messages"][0]["kind"] == "voice"


async def test_a_secret_said_aloud_is_masked_before_it_is_stored_or_sent(telegram, model, config):
    model.transcript = "my card number is 4111 1111 1111 1111"
    async with running_bot(config):
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        await telegram.wait_for_sent(ANN, 1)
    assert "4111 1111 1111 1111" not in json.dumps(model.requests)
    assert "4111" not in json.dumps(rows(config.database_path, "SELECT content FROM messages"))


async def test_audio_files_and_video_notes_are_heard_too(telegram, model, config):
    model.transcript = lambda request: f"heard {request['filename']}"
    async with running_bot(config):
        telegram.push_message(ANN, {"audio": telegram.audio(content=b"ID3" + bytes(200), file_name="memo.mp3",
                                                            mime_type="audio/mpeg")})
        telegram.push_message(ANN, {"video_note": telegram.video_note(content=bytes(4) + b"ftypisom" + bytes(100))})
        replies = await telegram.wait_for_sent(ANN, 2)
    assert [r["visible_text"] for r in replies] == ["echo: heard audio.mp3", "echo: heard video_note.mp4"]


async def test_a_transcription_model_that_refuses_oga_gets_ogg(telegram, model, config):
    async with running_bot(replace(config, transcription_model="gpt-4o-mini-transcribe")):
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: transcribed speech"


async def test_in_a_group_a_voice_note_counts_only_as_a_reply_to_the_bot(telegram, model, config):
    model.transcript = "what do you think"
    async with running_bot(config):
        telegram.push_text(ANN, f"@{telegram.bot_username} hello", chat_id=GROUP, chat_type="group")
        await telegram.wait_for_sent(GROUP, 1)
        telegram.push_message(BOB, {"voice": telegram.voice(content=VOICE)}, chat_id=GROUP, chat_type="group")
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)}, chat_id=GROUP, chat_type="group",
                              reply_to_bot=True)
        replies = await telegram.wait_for_sent(GROUP, 2)
    assert replies[1]["visible_text"] == "echo: [Ann] what do you think"  # the group's words, marked whose
    assert len(model.transcription_requests) == 1  # Bob's note was not for the bot: not even downloaded


async def test_an_empty_transcript_gets_i_couldnt_make_anything_out(telegram, model, config):
    model.transcript = "   "
    async with running_bot(config):
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert "couldn't make anything out" in reply["visible_text"]
    assert chat_requests(model) == []
    assert rows(config.database_path, "SELECT COUNT(*) FROM messages") == [(0,)]


async def test_a_server_without_transcription_gets_a_friendly_answer_each_time_and_one_warning(
    telegram, model, config, caplog
):
    model.transcriptions_supported = False
    caplog.set_level(logging.WARNING)
    async with running_bot(config):
        for _ in range(2):
            telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        telegram.push_text(ANN, "typed instead")
        replies = await telegram.wait_for_sent(ANN, 3)
    assert ["voice messages" in r["visible_text"] for r in replies[:2]] == [True, True]
    assert replies[2]["visible_text"] == "echo: typed instead"
    assert len(model.transcription_requests) == 1  # asked once; the second note is answered without asking
    warnings = [r for r in caplog.records if "cannot transcribe" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelname == "WARNING"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_empty_transcription_model_turns_voice_off(telegram, model, config):
    async with running_bot(replace(config, transcription_model="")):
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert "voice messages" in reply["visible_text"]
    assert telegram.downloads == [] and model.transcription_requests == []


async def test_a_voice_turn_resumed_after_a_crash_is_not_transcribed_again(telegram, model, config):
    model.transcript = "I passed my exam today"
    model.fail_next(401)  # the chat model refuses once: the turn stops after the transcript is stored
    async with running_bot(config):
        update_id = telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        update = json.loads(json.dumps(telegram._updates[-1]))
        await telegram.wait_for_sent(ANN, 1)  # the apology
    assert rows(config.database_path, "SELECT kind, content FROM messages") == [("voice", "I passed my exam today")]
    # What a SIGKILL during the completion leaves: the update recorded but not handled, the transcript stored.
    with sqlite3.connect(config.database_path) as db:
        db.execute(
            "UPDATE inbox SET handled_at = NULL, payload = ? WHERE update_id = ?", (json.dumps(update), update_id)
        )
    async with running_bot(config):
        [_, reply] = await telegram.wait_for_sent(ANN, 2)
    assert reply["visible_text"] == "echo: I passed my exam today"
    assert len(model.transcription_requests) == 1
    assert rows(config.database_path, "SELECT role, kind FROM messages ORDER BY id") == [
        ("user", "voice"), ("assistant", "text")]


# ----- bad voice input: one clear line, nothing stored, the next message works -----

def corrupt(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]


@pytest.mark.parametrize(
    ("voice_fields", "expected", "transcribed"),
    [
        ({"content": corrupt(VOICE)}, "damaged", True),
        ({"content": VOICE[: len(VOICE) // 3]}, "damaged", True),
        ({"content": b""}, "damaged", False),
        ({"content": VOICE, "duration": 301}, "too long", False),
        ({"content": VOICE, "file_size": 25 * 1024 * 1024}, "too big", False),
    ],
    ids=["corrupt", "truncated", "zero-byte", "too-long", "over-20-MB"],
)
async def test_bad_audio_gets_one_clear_line_and_nothing_half_stored(
    telegram, model, config, voice_fields, expected, transcribed
):
    duration = voice_fields.pop("duration", 2)
    async with running_bot(config):
        telegram.push_message(ANN, {"voice": telegram.voice(duration, **voice_fields)})
        telegram.push_text(ANN, "still there?")
        replies = await telegram.wait_for_sent(ANN, 2)
    assert expected in replies[0]["visible_text"] and "Traceback" not in replies[0]["visible_text"]
    assert replies[1]["visible_text"] == "echo: still there?"
    assert bool(model.transcription_requests) == transcribed
    assert rows(config.database_path, "SELECT kind, content FROM messages WHERE role = 'user'") == [
        ("text", "still there?")]


async def test_a_file_that_vanished_gets_a_clear_line(telegram, model, config):
    voice = telegram.voice(content=VOICE)
    telegram.forget_file(voice["file_id"])
    async with running_bot(config):
        telegram.push_message(ANN, {"voice": voice})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert "send it again" in reply["visible_text"]
    assert model.transcription_requests == []


async def test_a_transcription_that_times_out_gets_a_clear_line_and_the_next_works(telegram, model, config):
    model.hang_next(endpoint="transcriptions")
    async with running_bot(replace(config, transcription_timeout_s=0.5)):
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        telegram.push_message(ANN, {"voice": telegram.voice(content=VOICE)})
        replies = await telegram.wait_for_sent(ANN, 2)
    assert "couldn't listen" in replies[0]["visible_text"]
    assert replies[1]["visible_text"] == "echo: transcribed speech"
    assert rows(config.database_path, "SELECT COUNT(*) FROM messages WHERE role = 'user'") == [(1,)]


# ----- photos -----

async def test_a_photo_with_a_caption_reaches_the_model_and_only_the_caption_is_kept(telegram, model, config):
    sizes = [{"width": 90, "height": 60}, {"width": 1280, "height": 853}, {"width": 2560, "height": 1706}]
    photo = telegram._fill_media("photo", sizes, [None, JPEG, b"\xff\xd8\xff" + bytes(50)])
    async with running_bot(config):
        telegram.push_message(ANN, {"photo": photo, "caption": "this is my cat Murka"})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    [request] = chat_requests(model)
    [part] = image_parts(request)
    assert part["image_url"]["url"] == "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    # Found out once whether the model sees pictures: the same words with it and without, one token each.
    [without, seen] = probe_requests(model)
    assert image_parts(without) == [] and image_parts(seen) == [part]
    assert last_user_content(request)[0] == {"type": "text", "text": "[photo] this is my cat Murka"}
    assert telegram.downloads == [telegram.downloads[0]] and len(telegram.downloads) == 1  # the 1280 px one
    assert reply["visible_text"] == "echo: [photo] this is my cat Murka"
    assert rows(config.database_path, "SELECT kind, content FROM messages WHERE role = 'user'") == [
        ("photo", "[photo] this is my cat Murka")]
    raw = database_bytes(config.database_path)
    assert JPEG[100:140] not in raw and base64.b64encode(JPEG)[100:140] not in raw


async def test_an_image_is_sent_with_its_own_turn_only(telegram, model, config):
    async with running_bot(config):
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "look"})
        await telegram.wait_for_sent(ANN, 1)
        telegram.push_text(ANN, "and now words")
        await telegram.wait_for_sent(ANN, 2)
    first, second = chat_requests(model)
    assert len(image_parts(first)) == 1 and image_parts(second) == []
    assert [m["content"] for m in second["messages"][1:]][0] == "[photo] look"


async def test_facts_come_from_the_caption_never_from_the_image(telegram, model, config):
    model.reply = lambda body: "I can see you live in Paris and have a dog named Rex!"
    async with running_bot(replace(config, memory_extract_delay_s=0.2)):
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "меня зовут Анна"},
                              language_code="ru")
        await telegram.wait_for_sent(ANN, 1)
    facts = dict(rows(config.database_path, "SELECT key, value FROM facts"))
    assert facts.get("name") == "Анна"
    assert "Paris" not in json.dumps(facts, ensure_ascii=False) and "Rex" not in json.dumps(facts)


async def test_an_image_sent_as_a_file_goes_to_the_model_and_other_files_get_a_short_answer(telegram, model, config):
    async with running_bot(config):
        telegram.push_message(ANN, {"document": telegram.document("cat.jpg", "image/jpeg", content=JPEG)})
        telegram.push_message(ANN, {"document": telegram.document("notes.pdf", "application/pdf", content=b"%PDF")})
        replies = await telegram.wait_for_sent(ANN, 2)
    assert len(image_parts(chat_requests(model)[0])) == 1
    assert "files like this" in replies[1]["visible_text"]
    assert len(chat_requests(model)) == 1


async def test_a_server_that_refuses_images_is_answered_from_the_caption_and_asked_no_more(
    telegram, model, config, caplog
):
    model.reject_images = True
    caplog.set_level(logging.WARNING)
    async with running_bot(config):
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "my garden"})
        first = (await telegram.wait_for_sent(ANN, 1))[0]
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "and my house"})
        second = (await telegram.wait_for_sent(ANN, 2))[1]
    assert first["visible_text"].startswith("echo: [photo] my garden")
    assert "went by your words" in first["visible_text"] and "went by your words" in second["visible_text"]
    # The probe found out: its picture was refused, so no turn sends one.
    assert [len(image_parts(probe)) for probe in probe_requests(model)] == [0, 1]
    first_turn, later = chat_requests(model)
    assert image_parts(first_turn) == [] and image_parts(later) == []
    assert len(telegram.downloads) == 1  # the second photo was not even downloaded
    assert len([r for r in caplog.records if "does not see them" in r.getMessage()]) == 1


async def test_a_turn_refused_with_its_photo_is_answered_without_it_and_images_stop(telegram, model, config, caplog):
    model.reject_images = True
    async with running_bot(config) as app:
        app.bot_data.model.features.images = True  # as if a probe had passed: the real turn is what is refused
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "my garden"})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    with_image, without = chat_requests(model)
    assert len(image_parts(with_image)) == 1 and image_parts(without) == [] and probe_requests(model) == []
    assert "went by your words" in reply["visible_text"] and app.bot_data.model.features.images is False


async def test_vision_off_sends_no_image(telegram, model, config):
    async with running_bot(replace(config, vision=False)):
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "sunset"})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert image_parts(chat_requests(model)[0]) == [] and telegram.downloads == []
    assert reply["visible_text"].startswith("echo: [photo] sunset")


@pytest.mark.parametrize(
    ("photo_fields", "expected"),
    [
        ({"content": b"this is not a picture at all"}, "couldn't open that picture"),
        ({"content": JPEG, "file_size": 25 * 1024 * 1024}, "too big"),
    ],
    ids=["not-an-image", "huge"],
)
async def test_a_bad_photo_gets_one_clear_line_and_the_next_message_works(
    telegram, model, config, photo_fields, expected
):
    async with running_bot(config):
        telegram.push_message(ANN, {"photo": telegram.photo(**photo_fields), "caption": "look"})
        telegram.push_text(ANN, "hello?")
        replies = await telegram.wait_for_sent(ANN, 2)
    assert expected in replies[0]["visible_text"]
    assert replies[1]["visible_text"] == "echo: hello?"
    assert rows(config.database_path, "SELECT content FROM messages WHERE role = 'user'") == [("hello?",)]


# ----- stickers -----

async def test_a_stickers_emoji_reaches_the_model_as_their_message(telegram, model, config):
    async with running_bot(config):
        telegram.push_message(ANN, {"sticker": telegram.sticker("😂")})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert last_user_content(chat_requests(model)[0]) == "[sticker 😂]"
    assert reply["visible_text"] == "echo: [sticker 😂]"
    assert rows(config.database_path, "SELECT kind, content FROM messages WHERE role = 'user'") == [
        ("sticker", "[sticker 😂]")]


async def test_other_kinds_of_message_get_a_short_answer_and_never_reach_the_model(telegram, model, config):
    async with running_bot(config):
        telegram.push_message(ANN, {"location": {"latitude": 55.75, "longitude": 37.62}})
        [reply] = await telegram.wait_for_sent(ANN, 1)
    assert "voice, photos and stickers" in reply["visible_text"]
    assert model.requests == []
