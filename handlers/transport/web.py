"""The bot's web server on PORT: Telegram's webhook POSTs (secret checked), /healthz, and the memory page.

It runs in webhook mode, and in polling mode too when WEBAPP_URL is set (the page needs it there as well).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from http import HTTPStatus
from urllib.parse import urlsplit

import tornado.web
from telegram.ext import Application
from tornado.httpserver import HTTPServer

from config import Config
from handlers.transport.inbox import masked, readable

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class TelegramUpdates(tornado.web.RequestHandler):
    """Queues each update Telegram POSTs, after checking the secret token; anything else gets 403 or 400."""

    def initialize(self, app: Application, secret: str) -> None:
        self.app = app
        self.secret = secret

    async def post(self) -> None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            log.warning("refused a webhook call without the right secret token")
            self.set_status(HTTPStatus.FORBIDDEN)
            return
        try:
            data = masked(json.loads(self.request.body))
            int(data["update_id"])
        except (ValueError, TypeError, KeyError):
            self.set_status(HTTPStatus.BAD_REQUEST)
            return
        update = readable(data, self.app.bot)  # one the library cannot read is skipped, not refused forever
        # On disk before Telegram gets its 200; if that fails, Telegram sends the update again later.
        await self.app.bot_data.inbox.record([data])
        await self.app.update_queue.put(update)
        self.set_status(HTTPStatus.OK)


class Health(tornado.web.RequestHandler):
    """Answers 200 while the bot runs, for the platform's health check."""

    def get(self) -> None:
        self.write("ok")


def webhook_path(url: str) -> str:
    """Return the path Telegram will POST to: the path of WEBHOOK_URL, or '/' when it has none."""
    return urlsplit(url).path or "/"


def build_web_server(app: Application, config: Config, pages: list[tuple]) -> tornado.web.Application:
    """Return the tornado application: /healthz, the webhook path with WEBHOOK_URL, then `pages` (the memory
    page's routes, which bot.py passes in: transport knows nothing of the handlers above it)."""
    routes: list[tuple] = [(r"/healthz", Health)]
    if config.webhook_url and config.webhook_secret:
        routes.append((re.escape(webhook_path(config.webhook_url)), TelegramUpdates,
                       {"app": app, "secret": config.webhook_secret}))
    return tornado.web.Application(routes + pages)


def start_web_server(app: Application, config: Config, pages: list[tuple]) -> HTTPServer:
    """Listen on PORT with the web server; return it (bot.py stops it)."""
    return build_web_server(app, config, pages).listen(config.port)
