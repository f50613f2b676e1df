"""Forgetting, as Telegram shows it: /forget and its buttons, and forget requests said in conversation (the bot's
one line about them, its Undo button, and the "which one?" buttons). Each carries out nothing itself: the
Forgetter (services/forgetting.py) does, where every way to forget lives. The buttons follow the notes' rules: only
the presser's own data, only in their private chat. In a group the line names no fact (others read it) and has
no button."""

from __future__ import annotations

import logging
import re

from telegram import Bot, Message, Update
from telegram.error import TelegramError

from handlers.context import Context
from handlers.notes import short, tag
from handlers.texts import text
from memory.changes import Forgotten
from services.forgetting import Unlearned
from transport.replies import keyboard, own_button

log = logging.getLogger(__name__)
FORGET_ALL, FORGET_MATCHING, FORGET_CANCEL = "forget:all", "forget:match", "forget:no"  # /forget's buttons
# "fg:undo:<undo id>", "fg:pick:<fact id>:<tag of its value>" or "fg:keep".
FORGET_BUTTON = re.compile(r"fg:(?:undo:(?P<undo>[0-9]{1,18})|pick:(?P<fact>[0-9]{1,18}):(?P<tag>[0-9a-f]{8})|keep)")
MAX_CHOICES = 6


async def forget(update: Update, context: Context) -> None:
    """Ask, with buttons, to erase everything, or with words ("/forget dog") only the facts that match."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language = user.language_code
    words = " ".join(context.args or []).strip()[:100]
    if not words:
        ask, confirm = text("forget_ask", language), FORGET_ALL
    else:
        matches = await context.bot_data.forgetter.hold_words(user.id, words)
        if not matches:
            await message.reply_text(text("forget_no_match", language, words=words))
            return
        listing = "\n".join(f"• {fact.value}" for fact in matches[:20])
        ask, confirm = text("forget_ask_words", language, facts=listing), FORGET_MATCHING
    buttons = [[(text("forget_yes", language), confirm), (text("forget_no", language), FORGET_CANCEL)]]
    await message.reply_text(ask, reply_markup=keyboard(buttons))


async def forget_answer(update: Update, context: Context) -> None:
    """Carry out or cancel a /forget; a button outside the presser's own chat has expired."""
    query = update.callback_query
    if query is None:
        return
    language, forgetter = query.from_user.language_code, context.bot_data.forgetter
    if not own_button(query):
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    user_id = query.from_user.id
    if query.data == FORGET_ALL:
        messages, facts = await forgetter.erase(user_id)
        if messages or facts:
            done = text("forget_done", language, messages=str(messages), facts=str(facts))
        else:
            done = text("forget_nothing", language)
    elif query.data == FORGET_MATCHING:
        count = await forgetter.forget_held(user_id)
        done = text("forget_words_done", language, count=str(count))
    else:
        done = text("forget_cancelled", language)
    await query.edit_message_text(done)


def forgotten_line(forgotten: Forgotten, language: str | None, private: bool) -> str:
    """Return the one line that confirms a forget: what went (in private), or only how many (in a group)."""
    if not forgotten.facts:
        return text("forgotten_this", language)
    if not private:
        return text("forgotten_count", language, count=str(len(forgotten.facts)))
    return text("forgotten", language, facts="; ".join(fact.value for fact in forgotten.facts))


def undo_row(forgotten: Forgotten, language: str | None) -> list[list[tuple[str, str]]]:
    """Return the Undo button of a forget (none when there is nothing to bring back)."""
    return [[(text("undo", language), f"fg:undo:{forgotten.undo_id}")]] if forgotten.undo_id is not None else []


async def send_unlearned(bot: Bot, chat_id: int, unlearned: Unlearned, language: str | None, private: bool) -> None:
    """Send the bot's own lines about a forget request: done (with Undo), which one, /forget, or nothing found."""
    if unlearned.forgotten is not None:
        buttons = undo_row(unlearned.forgotten, language) if private else []
        await bot.send_message(chat_id, forgotten_line(unlearned.forgotten, language, private),
                               reply_markup=keyboard(buttons))
    if unlearned.forget_all:
        if private:  # the very question and buttons of /forget: never erased on a sentence
            buttons = [[(text("forget_yes", language), FORGET_ALL), (text("forget_no", language), FORGET_CANCEL)]]
            await bot.send_message(chat_id, text("forget_ask", language), reply_markup=keyboard(buttons))
        else:
            await bot.send_message(chat_id, text("forget_everything_private", language))
    elif unlearned.ask:
        if private:
            choices = [[(short(fact.value), f"fg:pick:{fact.id}:{tag(fact.value)}")]
                       for fact in unlearned.ask[:MAX_CHOICES]]
            choices.append([(text("forget_keep", language), "fg:keep")])
            await bot.send_message(chat_id, text("forget_which", language), reply_markup=keyboard(choices))
        else:
            await bot.send_message(chat_id, text("forget_which_private", language))
    for words in unlearned.unmatched:
        await bot.send_message(chat_id, text("forget_unmatched", language, words=short(words, 40)))


async def forget_button(update: Update, context: Context) -> None:
    """Undo a forget, forget the fact picked among several, or keep them all; in the presser's own chat only."""
    query = update.callback_query
    if query is None:
        return
    language, forgetter = query.from_user.language_code, context.bot_data.forgetter
    button = FORGET_BUTTON.fullmatch(query.data or "")
    if button is None or not own_button(query):
        await query.answer(text("button_expired", language))
        return
    user_id = query.from_user.id
    if button["undo"] is not None:
        restored = await forgetter.undo(user_id, int(button["undo"]))
        if restored is None:
            await query.answer(text("button_expired", language))
            return
        await query.answer()
        line = text("restored", language, facts="; ".join(f.value for f in restored)) if restored else text(
            "restored_this", language)
        await query.edit_message_text(f"{query.message.text}\n{line}" if isinstance(query.message, Message) else line)
        return
    if button["fact"] is None:  # keep them all
        await query.answer()
        await query.edit_message_text(text("forget_kept", language))
        return
    fact = await forgetter.fact_of(user_id, int(button["fact"]))
    if fact is None or tag(fact.value) != button["tag"]:
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    forgotten = await forgetter.forget(user_id, [fact])
    await query.edit_message_text(forgotten_line(forgotten, language, True),
                                  reply_markup=keyboard(undo_row(forgotten, language)))


async def send_forgotten_note(bot: Bot, user_id: int, forgotten: Forgotten, language: str | None) -> None:
    """Confirm in the user's private chat what the extraction pass forgot at their request; a failure is logged."""
    try:
        await bot.send_message(user_id, forgotten_line(forgotten, language, True),
                               reply_markup=keyboard(undo_row(forgotten, language)))
    except TelegramError as error:
        log.warning("could not send a forgotten note: %s", error)
