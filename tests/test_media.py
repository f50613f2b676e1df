"""The pure rules for voice, photos and stickers (services/media.py)."""

import base64
from datetime import timedelta
from pathlib import Path

import pytest

from services.media import (
    MAX_DOWNLOAD_BYTES,
    Size,
    audio_upload_name,
    choose_photo_size,
    image_data_url,
    language_hint,
    seconds,
    session_text,
    session_words,
    sniff_image,
    voice_refusal,
    with_image,
)

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_largest_photo_size_within_1280_is_chosen():
    sizes = [Size("s", 90, 60), Size("m", 320, 213), Size("l", 1280, 853), Size("xl", 2560, 1706)]
    assert choose_photo_size(sizes).file_id == "l"


def test_the_long_side_counts_for_portrait_photos():
    sizes = [Size("a", 853, 1280), Size("b", 1000, 1500), Size("c", 200, 300)]
    assert choose_photo_size(sizes).file_id == "a"


def test_a_photo_with_no_size_within_the_limit_sends_its_smallest():
    assert choose_photo_size([Size("huge", 8000, 6000), Size("big", 4000, 3000)]).file_id == "big"


def test_no_sizes_choose_nothing():
    assert choose_photo_size([]) is None


def test_sizes_in_any_order():
    sizes = [Size("xl", 2560, 1706), Size("s", 90, 60), Size("l", 1280, 853), Size("m", 320, 213)]
    assert choose_photo_size(sizes).file_id == "l"


@pytest.mark.parametrize(
    ("duration", "size", "expected"),
    [
        (2, 10_000, None),
        (300, 10_000, None),  # exactly the limit is fine
        (301, 10_000, "voice_too_long"),
        (None, None, None),  # Telegram did not say: go ahead, the download has its own limit
        (10, MAX_DOWNLOAD_BYTES, None),
        (10, MAX_DOWNLOAD_BYTES + 1, "file_too_big"),
        (900, MAX_DOWNLOAD_BYTES + 1, "file_too_big"),
    ],
)
def test_voice_refusal(duration, size, expected):
    assert voice_refusal(duration, size, 300) == expected


def test_seconds_from_timedelta_number_or_nothing():
    assert seconds(timedelta(minutes=2)) == 120.0
    assert seconds(7) == 7.0
    assert seconds(None) is None


@pytest.mark.parametrize(
    ("kind", "file_name", "mime", "expected"),
    [
        ("voice", None, "audio/ogg", "voice.ogg"),  # never .oga: gpt-4o-mini-transcribe refuses it
        ("video_note", None, None, "video_note.mp4"),
        ("audio", "song.MP3", "audio/mpeg", "audio.mp3"),
        ("audio", "memo.oga", "audio/ogg", "audio.ogg"),
        ("audio", "memo.opus", "audio/opus", "audio.ogg"),
        ("audio", "track.m4a", "audio/mp4", "audio.m4a"),
        ("audio", "weird.xyz", "audio/x-wav", "audio.wav"),
        ("audio", None, "audio/flac", "audio.flac"),
        ("audio", "no_extension", None, "audio.mp3"),
        ("audio", None, None, "audio.mp3"),
        ("audio", "../../etc/passwd", None, "audio.mp3"),  # the user's file name never reaches the server
    ],
)
def test_audio_upload_name(kind, file_name, mime, expected):
    assert audio_upload_name(kind, file_name, mime) == expected


@pytest.mark.parametrize(
    ("code", "expected"),
    [("en", "en"), ("ru", "ru"), ("pt-br", "pt"), ("EN-us", "en"), (None, None), ("", None), ("zh-hans", "zh"),
     ("ast", None), ("1x", None)],
)
def test_language_hint(code, expected):
    assert language_hint(code) == expected


def test_a_real_jpeg_becomes_a_data_url():
    data = (FIXTURES / "photo.jpg").read_bytes()
    url = image_data_url(data)
    assert url.startswith("data:image/jpeg;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == data


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "image/png"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"GIF89a" + b"\x00" * 10, "image/gif"),
        (b"GIF87a" + b"\x00" * 10, "image/gif"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 10, "image/jpeg"),
        (b"", None),
        (b"OggS\x00", None),
        (b"<svg xmlns=...>", None),
        (b"RIFF\x10\x00\x00\x00WAVEfmt ", None),
    ],
)
def test_sniff_image(data, mime):
    assert sniff_image(data) == mime


def test_bytes_that_are_not_an_image_are_refused():
    with pytest.raises(ValueError):
        image_data_url(b"PK\x03\x04 a zip file")
    with pytest.raises(ValueError):
        image_data_url(b"")


@pytest.mark.parametrize(
    ("kind", "words", "kept"),
    [
        ("text", "hello", "hello"),
        ("voice", "what I said", "what I said"),
        ("photo", "my new cat", "[photo] my new cat"),
        ("photo", "", "[photo]"),
        ("sticker", "😂", "[sticker 😂]"),
        ("sticker", "", "[sticker]"),
    ],
)
def test_session_text(kind, words, kept):
    assert session_text(kind, words) == kept
    assert session_words(kind, kept) == words  # what a Try again press answers again


def test_the_image_rides_on_the_last_message_only():
    messages = [
        {"role": "system", "content": "zero"},
        {"role": "user", "content": "[photo] earlier"},
        {"role": "assistant", "content": "nice"},
        {"role": "user", "content": "[photo] my cat"},
    ]
    sent = with_image(messages, "data:image/jpeg;base64,AAAA")
    assert sent[:3] == messages[:3]
    assert sent[3] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "[photo] my cat"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
        ],
    }
    assert messages[3]["content"] == "[photo] my cat"  # the session's copy is not changed
