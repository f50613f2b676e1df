"""/persona: the characters the owner offers (PERSONAS_DIR), one chosen per user for their private chat; and the
greeting /start gives in the persona's voice."""

from __future__ import annotations

import re
import zlib

from telegram import Update

from handlers.context import Context
from handlers.texts import text
from memory.scopes import private_scope
from prompts.character_card import Persona
from services.companion import Speaker
from transport.replies import keyboard, own_button

# The persona's place in Personas.choices(), and a tag of its key: a menu sent before the owner changed the folder
# then names no other persona than the one its button showed (callback data holds at most 64 bytes, a file name more).
PERSONA_BUTTON = re.compile(r"ps:(?P<index>[0-9]{1,3}):(?P<tag>[0-9a-f]{8})")


def button_data(index: int, persona: Persona) -> str:
    """Return the callback data of the button for `persona`, at `index` among the choices."""
    return f"ps:{index}:{zlib.crc32(persona.key.encode()):08x}"


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
    buttons = [[(("✓ " if persona is current else "") + persona.label(), button_data(index, persona))]
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
    index = int(button["index"]) if button is not None else len(choices)
    if not own_button(query) or index >= len(choices) or button_data(index, choices[index]) != query.data:
        await query.answer(text("button_expired", language))
        return
    chosen = choices[index]
    await context.bot_data.store.users.set_setting(query.from_user.id, "persona", chosen.key or None,
                                                   context.bot_data.clock())
    await query.answer()
    said = text("persona_set", language, name=chosen.label())
    hello = await context.bot_data.companion.greet(Speaker(query.from_user.id, query.from_user.first_name))
    await query.edit_message_text(f"{said}\n\n{hello}" if hello else said)
