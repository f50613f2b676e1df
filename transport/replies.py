"""Sending to Telegram: split long answers, format them, fall back to plain text, show typing."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import AsyncIterator, Awaitable, Callable

from telegram import Bot, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, TelegramError

from transport.formatting import split_message, to_telegram_html

log = logging.getLogger(__name__)
# A reply ready within a second needs no "typing…" (Telegram would show it until the reply anyway, a blink):
# only a slower one sends the action, which spares a task and a request on most turns.
TYPING_AFTER_S = 1.0


def keyboard(
    buttons: list[list[tuple[str, str]]], web_app: tuple[str, str] | None = None
) -> InlineKeyboardMarkup | None:
    """Return Telegram's inline keyboard for rows of (label, callback data), or None for no rows; `web_app`
    (label, https URL) goes first, as a button that opens that Mini App (private chats only)."""
    rows = [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in buttons]
    if web_app is not None:
        rows.insert(0, [InlineKeyboardButton(web_app[0], web_app=WebAppInfo(web_app[1]))])
    return InlineKeyboardMarkup(rows) if rows else None


def own_button(query: CallbackQuery) -> bool:
    """True when a button acts on the presser's own data: it was pressed on the bot's message in their private
    chat with it."""
    return query.message is not None and query.message.chat.id == query.from_user.id


async def send_formatted(send: Callable[..., Awaitable[object]], piece: str) -> bool:
    """Send `piece` through `send(text, parse_mode=…)` as Telegram HTML, or again as plain text when Telegram
    cannot parse the HTML; return True when it went as plain text. The one home of that fallback."""
    try:
        await send(to_telegram_html(piece), parse_mode=ParseMode.HTML)
        return False
    except BadRequest as error:
        if "can't parse entities" not in str(error).lower():
            raise
    await send(piece)
    return True


async def send_text(bot: Bot, chat_id: int, text: str, reply_markup: InlineKeyboardMarkup | None = None) -> int | None:
    """Send `text` as one or more HTML messages, `reply_markup` under the last; a piece Telegram cannot parse goes again
    as plain text. Return the id of the first message sent (None where Telegram's answer did not say)."""
    # Telegram shows no NUL and the HTML conversion drops it, so a piece made only of NULs (an echoed
    # "\x00" * 5000) would become an empty message, which Telegram refuses: drop them before splitting.
    sent: list[int | None] = []

    async def send_piece(piece: str, parse_mode: str | None = None,
                         reply_markup: InlineKeyboardMarkup | None = None) -> None:
        message = await bot.send_message(chat_id, piece, parse_mode=parse_mode, reply_markup=reply_markup)
        sent.append(message.message_id)

    pieces = split_message(text.replace("\x00", ""))
    for index, chunk in enumerate(pieces):
        markup = reply_markup if index == len(pieces) - 1 else None
        if await send_formatted(functools.partial(send_piece, reply_markup=markup), chunk):
            log.warning("Telegram could not parse a formatted reply; it went as plain text")
    return sent[0] if sent else None


@contextlib.asynccontextmanager
async def typing_indicator(
    bot: Bot, chat_id: int, interval: float = 4.0, after: float = TYPING_AFTER_S, action: str = ChatAction.TYPING,
) -> AsyncIterator[Callable[[], None]]:
    """Show 'typing…' (or another chat `action`, such as "recording voice…") in the chat once the block has run
    `after` seconds, renewed every `interval` seconds while it runs. A block done sooner sends nothing and starts
    no task: only a timer, cheap to cancel.
    Yields `stop`: nothing more is sent once it is called (the reply itself is on the screen, a draft of it),
    and the timer is gone, so a streamed reply is not woken for it."""

    async def keep_typing() -> None:
        while True:
            try:
                await bot.send_chat_action(chat_id, action)
            except TelegramError as error:
                log.debug("typing indicator failed: %s", error)
            await asyncio.sleep(interval)

    started: list[asyncio.Task[None]] = []  # keep_typing, once the timer has gone off
    timer = asyncio.get_running_loop().call_later(after, lambda: started.append(asyncio.create_task(keep_typing())))

    def stop() -> None:
        timer.cancel()
        for task in started:
            task.cancel()

    try:
        yield stop
    finally:
        stop()
        for task in started:
            with contextlib.suppress(asyncio.CancelledError):
                await task
