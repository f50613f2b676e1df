"""/profile and /forget: the user sees and erases what the bot keeps about them."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from handlers.context import Context
from handlers.replies import send_text
from handlers.texts import text

FORGET_CONFIRM, FORGET_CANCEL = "forget:yes", "forget:no"


async def profile(update: Update, context: Context) -> None:
    """Show what is stored about the user: name, since when, and the size of the session."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    services = context.bot_data
    stored = await services.store.profile(user.id)
    language = user.language_code
    if stored is None:
        await message.reply_text(text("profile_empty", language))
        return
    facts = [fact for fact in await services.store.facts(user.id) if fact.key != "name"]
    lines = "".join(f"• {fact.key.split(':')[0].replace('_', ' ')}: {fact.value}\n" for fact in facts)
    # A long profile can pass Telegram's 4096 characters: send_text splits it.
    await send_text(
        context.bot,
        message.chat_id,
        text(
            "profile",
            language,
            name=stored.name or text("no_name", language),
            facts=lines,
            since=stored.first_seen.astimezone(services.config.tz).strftime("%Y-%m-%d"),
            messages=str(stored.messages),
            limit=str(services.config.history_limit),
        )
    )


async def forget(update: Update, context: Context) -> None:
    """Ask, with two buttons, whether to erase everything stored about the user."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language = user.language_code
    buttons = InlineKeyboardMarkup(
        [[
            InlineKeyboardButton(text("forget_yes", language), callback_data=FORGET_CONFIRM),
            InlineKeyboardButton(text("forget_no", language), callback_data=FORGET_CANCEL),
        ]]
    )
    await message.reply_text(text("forget_ask", language), reply_markup=buttons)


async def forget_answer(update: Update, context: Context) -> None:
    """Erase the presser's data on "yes"; a button outside the presser's own chat has expired."""
    query = update.callback_query
    if query is None:
        return
    language = query.from_user.language_code
    # Only ever the presser's own data, and only from the prompt in their own private chat.
    if query.message is None or query.message.chat.id != query.from_user.id:
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    if query.data == FORGET_CONFIRM:
        messages, facts = await context.bot_data.store.forget_user(query.from_user.id)
        if messages or facts:
            done = text("forget_done", language, messages=str(messages), facts=str(facts))
        else:
            done = text("forget_nothing", language)
    else:
        done = text("forget_cancelled", language)
    await query.edit_message_text(done)


async def stale_button(update: Update, context: Context) -> None:
    """Answer a button press nothing else understood: it has expired, and nothing changes."""
    query = update.callback_query
    if query is not None:
        await query.answer(text("button_expired", query.from_user.language_code))
