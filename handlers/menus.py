"""What Telegram shows beside the chat: the command list and the menu button, set once at start-up."""

from __future__ import annotations

import logging

from telegram import BotCommand, MenuButtonDefault, MenuButtonWebApp, WebAppInfo
from telegram.error import TelegramError
from telegram.ext import Application

from handlers.texts import COMMANDS

log = logging.getLogger(__name__)


async def register_commands(app: Application) -> None:
    """Publish the command menu in English and Russian; a failure is logged, not fatal."""
    try:
        for language, commands in COMMANDS.items():
            menu = [BotCommand(name, description) for name, description in commands]
            await app.bot.set_my_commands(menu, language_code=None if language == "en" else language)
    except TelegramError as error:
        log.warning("could not register the command list with Telegram: %s", error)


async def register_menu_button(app: Application, webapp_url: str | None) -> None:
    """Point the private chats' menu button at the memory page, or put it back when WEBAPP_URL is gone."""
    try:
        if webapp_url:
            await app.bot.set_chat_menu_button(menu_button=MenuButtonWebApp("Memory", WebAppInfo(webapp_url)))
        elif isinstance(await app.bot.get_chat_menu_button(), MenuButtonWebApp):
            await app.bot.set_chat_menu_button(menu_button=MenuButtonDefault())
    except TelegramError as error:
        log.warning("could not set the chat menu button: %s", error)
