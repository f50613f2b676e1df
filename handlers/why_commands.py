""""Why did you say that?" as Telegram shows it: /why (in reply to one of the bot's replies, or alone for the last
one), and the 🧠 button under replies where WHY_BUTTON is on: the memories that reply's prompt held, each with ✗
"this is wrong", and the ✗'s Undo. What is listed and marked is the Why service's (services/why.py); in a group
only what that group's prompt may hold is listed, only to the member the reply answered, and only they may ✗ it."""

from __future__ import annotations

import re

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType

from handlers.context import Context
from handlers.notes import short
from handlers.senders import speaker_of
from handlers.texts import text
from memory.scopes import Scope
from services.companion import Speaker
from services.why import FACTS, RECALLED, REMINDERS, TOPICS, WISHES, Explanation, Remembered
from transport.formatting import split_message
from transport.replies import keyboard

# "wy:r:<reply id>" (the 🧠 button), "wy:x:<f|t><id>" (✗ on a fact or a topic line), "wy:u:<undo id>" (its Undo).
WHY_BUTTON = re.compile(
    r"wy:(?:r:(?P<reply>[0-9]{1,18})|x:(?P<kind>[ft])(?P<item>[0-9]{1,18})|u:(?P<undo>[0-9]{1,18}))"
)
HEADINGS = {WISHES: "why_wishes", FACTS: "why_facts", RECALLED: "why_recalled", TOPICS: "why_topics",
            REMINDERS: "why_reminders"}
MAX_MARKS = 12  # ✗ buttons under one list; the memory page has them all
EXCERPT = 80  # characters of the reply quoted above its list


def why_text(explanation: Explanation, language: str | None) -> str:
    """Return the "why" list of one reply: the reply's opening, then its memories by kind; one gone since says so."""
    said = " ".join(explanation.reply.content.split())
    lines = [text("why_title", language, reply=short(said, EXCERPT))]
    if not explanation.lines:
        lines.append(text("why_nothing", language))
    for kind, heading in HEADINGS.items():
        chosen = [line for line in explanation.lines if line.kind == kind]
        if chosen:
            lines += ["", text(heading, language)]
            lines += [f"• {line.value}" if line.value is not None else f"• {text('why_gone', language)}"
                      for line in chosen]
    if any(line.markable for line in explanation.lines):
        lines += ["", text("why_hint", language)]
    return "\n".join(lines)


def mark_buttons(lines: list[Remembered]) -> list[list[tuple[str, str]]]:
    """Return one ✗ button a row for each memory that may be marked wrong (the first MAX_MARKS)."""
    markable = [line for line in lines if line.markable][:MAX_MARKS]
    return [[(f"✗ {short(line.value or '')}", f"wy:x:{'t' if line.kind == TOPICS else 'f'}{line.id}")]
            for line in markable]


async def _scope_here(context: Context, speaker: Speaker, chat_id: int, title: str | None, chat_type: str
                      ) -> Scope | None:
    return await context.bot_data.companion.scope_of(speaker, chat_id, title, chat_type == ChatType.PRIVATE,
                                                     meet=False)


async def why_command(update: Update, context: Context) -> None:
    """List what the reply this answers (or the last one) had in mind, with ✗ under each memory."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    language = user.language_code
    target = message.reply_to_message
    if target is not None and (target.from_user is None or target.from_user.id != context.bot.id):
        await message.reply_text(text("why_not_reply", language))
        return
    scope = await _scope_here(context, speaker_of(message, user), message.chat.id, message.chat.title,
                              message.chat.type)
    explanation = None if scope is None else await context.bot_data.why.explain(
        scope, target.message_id if target is not None else None)
    await _show(message, explanation, language)


async def _show(message: Message, explanation: Explanation | None, language: str | None) -> None:
    if explanation is None:
        await message.reply_text(text("why_unknown", language))
        return
    # Plain text: the values are the user's own words, never Markdown to render.
    pieces = split_message(why_text(explanation, language))
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        await message.get_bot().send_message(message.chat.id, piece,
                                             reply_markup=keyboard(mark_buttons(explanation.lines)) if last else None)


async def why_button(update: Update, context: Context) -> None:
    """The 🧠 under a reply, ✗ under a memory, or the Undo of a ✗: for the presser's own memory in this chat only."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    language = query.from_user.language_code
    pressed = WHY_BUTTON.fullmatch(query.data or "")
    scope = await _presser_scope(context, query) if pressed else None
    if pressed is None or scope is None:
        await query.answer(text("button_expired", language))
        return
    why = context.bot_data.why
    if pressed["reply"] is not None:
        explanation = await why.explain(scope, reply_id=int(pressed["reply"]))
        await query.answer(None if explanation else text("why_unknown", language))
        if explanation is not None:
            await _show(query.message, explanation, language)  # type: ignore[arg-type]
        return
    if pressed["undo"] is not None:
        if not await why.undo(scope, int(pressed["undo"])):
            await query.answer(text("button_expired", language))
            return
        await query.answer()
        await query.edit_message_text(text("why_restored", language))
        return
    kind = TOPICS if pressed["kind"] == "t" else FACTS
    forgotten = await why.mark_wrong(scope, kind, int(pressed["item"]))
    if forgotten is None or forgotten.undo_id is None:
        await query.answer(text("button_expired", language))
        return
    await query.answer(text("why_marked_short", language))
    context.bot_data.metrics.marked_wrong()
    values = "; ".join(fact.value for fact in forgotten.facts) or text("why_marked_topic", language)
    await context.bot.send_message(query.message.chat.id, text("why_marked", language, value=values),
                                   reply_markup=keyboard([[(text("undo", language), f"wy:u:{forgotten.undo_id}")]]))


async def _presser_scope(context: Context, query: CallbackQuery) -> Scope | None:
    """Return the presser's own memory in the chat the button is in (None in a group where they have none)."""
    user, chat = query.from_user, query.message.chat  # type: ignore[union-attr]
    return await _scope_here(context, Speaker(user.id, user.first_name, user.language_code), chat.id, chat.title,
                             chat.type)
