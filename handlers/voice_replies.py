"""/voice, the user's choice of spoken replies, and the voice notes that follow a reply's text."""

from __future__ import annotations

import logging
import re

from telegram import Bot, Update
from telegram.constants import ChatAction, ChatType
from telegram.error import TelegramError

from handlers.context import Context
from handlers.texts import text
from services.speech import VOICE_CHOICES, SpokenReplies
from transport.replies import keyboard, own_button, typing_indicator
from transport.sending import SendPostponed

log = logging.getLogger(__name__)
VOICE_BUTTON = re.compile(r"vc:(off|on|auto)")
# What /voice takes besides VOICE_CHOICES: the words a user may type for them.
CHOICE_WORDS = {"off": "off", "on": "on", "auto": "auto", "always": "on", "never": "off", "voice": "auto",
                "выкл": "off", "вкл": "on", "авто": "auto", "всегда": "on", "никогда": "off", "голос": "auto"}


def voice_buttons(language: str | None, chosen: str) -> list[list[tuple[str, str]]]:
    """Return /voice's buttons, one per choice, the chosen one marked."""
    return [[(("✓ " if choice == chosen else "") + text(f"voice_choice_{choice}", language), f"vc:{choice}")]
            for choice in VOICE_CHOICES]


async def voice_command(update: Update, context: Context) -> None:
    """/voice: say when replies are spoken, with a button per choice; /voice on|off|auto chooses at once."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, spoken = user.language_code, context.bot_data.spoken
    if message.chat.type != ChatType.PRIVATE:
        await message.reply_text(text("voice_private_only", language))
        return
    if spoken is None:
        await message.reply_text(text("voice_not_configured", language))
        return
    argument = " ".join(context.args or []).strip().lower()
    chosen = CHOICE_WORDS.get(argument)
    if argument and chosen is None:
        await message.reply_text(text("voice_usage", language))
        return
    if chosen is not None:
        await spoken.choose(user.id, chosen)
    else:
        chosen = await spoken.choice(user.id)
    await message.reply_text(_voice_status(chosen, language, spoken.available),
                             reply_markup=keyboard(voice_buttons(language, chosen)))


async def voice_button(update: Update, context: Context) -> None:
    """Keep the choice whose button was pressed, and redraw /voice's message with it."""
    query = update.callback_query
    if query is None:
        return
    language, spoken = query.from_user.language_code, context.bot_data.spoken
    pressed = VOICE_BUTTON.fullmatch(query.data or "")
    if spoken is None or pressed is None or not own_button(query):
        await query.answer(text("button_expired", language))
        return
    chosen = pressed[1]
    await spoken.choose(query.from_user.id, chosen)
    await query.answer()
    try:
        await query.edit_message_text(_voice_status(chosen, language, spoken.available),
                                      reply_markup=keyboard(voice_buttons(language, chosen)))
    except TelegramError as error:  # the same choice pressed again: "message is not modified"
        log.debug("/voice's message was not redrawn: %s", error)


def _voice_status(chosen: str, language: str | None, available: bool) -> str:
    status = text("voice_status", language, choice=text(f"voice_choice_{chosen}", language))
    return status if available else status + "\n" + text("voice_unavailable_now", language)


async def speak_reply(
    bot: Bot, spoken: SpokenReplies | None, chat_id: int, user_id: int, reply: str, *, spoke: bool,
    interval: float,
) -> None:
    """Send the reply, whose text is already in the chat, as voice notes too when the user's choice asks for it
    (`spoke`: they sent a voice message); "recording voice…" shows meanwhile. A failure leaves the text alone."""
    if spoken is None or not reply.strip() or not await spoken.wanted(user_id, spoke):
        return
    try:  # at once, not after a second as "typing…" does: a synthesis takes seconds, and the text is already read
        await bot.send_chat_action(chat_id, ChatAction.RECORD_VOICE)
    except TelegramError as error:
        log.debug("the recording indicator failed: %s", error)
    async with typing_indicator(bot, chat_id, interval, after=interval, action=ChatAction.RECORD_VOICE):
        async for audio in spoken.voice_notes(user_id, reply):
            try:
                await bot.send_voice(chat_id, audio, filename="reply.ogg")
            except SendPostponed:  # Telegram is down: the update is handled again later, as for any other send
                raise
            except TelegramError as error:
                log.warning("Telegram did not take a spoken reply: %s", error)
                return
