"""Commands: /start, /help, and the answer to a memory command sent in a group."""

from __future__ import annotations

from telegram import Update

from handlers.context import Context
from handlers.texts import text
from services.companion import Speaker


async def start(update: Update, context: Context) -> None:
    """Greet the user and say in two lines what the bot remembers and how to see or erase it; a persona with a
    greeting of its own (a card's first message) says that first, in a private chat."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    private = message.chat.type == "private"
    hello = await context.bot_data.companion.greet(Speaker(user.id, user.first_name)) if private else None
    if hello:
        await message.reply_text(f"{hello}\n\n{text('start_memory', user.language_code)}")
        return
    name = await context.bot_data.store.users.user_name(user.id) or user.first_name
    await message.reply_text(text("start", user.language_code, name=f", {name}" if name else ""))


async def help_command(update: Update, context: Context) -> None:
    """List what the bot can do."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    await message.reply_text(text("help", user.language_code))


async def private_only(update: Update, context: Context) -> None:
    """In a group, /profile, /forget, /memory and /export only point to the private chat: the group would see it."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    await message.reply_text(text("private_only", user.language_code))
