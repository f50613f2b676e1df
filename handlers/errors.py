"""The last line of defence: log what no handler caught, apologise in private chats, keep running."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from handlers.context import Context
from handlers.texts import text
from handlers.transport.sending import SendPostponed

log = logging.getLogger(__name__)


async def on_error(update: object, context: Context) -> None:
    """Log an unhandled exception with its update id; tell the user something went wrong."""
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(context.error, SendPostponed):  # not an error: the update is handled again later
        log.info("update %s waits for Telegram to take requests again", update_id)
        return
    log.error("unhandled error while handling update %s", update_id, exc_info=context.error)
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    if update.effective_chat.type != ChatType.PRIVATE or update.effective_message is None:
        return
    language = update.effective_user.language_code if update.effective_user else None
    try:
        await context.bot.send_message(update.effective_chat.id, text("error", language))
    except TelegramError:
        log.warning("could not send the error apology for update %s", update_id)
