"""The Application: python-telegram-bot's own, built around the services that already exist."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application

from handlers.context import Services
from transport.ordering import PerUserUpdateProcessor
from transport.sending import Outage


class CompanionApp(Application):
    """python-telegram-bot's Application with the bot's services as its bot_data from the start, and the per-user
    update processor (which runs a held or an earlier update again through the application's `process_update`)
    built in its constructor, as nothing is set on either afterwards. ApplicationBuilder builds it
    (`application_class`, bot.py)."""

    def __init__(self, *, services: Services, max_concurrent_updates: int, outage: Outage, **kwargs: Any) -> None:
        kwargs["update_processor"] = PerUserUpdateProcessor(
            max_concurrent_updates, outage, services.inbox, kwargs["bot"], self.process_update
        )
        super().__init__(**kwargs)
        self.bot_data = services
