"""Talking: text messages go to the companion; other media get a short friendly answer."""

from __future__ import annotations

from telegram import Message, MessageEntity, Update
from telegram.constants import ChatType

from chat.companion import Speaker
from chat.llm import ModelUnavailable
from handlers.context import Context
from handlers.jobs import after_turn, remembered_note
from handlers.replies import send_text, typing_indicator
from handlers.texts import text


def addressed_text(message: Message, bot_username: str, bot_id: int) -> str | None:
    """Return the text meant for the bot: all of it in a private chat; in a group only when mentioned or replied to."""
    content = message.text or ""
    if message.chat.type == ChatType.PRIVATE:
        return content.strip()
    mention = f"@{bot_username}".lower()
    mentioned = any(
        entity.type == MessageEntity.MENTION and message.parse_entity(entity).lower() == mention
        for entity in message.entities
    )
    replied = message.reply_to_message is not None and message.reply_to_message.from_user is not None
    replied = replied and message.reply_to_message.from_user.id == bot_id  # type: ignore[union-attr]
    if not (mentioned or replied):
        return None
    return _strip_mention(content, mention).strip()


def _strip_mention(content: str, mention: str) -> str:
    lowered = content.lower()
    index = lowered.find(mention)
    while index != -1:
        content = content[:index] + content[index + len(mention) :]
        lowered = content.lower()
        index = lowered.find(mention)
    return content


async def on_text(update: Update, context: Context) -> None:
    """Answer a text message through the companion, with the typing indicator on meanwhile."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    content = addressed_text(message, context.bot.username, context.bot.id)
    if content is None:
        return
    if not content:
        await message.reply_text(text("empty", user.language_code))
        return
    services = context.bot_data
    speaker = Speaker(user.id, user.first_name, user.language_code)
    async with typing_indicator(context.bot, message.chat_id, services.config.typing_interval_s):
        try:
            answer = await services.companion.reply(speaker, content, update.update_id)
        except ModelUnavailable:
            await send_text(context.bot, message.chat_id, text("model_down", user.language_code))
            return
    if answer is not None:
        reply = answer.text
        if answer.notify and answer.learned:
            reply += "\n\n" + remembered_note(answer.learned, user.language_code)
        await send_text(context.bot, message.chat_id, reply)
        after_turn(services, context.job_queue, user.id, answer.unread, bool(answer.learned))


MEDIA_KINDS = (
    ("sticker", "sticker"),
    ("photo", "photo"),
    ("voice", "voice"),
    ("audio", "voice"),
    ("video_note", "voice"),
    ("document", "file"),
)


async def on_media(update: Update, context: Context) -> None:
    """Answer a sticker, photo, voice message or file with a short line; the model never sees it."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    if message.chat.type != ChatType.PRIVATE and addressed_text(message, context.bot.username, context.bot.id) is None:
        return
    kind = next((reply for field, reply in MEDIA_KINDS if getattr(message, field, None)), "other")
    await message.reply_text(text(kind, user.language_code))
