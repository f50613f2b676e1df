"""/profile, /forget, /memory and /export: the user sees and controls what the bot keeps about them."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from telegram import InputFile, Update

from handlers.context import Context
from handlers.profile_view import TOPICS_SHOWN, render_profile
from handlers.settings import zone_and_origin
from handlers.texts import text
from handlers.transport.replies import keyboard, own_button
from memory.facts import facts_matching, memory_enabled

FORGET_ALL, FORGET_MATCHING, FORGET_CANCEL = "forget:all", "forget:match", "forget:no"
# "pf:pg:<page>", "pf:del:<fact id>:<page>" or "pf:tp:<topic id>:<page>". ASCII digits only (str.isdigit()
# also takes "²", which int() refuses), and few enough of them that a forged id still fits SQLite's integers.
PROFILE_BUTTON = re.compile(r"pf:(?:pg|del:(?P<fact>[0-9]{1,18})|tp:(?P<topic>[0-9]{1,18})):(?P<page>[0-9]{1,6})")


async def _profile_page(context: Context, user_id: int, language: str | None, page: int):
    store, config = context.bot_data.store, context.bot_data.config
    facts, relations = await store.fact_graph(user_id)
    settings = await store.settings(user_id)
    name = await store.user_name(user_id)
    topics = await store.topics(user_id, TOPICS_SHOWN)
    if not facts and not name and not settings.get("timezone") and not topics:
        return None
    zone, origin = zone_and_origin(settings, facts, config.timezone, language)
    zone_line = text("profile_zone", language, zone=zone, origin=origin)
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
        if not memory_enabled(await context.bot_data.store.settings(user.id)):
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
    if valid and button["fact"] is not None:
        valid = await context.bot_data.store.delete_facts(query.from_user.id, [int(button["fact"])]) == 1
    elif valid and button["topic"] is not None:
        valid = await context.bot_data.store.delete_topic(query.from_user.id, int(button["topic"])) == 1
    if not valid:
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    page = await _profile_page(context, query.from_user.id, language, int(button["page"]))
    if page is None:
        await query.edit_message_text(text("profile_empty", language))
        return
    body, buttons = page
    await query.edit_message_text(body, reply_markup=keyboard(buttons, _page_button(context, language)))


async def forget(update: Update, context: Context) -> None:
    """Ask, with buttons, to erase everything, or with words ("/forget dog") only the facts that match."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, store = user.language_code, context.bot_data.store
    words = " ".join(context.args or []).strip()[:100]
    if not words:
        ask, confirm = text("forget_ask", language), FORGET_ALL
    else:
        matches = facts_matching(await store.facts(user.id), words)
        if not matches:
            await message.reply_text(text("forget_no_match", language, words=words))
            return
        # The words wait in the user's settings; the button carries no data of theirs.
        await store.set_setting(user.id, "forget_words", words, context.bot_data.clock())
        listing = "\n".join(f"• {fact.value}" for fact in matches[:20])
        ask, confirm = text("forget_ask_words", language, facts=listing), FORGET_MATCHING
    buttons = [[(text("forget_yes", language), confirm), (text("forget_no", language), FORGET_CANCEL)]]
    await message.reply_text(ask, reply_markup=keyboard(buttons))


async def forget_answer(update: Update, context: Context) -> None:
    """Carry out or cancel a /forget; a button outside the presser's own chat has expired."""
    query = update.callback_query
    if query is None:
        return
    language, store = query.from_user.language_code, context.bot_data.store
    if not own_button(query):
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    user_id = query.from_user.id
    if query.data == FORGET_ALL:
        messages, facts = await store.forget_user(user_id)
        if messages or facts:
            done = text("forget_done", language, messages=str(messages), facts=str(facts))
        else:
            done = text("forget_nothing", language)
    elif query.data == FORGET_MATCHING:
        words = (await store.settings(user_id)).get("forget_words", "")
        matches = facts_matching(await store.facts(user_id), words) if words else []
        count = await store.delete_facts(user_id, [fact.id for fact in matches if fact.id is not None])
        done = text("forget_words_done", language, count=str(count))
    else:
        done = text("forget_cancelled", language)
    await query.edit_message_text(done)


async def memory_command(update: Update, context: Context) -> None:
    """/memory on|off and /memory notify on|off; without arguments, say how things stand."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, store = user.language_code, context.bot_data.store
    now = context.bot_data.clock()
    args = [arg.lower() for arg in context.args or []]
    if args in (["on"], ["off"]):
        await store.set_setting(user.id, "memory", args[0], now)
        await message.reply_text(text("memory_now_on" if args[0] == "on" else "memory_now_off", language))
    elif len(args) == 2 and args[0] == "notify" and args[1] in ("on", "off"):
        await store.set_setting(user.id, "notify", args[1] == "on", now)
        await message.reply_text(text("notify_now", language, state=text(args[1], language)))
    else:
        settings = await store.settings(user.id)
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
