"""The gate in front of every handler: only users in ALLOWED_USER_IDS get through, when it is set."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ApplicationHandlerStop

from handlers.context import Context
from handlers.texts import text

log = logging.getLogger(__name__)


async def refuse_strangers(update: Update, context: Context) -> None:
    """Stop an update from a user who is not allowed, with one polite answer in a private chat."""
    user = update.effective_user
    if user is not None and context.bot_data.config.allows(user.id):
        return
    if user is None and not context.bot_data.config.allowed_user_ids:
        return
    log.info("refused an update from a user who is not in ALLOWED_USER_IDS")
    if update.callback_query is not None:
        await update.callback_query.answer(text("not_allowed", user.language_code if user else None))
    elif update.message is not None and update.message.chat.type == ChatType.PRIVATE:
        await update.message.reply_text(text("not_allowed", user.language_code if user else None))
    raise ApplicationHandlerStop
