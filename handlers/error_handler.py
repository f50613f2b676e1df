"""The last line of defence: log what no handler caught, apologise in private chats, keep running.

Two failures are no one's bug and get no apology: a store that cannot be written for a while (a full disk, a
database locked too long, a lost PostgreSQL connection) leaves the update unhandled, to be tried again in the
user's order; and a user who blocked the bot is marked blocked, with one line at INFO.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.error import Forbidden, TelegramError

from handlers.context import Context
from handlers.texts import text
from memory.store.backends import database_errors, passing_errors
from transport.sending import DELIVERY, SendPostponed

log = logging.getLogger(__name__)


async def on_error(update: object, context: Context) -> None:
    """Log an unhandled exception with its update id; tell the user something went wrong."""
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(context.error, SendPostponed):  # not an error: the update is handled again later
        log.info("update %s waits for Telegram to take requests again", update_id)
        return
    if isinstance(context.error, Forbidden):
        await _blocked(update, context)
        return
    delivery = DELIVERY.get()
    if isinstance(context.error, passing_errors()) and delivery is not None:
        delivery.postponed = True  # the update processor holds it, unhandled, and tries it again
        log.warning("update %s waits for the database (%s: %s); it is tried again later", update_id,
                    type(context.error).__name__, context.error)
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


async def _blocked(update: object, context: Context) -> None:
    """Mark a private chat's user blocked (their next message unblocks them); nothing is sent to them."""
    chat = update.effective_chat if isinstance(update, Update) else None
    if chat is None or chat.type != ChatType.PRIVATE:
        log.info("Telegram refused a message to a chat (%s): the bot may have been removed", context.error)
        return
    log.info("a user has blocked the bot; not writing to them until they write")
    try:
        await context.bot_data.store.outreach.block_user(chat.id, context.bot_data.clock())
    except database_errors() as error:
        log.warning("could not mark a user blocked: %s", type(error).__name__)
