"""Pure rules for what is not text: which photo size to send, how to name audio, how media sit in the session."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Sequence

from memory.heard import split_quote

# The Bot API's getFile serves files up to 20 MB; a bigger one cannot be downloaded at all.
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
# Images sent as files arrive at full size: past this they are refused, not sent to the model.
MAX_IMAGE_BYTES = 10 * 1024 * 1024
PHOTO_MAX_SIDE = 1280
AUDIO_FORMATS = ("flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "ogg", "wav", "webm")
AUDIO_BY_MIME = {"audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/ogg": "ogg", "audio/opus": "ogg",
                 "audio/x-wav": "wav", "audio/wav": "wav", "audio/flac": "flac", "audio/x-flac": "flac",
                 "audio/mp4": "m4a", "audio/m4a": "m4a", "audio/x-m4a": "m4a", "audio/aac": "m4a",
                 "audio/webm": "webm", "video/mp4": "mp4"}
IMAGE_MIME_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif")


@dataclass(frozen=True)
class Size:
    """One of the sizes Telegram offers for a photo."""

    file_id: str
    width: int
    height: int
    file_size: int | None = None


def choose_photo_size(sizes: Sequence[Size], max_side: int = PHOTO_MAX_SIDE) -> Size | None:
    """Return the largest size whose long side is at most `max_side`, else the smallest there is."""
    if not sizes:
        return None
    fitting = [size for size in sizes if max(size.width, size.height) <= max_side]
    if fitting:
        return max(fitting, key=lambda size: size.width * size.height)
    return min(sizes, key=lambda size: size.width * size.height)


def seconds(value: timedelta | float | None) -> float | None:
    """Return a duration in seconds; python-telegram-bot gives a timedelta or a number."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    return None if value is None else float(value)


def voice_refusal(duration: float | None, file_size: int | None, max_seconds: int) -> str | None:
    """Return why a voice message is refused before it is downloaded (a text key), or None to go ahead."""
    if file_size is not None and file_size > MAX_DOWNLOAD_BYTES:
        return "file_too_big"
    if duration is not None and duration > max_seconds:
        return "voice_too_long"
    return None


def audio_upload_name(kind: str, file_name: str | None, mime_type: str | None) -> str:
    """Return the file name to upload for transcription; its extension tells the server the format.

    Telegram names voice notes `.oga`, which some transcription models refuse: it is Ogg, sent as `.ogg`.
    """
    if kind == "voice":
        return "voice.ogg"
    if kind == "video_note":
        return "video_note.mp4"
    extension = (file_name or "").rpartition(".")[2].lower() if file_name and "." in file_name else ""
    extension = "ogg" if extension in ("oga", "opus") else extension
    if extension not in AUDIO_FORMATS:
        extension = AUDIO_BY_MIME.get((mime_type or "").lower(), "mp3")
    return f"audio.{extension}"


def language_hint(language_code: str | None) -> str | None:
    """Return the ISO 639-1 code of the user's Telegram language ('pt-br' gives 'pt'), or None."""
    base = (language_code or "").split("-")[0].lower()
    return base if re.fullmatch(r"[a-z]{2}", base) else None


def sniff_image(data: bytes) -> str | None:
    """Return the MIME type the bytes' signature shows (JPEG, PNG, WebP, GIF), or None if not an image."""
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    return None


def image_data_url(data: bytes) -> str:
    """Return the image as a base64 data URL for the chat model; raise ValueError if it is not an image."""
    mime = sniff_image(data)
    if mime is None:
        raise ValueError("not a JPEG, PNG, WebP or GIF image")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def session_text(kind: str, words: str) -> str:
    """Return how a message is kept in the session: photos and stickers carry a marker, the rest is its words.

    A photo is kept as its caption (never its bytes) after `[photo]`; a sticker as `[sticker 😂]`.
    """
    if kind == "photo":
        return f"[photo] {words}".strip()
    if kind == "sticker":
        return f"[sticker {words}]" if words else "[sticker]"
    return words


def session_words(kind: str, content: str) -> str:
    """Return the words session_text kept `content` from: the caption of "[photo] …", the emoji of "[sticker 😂]";
    the user's own words of a message kept with a quote."""
    content = split_quote(content)[1]
    if kind == "photo":
        return content.removeprefix("[photo]").strip()
    if kind == "sticker":
        return content.removeprefix("[sticker").removesuffix("]").strip()
    return content


def with_image(messages: list[dict], data_url: str) -> list[dict]:
    """Return the chat messages with the image attached to the last one (the user's message of this turn)."""
    *earlier, last = messages
    parts = [{"type": "text", "text": last["content"]}, {"type": "image_url", "image_url": {"url": data_url}}]
    return [*earlier, {"role": last["role"], "content": parts}]
