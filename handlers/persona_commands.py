"""/persona: the characters the owner offers (PERSONAS_DIR), one chosen per user for their private chat; and the
greeting /start gives in the persona's voice."""

from __future__ import annotations

import re

from telegram import Update

from handlers.context import Context
from handlers.texts import text
from memory.scopes import private_scope
from prompts.character_card import Persona
from services.companion import Speaker
from transport.replies import keyboard, own_button

PERSONA_BUTTON = re.compile(r"ps:(?P<index>[0-9]{1,3})")  # the persona's place in Personas.choices()


async def persona_of(context: Context, user_id: int) -> Persona:
    """Return the persona the user talks with in their private chat."""
    return await context.bot_data.companion.persona_of(private_scope(user_id))


async def persona_command(update: Update, context: Context) -> None:
    """List the personas with a button each, the current one ticked; with none offered, name the one there is."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    personas = context.bot_data.personas
    current = await persona_of(context, user.id)
    choices = personas.choices()
    if not choices:
        await message.reply_text(text("persona_only", user.language_code, current=current.label()))
        return
    buttons = [[(("✓ " if persona is current else "") + persona.label(), f"ps:{index}")]
               for index, persona in enumerate(choices)]
    await message.reply_text(text("persona_list", user.language_code, current=current.label()),
                             reply_markup=keyboard(buttons))


async def persona_button(update: Update, context: Context) -> None:
    """Switch the presser to the persona whose button was pressed; its greeting follows, when it has one."""
    query = update.callback_query
    if query is None:
        return
    language = query.from_user.language_code
    choices = context.bot_data.personas.choices()
    button = PERSONA_BUTTON.fullmatch(query.data or "")
    if not own_button(query) or button is None or int(button["index"]) >= len(choices):
        await query.answer(text("button_expired", language))
        return
    chosen = choices[int(button["index"])]
    await context.bot_data.store.users.set_setting(query.from_user.id, "persona", chosen.key or None,
                                                   context.bot_data.clock())
    await query.answer()
    said = text("persona_set", language, name=chosen.label())
    hello = await context.bot_data.companion.greet(Speaker(query.from_user.id, query.from_user.first_name))
    await query.edit_message_text(f"{said}\n\n{hello}" if hello else said)
