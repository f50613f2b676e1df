"""Voice notes, photos and stickers: turned into the user's words (and, for photos, an image) for the companion."""

from __future__ import annotations

import logging

from telegram import Audio, Message, Update, VideoNote, Voice
from telegram.error import BadRequest, TelegramError

from handlers.context import Context
from handlers.senders import speaker_of
from handlers.talk import addressed_text, converse
from handlers.texts import text
from services.limits import VOICE_UNHEARD
from services.media import (
    MAX_DOWNLOAD_BYTES,
    MAX_IMAGE_BYTES,
    Size,
    audio_upload_name,
    choose_photo_size,
    image_data_url,
    language_hint,
    seconds,
    voice_refusal,
)
from services.transcriber import TranscriptionError
from services.voice import Listener
from transport.replies import typing_indicator

log = logging.getLogger(__name__)
DOWNLOAD_TIMEOUT_S = 60.0


class FileUnavailable(Exception):
    """Telegram would not give the file (it vanished, or is too big for the Bot API); `reason` is a text key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def download(
    context: Context, file_id: str, limit: int = MAX_DOWNLOAD_BYTES, too_big: str = "file_too_big"
) -> bytes:
    """Return the file's bytes through getFile and the file URL, or raise FileUnavailable.

    A file over `limit` bytes is refused with the reason `too_big`, before the download when Telegram
    tells its size.
    """
    try:
        file = await context.bot.get_file(file_id)
        if file.file_size is not None and file.file_size > limit:
            raise FileUnavailable(too_big)
        data = bytes(await file.download_as_bytearray(read_timeout=DOWNLOAD_TIMEOUT_S))
    except BadRequest as error:
        log.info("Telegram would not give a file: %s", error)
        raise FileUnavailable("file_too_big" if "too big" in str(error).lower() else "file_gone") from error
    except TelegramError as error:
        log.warning("downloading a file failed: %s", error)
        raise FileUnavailable("file_gone") from error
    if len(data) > limit:
        raise FileUnavailable(too_big)
    return data


def addressed(update: Update, context: Context) -> tuple[Message, str] | None:
    """Return the message and its caption if it is meant for the bot (private chat, mention or reply)."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return None
    caption = addressed_text(message, context.bot.username, context.bot.id)
    return None if caption is None else (message, caption)


async def on_voice(update: Update, context: Context) -> None:
    """Transcribe a voice note, audio file or video note and answer the words as if they were typed."""
    found = addressed(update, context)
    if found is None:
        return
    message, language = found[0], update.effective_user.language_code  # type: ignore[union-attr]
    kind, audio = _recording(message)
    config, listener = context.bot_data.config, context.bot_data.listener
    if listener is None or not listener.transcriber.available:
        await message.reply_text(text("voice" if listener is None else "voice_unsupported", language))
        return
    refusal = voice_refusal(seconds(audio.duration), audio.file_size, config.voice_max_seconds)
    if refusal:
        await message.reply_text(text(refusal, language, minutes=str(max(1, config.voice_max_seconds // 60))))
        return
    if await listener.used_up(speaker_of(message, update.effective_user).id):  # type: ignore[arg-type]
        # Not transcribed, but kept in its place: the user learns why once a day, and nothing else is lost.
        await converse(update, context, VOICE_UNHEARD, kind="voice", over_limit="voice_seconds")
        return
    try:
        async with typing_indicator(context.bot, message.chat_id, config.typing_interval_s):
            words = await _words(update, context, listener, kind, audio)
    except (FileUnavailable, TranscriptionError) as error:
        log.info("a voice message was not transcribed: %s", error.reason)
        await message.reply_text(text(error.reason, language))
        return
    if not words.strip():
        await message.reply_text(text("inaudible", language))
        return
    await converse(update, context, words, kind="voice")


def _recording(message: Message) -> tuple[str, Voice | VideoNote | Audio]:
    """Return the kind of recording ('voice', 'video_note' or 'audio') and the recording itself."""
    if message.voice:
        return "voice", message.voice
    if message.video_note:
        return "video_note", message.video_note
    assert message.audio is not None
    return "audio", message.audio


async def _words(
    update: Update, context: Context, listener: Listener, kind: str, audio: Voice | VideoNote | Audio
) -> str:
    """Return what the voice message says (the listener transcribes it, or finds it stored after a crash)."""
    user, message = update.effective_user, update.effective_message
    assert user is not None and message is not None
    name = audio_upload_name(kind, getattr(audio, "file_name", None), getattr(audio, "mime_type", None))
    return await listener.words(
        speaker_of(message, user).id, update.update_id, lambda: download(context, audio.file_id), name,
        language_hint(user.language_code), seconds(audio.duration),
    )


async def on_photo(update: Update, context: Context) -> None:
    """Answer a photo (or an image sent as a file): the image goes to the model with this turn, the caption is kept."""
    found = addressed(update, context)
    if found is None:
        return
    message, caption = found
    user = update.effective_user
    assert user is not None
    services = context.bot_data
    image = None
    if services.companion.sees_images:
        try:
            data = await download(context, _picture(message), MAX_IMAGE_BYTES, "image_too_big")
            image = image_data_url(data)
        except FileUnavailable as error:
            await message.reply_text(text(error.reason, user.language_code))
            return
        except ValueError:
            log.info("a photo could not be read as an image")
            await message.reply_text(text("photo_unreadable", user.language_code))
            return
    await converse(update, context, caption, kind="photo", image=image)


def _picture(message: Message) -> str:
    """Return the file id of the picture to send: the photo's size that fits, or the image file."""
    if message.photo:
        chosen = choose_photo_size([Size(p.file_id, p.width, p.height, p.file_size) for p in message.photo])
        assert chosen is not None
        return chosen.file_id
    assert message.document is not None
    if message.document.file_size is not None and message.document.file_size > MAX_IMAGE_BYTES:
        raise FileUnavailable("image_too_big")
    return message.document.file_id


async def on_sticker(update: Update, context: Context) -> None:
    """Answer a sticker: its emoji reaches the model as the user's message."""
    found = addressed(update, context)
    if found is None or found[0].sticker is None:
        return
    await converse(update, context, found[0].sticker.emoji or "", kind="sticker")


async def on_other(update: Update, context: Context) -> None:
    """Answer any other file (video, document, location…) with a short line; the model never sees it."""
    found = addressed(update, context)
    if found is None:
        return
    message = found[0]
    language = update.effective_user.language_code if update.effective_user else None
    await message.reply_text(text("file" if message.document else "other", language))
