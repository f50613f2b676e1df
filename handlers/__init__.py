"""Telegram-facing code only: parse the update, call the service, reply."""

from __future__ import annotations

import operator
from functools import reduce

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from handlers.access import refuse_strangers
from handlers.commands import help_command, private_only, start
from handlers.error_handler import on_error
from handlers.forget_commands import FORGET_ALL, FORGET_CANCEL, FORGET_MATCHING, forget, forget_answer, forget_button
from handlers.import_file import import_button, on_export_file
from handlers.media_messages import on_other, on_photo, on_sticker, on_voice
from handlers.notes import undo_button
from handlers.persona_commands import persona_button, persona_command
from handlers.privacy import export, memory_command, profile, profile_button, stale_button
from handlers.reminder_commands import reminder_button, reminders_command
from handlers.settings import checkins_command, timezone_command
from handlers.talk import on_edit, on_text, try_again
from handlers.usage_commands import stats_command, usage_command
from handlers.voice_replies import voice_button, voice_command
from handlers.why_commands import why_button, why_command
from services.media import IMAGE_MIME_TYPES

# A forward is someone else's words: its "/forget" is no command of the user's, only context to answer.
PASSED_ON = filters.FORWARDED | filters.IS_AUTOMATIC_FORWARD
NEW_MESSAGES = filters.UpdateType.MESSAGE
COMMANDS = NEW_MESSAGES & ~PASSED_ON
EDITS = filters.UpdateType.EDITED_MESSAGE & (filters.TEXT | filters.CAPTION) & ~filters.COMMAND
PRIVATE = COMMANDS & filters.ChatType.PRIVATE
VOICE = filters.VOICE | filters.AUDIO | filters.VIDEO_NOTE
# Photos, and pictures sent as files in a format the chat model takes.
PICTURE = reduce(operator.or_, (filters.Document.MimeType(mime) for mime in IMAGE_MIME_TYPES), filters.PHOTO)
# What is remembered about someone is shown, exported or erased only in their private chat with the bot.
MEMORY_COMMANDS = ("profile", "forget", "memory", "export", "timezone", "checkins", "usage", "reminders", "persona")


def register(app: Application) -> None:
    """Attach every handler to the application, the access gate first."""
    app.add_handler(TypeHandler(Update, refuse_strangers), group=-1)
    app.add_handler(CommandHandler("start", start, filters=COMMANDS))
    app.add_handler(CommandHandler("help", help_command, filters=COMMANDS))
    app.add_handler(CommandHandler("profile", profile, filters=PRIVATE))
    app.add_handler(CommandHandler("forget", forget, filters=PRIVATE))
    app.add_handler(CommandHandler("memory", memory_command, filters=PRIVATE))
    app.add_handler(CommandHandler("export", export, filters=PRIVATE))
    app.add_handler(CommandHandler("timezone", timezone_command, filters=PRIVATE))
    app.add_handler(CommandHandler("checkins", checkins_command, filters=PRIVATE))
    app.add_handler(CommandHandler("usage", usage_command, filters=PRIVATE))
    app.add_handler(CommandHandler("reminders", reminders_command, filters=PRIVATE))
    app.add_handler(CommandHandler("voice", voice_command, filters=COMMANDS))  # in a group: where it works
    app.add_handler(CommandHandler("persona", persona_command, filters=PRIVATE))
    app.add_handler(CommandHandler("stats", stats_command, filters=COMMANDS))  # admins only; others: unknown
    app.add_handler(CommandHandler("why", why_command, filters=COMMANDS))  # in a group: only what the group may see
    app.add_handler(CommandHandler(MEMORY_COMMANDS, private_only, filters=COMMANDS & ~filters.ChatType.PRIVATE))
    app.add_handler(CallbackQueryHandler(forget_answer, pattern=f"^({FORGET_ALL}|{FORGET_MATCHING}|{FORGET_CANCEL})$"))
    app.add_handler(CallbackQueryHandler(profile_button, pattern="^pf:"))
    app.add_handler(CallbackQueryHandler(undo_button, pattern="^un:"))
    app.add_handler(CallbackQueryHandler(forget_button, pattern="^fg:"))
    app.add_handler(CallbackQueryHandler(try_again, pattern="^ta:"))
    app.add_handler(CallbackQueryHandler(reminder_button, pattern="^rm:"))
    app.add_handler(CallbackQueryHandler(why_button, pattern="^wy:"))
    app.add_handler(CallbackQueryHandler(import_button, pattern="^ix:"))
    app.add_handler(CallbackQueryHandler(voice_button, pattern="^vc:"))
    app.add_handler(CallbackQueryHandler(persona_button, pattern="^ps:"))
    # A user's own /export sent back: read only in their private chat, where their memory is theirs to change.
    app.add_handler(MessageHandler(PRIVATE & filters.Document.FileExtension("json"), on_export_file))
    app.add_handler(MessageHandler(NEW_MESSAGES & filters.TEXT & (~filters.COMMAND | PASSED_ON), on_text))
    app.add_handler(MessageHandler(EDITS, on_edit))
    app.add_handler(MessageHandler(NEW_MESSAGES & VOICE, on_voice))
    app.add_handler(MessageHandler(NEW_MESSAGES & PICTURE, on_photo))
    app.add_handler(MessageHandler(NEW_MESSAGES & filters.Sticker.ALL, on_sticker))
    app.add_handler(MessageHandler(NEW_MESSAGES & ~filters.TEXT & ~filters.StatusUpdate.ALL, on_other))
    app.add_handler(MessageHandler(COMMANDS & filters.COMMAND, help_command))  # unknown commands
    app.add_handler(CallbackQueryHandler(stale_button))
    app.add_error_handler(on_error)
