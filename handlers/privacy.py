"""/profile, /memory and /export: the user sees and controls what the bot keeps about them (/forget and every
other way to forget: handlers/forget_commands.py)."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from telegram import InputFile, Update

from handlers.context import Context
from handlers.profile_view import TOPICS_SHOWN, render_profile
from handlers.settings import zone_and_origin
from handlers.texts import text
from memory.facts import memory_enabled
from services.speech import voice_choice
from transport.replies import keyboard, own_button

# "pf:pg:<page>", "pf:del:<fact id>:<page>" or "pf:tp:<topic id>:<page>". ASCII digits only (str.isdigit()
# also takes "²", which int() refuses), and few enough of them that a forged id still fits SQLite's integers.
PROFILE_BUTTON = re.compile(r"pf:(?:pg|del:(?P<fact>[0-9]{1,18})|tp:(?P<topic>[0-9]{1,18})):(?P<page>[0-9]{1,6})")


async def _profile_page(context: Context, user_id: int, language: str | None, page: int):
    store, config = context.bot_data.store, context.bot_data.config
    facts, relations = await store.facts.fact_graph(user_id)
    settings = await store.users.settings(user_id)
    name = await store.users.user_name(user_id)
    topics = await store.topics.topics(user_id, TOPICS_SHOWN)
    if not facts and not name and not settings.get("timezone") and not topics:
        return None
    zone, origin = zone_and_origin(settings, facts, config.timezone, language)
    zone_line = text("profile_zone", language, zone=zone, origin=origin)
    if context.bot_data.spoken is not None:  # the settings' lines: the zone, then when replies are spoken
        choice = text(f"voice_choice_{voice_choice(settings)}", language)
        zone_line += "\n" + text("profile_voice", language, choice=choice)
    personas = context.bot_data.personas
    if personas.offered:  # the character they talk with, when there is a choice
        zone_line += "\n" + text("profile_persona", language, name=personas.chosen(settings).label())
    return render_profile(
        name, facts, relations, memory_enabled(settings), page, ZoneInfo(zone), language, zone_line, topics
    )


async def profile(update: Update, context: Context) -> None:
    """Show the user's name and facts by category, with a delete button for each fact."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    page = await _profile_page(context, user.id, user.language_code, 0)
    if page is None:
        empty = text("profile_empty", user.language_code)
        if not memory_enabled(await context.bot_data.store.users.settings(user.id)):
            empty += "\n" + text("memory_is_off", user.language_code)
        await message.reply_text(empty, reply_markup=keyboard([], _page_button(context, user.language_code)))
        return
    body, buttons = page
    await message.reply_text(body, reply_markup=keyboard(buttons, _page_button(context, user.language_code)))


def _page_button(context: Context, language: str | None) -> tuple[str, str] | None:
    """Return the "Open memory page" button's label and URL, when WEBAPP_URL is set."""
    url = context.bot_data.config.webapp_url
    return (text("open_memory_page", language), url) if url else None


async def profile_button(update: Update, context: Context) -> None:
    """Turn a /profile page, or delete the fact whose button was pressed, then redraw the page."""
    query = update.callback_query
    if query is None:
        return
    language = query.from_user.language_code
    button = PROFILE_BUTTON.fullmatch(query.data or "")
    valid = own_button(query) and button is not None
    forgetter = context.bot_data.forgetter
    if valid and button is not None and button["fact"] is not None:
        valid = await forgetter.delete_fact(query.from_user.id, int(button["fact"]))
    elif valid and button is not None and button["topic"] is not None:
        valid = await forgetter.delete_topic(query.from_user.id, int(button["topic"]))
    if not valid or button is None:
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    page = await _profile_page(context, query.from_user.id, language, int(button["page"]))
    if page is None:
        await query.edit_message_text(text("profile_empty", language))
        return
    body, buttons = page
    await query.edit_message_text(body, reply_markup=keyboard(buttons, _page_button(context, language)))


async def memory_command(update: Update, context: Context) -> None:
    """/memory on|off and /memory notify on|off; without arguments, say how things stand."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, store = user.language_code, context.bot_data.store
    now = context.bot_data.clock()
    args = [arg.lower() for arg in context.args or []]
    if args in (["on"], ["off"]):
        await store.users.set_setting(user.id, "memory", args[0], now)
        await message.reply_text(text("memory_now_on" if args[0] == "on" else "memory_now_off", language))
    elif len(args) == 2 and args[0] == "notify" and args[1] in ("on", "off"):
        await store.users.set_setting(user.id, "notify", args[1] == "on", now)
        await message.reply_text(text("notify_now", language, state=text(args[1], language)))
    else:
        settings = await store.users.settings(user.id)
        state = text("on" if memory_enabled(settings) else "off", language)
        notify = text("on" if settings.get("notify") else "off", language)
        await message.reply_text(text("memory_status", language, state=state, notify=notify))


async def export(update: Update, context: Context) -> None:
    """Send the user a JSON file with everything stored about them."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    document = await context.bot_data.memory_page.export(user.id)
    await message.reply_document(
        InputFile(document, filename=f"memory-{user.id}.json"), caption=text("export_caption", user.language_code)
    )


async def stale_button(update: Update, context: Context) -> None:
    """Answer a button press nothing else understood: it has expired, and nothing changes."""
    query = update.callback_query
    if query is not None:
        await query.answer(text("button_expired", query.from_user.language_code))
