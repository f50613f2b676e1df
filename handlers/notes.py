"""The "✎" notes that confirm what was just learned, each with an Undo button, and the button itself.

A style wish ("no fluff", "на ты") is always confirmed: it changes every later reply, so a misread one must
be seen and undone at once (no pending step to confirm first). Other facts are confirmed only for
users who asked for it (/memory notify on).
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Sequence

from telegram import Bot, InlineKeyboardMarkup, Message, Update
from telegram.error import TelegramError

from handlers.context import Context
from handlers.texts import text
from memory.facts import Fact, is_style
from transport.replies import keyboard, own_button

log = logging.getLogger(__name__)
# "un:<fact id>:<tag of its value>": a button undoes the value it was shown with, never a later one.
UNDO_BUTTON = re.compile(r"un:(?P<fact>[0-9]{1,18}):(?P<tag>[0-9a-f]{8})")
MAX_BUTTONS = 8


def to_confirm(learned: Sequence[Fact], notify: bool) -> list[Fact]:
    """Return the learned facts a note confirms: style wishes always, the rest with notify on."""
    return [fact for fact in learned if notify or is_style(fact)]


def wish_line(fact: Fact, language_code: str | None) -> str:
    """Return how a style wish reads to the user: "✎ From now on: no fluff"."""
    aspect = fact.key.partition(":")[2]
    key = f"wish_{aspect}" if aspect in ("address", "avoid_words", "avoid_topics") else "wish_set"
    return text(key, language_code, wish=fact.value)


def note_text(facts: Sequence[Fact], language_code: str | None) -> str:
    """Return the note: one line per style wish, then one "✎ remembered: …" line for the other facts."""
    lines = [wish_line(fact, language_code) for fact in facts if is_style(fact)]
    others = [fact.value for fact in facts if not is_style(fact)]
    if others:
        lines.append(text("remembered", language_code, facts="; ".join(others)))
    return "\n".join(lines)


def tag(value: str) -> str:
    """Return 8 hex digits naming a fact's value, so a button outlives no change of it."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:8]


def undo_buttons(facts: Sequence[Fact], language_code: str | None) -> list[list[tuple[str, str]]]:
    """Return one row per undoable fact: "↩ Undo" alone, or "↩ Undo: <value>" when there are several."""
    undoable = [fact for fact in facts if fact.id is not None][:MAX_BUTTONS]
    if len(undoable) == 1:
        fact = undoable[0]
        return [[(text("undo", language_code), f"un:{fact.id}:{tag(fact.value)}")]]
    return [[(text("undo_one", language_code, fact=short(fact.value)), f"un:{fact.id}:{tag(fact.value)}")]
            for fact in undoable]


def short(value: str, limit: int = 24) -> str:
    """Return `value` cut to `limit` characters with "…", for a button's label."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


async def send_note(bot: Bot, chat_id: int, facts: Sequence[Fact], language_code: str | None) -> None:
    """Send the note for `facts` with its Undo buttons, in the user's private chat; a failure is only logged."""
    if not facts:
        return
    try:
        await bot.send_message(
            chat_id, note_text(facts, language_code), reply_markup=keyboard(undo_buttons(facts, language_code))
        )
    except TelegramError as error:
        log.warning("could not send a remembered note: %s", error)


async def undo_button(update: Update, context: Context) -> None:
    """Delete exactly the fact an Undo button was shown for: the presser's own, in their private chat."""
    query = update.callback_query
    if query is None:
        return
    language = query.from_user.language_code
    button = UNDO_BUTTON.fullmatch(query.data or "")
    forgetter = context.bot_data.forgetter
    fact = None
    if button is not None and own_button(query):
        fact = await forgetter.fact_of(query.from_user.id, int(button["fact"]))
        fact = fact if fact is not None and tag(fact.value) == button["tag"] else None
    if fact is None or fact.id is None or not await forgetter.delete_fact(query.from_user.id, fact.id):
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    message = query.message
    if not isinstance(message, Message):  # too old: Telegram no longer lets the bot read or edit it
        return
    rows = [[b for b in row if b.callback_data != query.data] for row in message.reply_markup.inline_keyboard] \
        if message.reply_markup else []
    kept = [row for row in rows if row]
    body = f"{message.text}\n{text('undone', language, fact=fact.value)}"
    await query.edit_message_text(body, reply_markup=InlineKeyboardMarkup(kept) if kept else None)
