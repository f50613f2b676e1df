"""A user's own /export file sent back to the bot in their private chat: a summary with Import / Cancel, then the
import (services/importer.py). Only the sender's own memory is taken; a file that names another user is refused."""

from __future__ import annotations

import logging

from telegram import Message, Update

from handlers.context import Context
from handlers.media_messages import FileUnavailable, download
from handlers.texts import text
from memory.importing.export_file import ExportedUser, parse_export
from memory.importing.unpickler import UnsafeFile
from transport.replies import keyboard, own_button

log = logging.getLogger(__name__)
IMPORT_YES, IMPORT_NO = "ix:go", "ix:no"
MAX_EXPORT_BYTES = 5 * 2**20  # a user's export with a full session and 200 facts is tens of KiB


async def on_export_file(update: Update, context: Context) -> None:
    """Read a JSON file sent in private chat as the sender's export: refuse another user's; ask before importing."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language = user.language_code
    exported = await read_own_export(message, context, user.id, language)
    if exported is None:
        return
    summary = await context.bot_data.importer.import_export(exported, dry_run=True)
    reasons = "; ".join(sorted(summary.refused))
    ask = text("import_ask", language,
               summary=text("import_summary", language, messages=str(summary.messages),
                            facts=str(sum(summary.facts.values()))),
               refused=text("import_refused_part", language, reasons=reasons) if reasons else "")
    buttons = [[(text("import_yes", language), IMPORT_YES), (text("import_no", language), IMPORT_NO)]]
    # Quoting the file: the button finds it again in reply_to_message, so nothing is kept between the two.
    await message.reply_text(ask, reply_markup=keyboard(buttons), do_quote=True)


async def import_button(update: Update, context: Context) -> None:
    """Import the file the asking message answers, or cancel; the file is read again, and checked again."""
    query = update.callback_query
    if query is None:
        return
    language = query.from_user.language_code
    asked = query.message if isinstance(query.message, Message) else None
    sent = asked.reply_to_message if asked is not None else None
    if not own_button(query) or sent is None or sent.document is None:
        await query.answer(text("button_expired", language))
        return
    await query.answer()
    if query.data != IMPORT_YES:
        await query.edit_message_text(text("import_cancelled", language))
        return
    exported = await read_own_export(sent, context, query.from_user.id, language)
    if exported is None:
        return
    summary = await context.bot_data.importer.import_export(exported, dry_run=False)
    await query.edit_message_text(text("import_done", language, messages=str(summary.written_messages),
                                       facts=str(summary.written_facts)))


async def read_own_export(message: Message, context: Context, user_id: int, language: str | None
                          ) -> ExportedUser | None:
    """Return the export the message's document holds when it is `user_id`'s own; else say why and return None."""
    assert message.document is not None
    try:
        exported = parse_export(await download(context, message.document.file_id, MAX_EXPORT_BYTES))
    except FileUnavailable as error:
        await message.reply_text(text(error.reason, language))
        return None
    except UnsafeFile as error:
        log.info("a file sent to import was refused: %s", error)
        await message.reply_text(text("import_unreadable", language, reason=str(error)[:200]))
        return None
    if exported.user["id"] != user_id:
        await message.reply_text(text("import_foreign", language))
        return None
    return exported
