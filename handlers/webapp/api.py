"""The memory page's routes: its own files and its JSON API, each call signed by Telegram's initData.

Thin, like every handler: check who asks, read the JSON, call the MemoryPage service, answer JSON. A refusal
is one line in the user's language: 401 unsigned or expired, 404 not theirs, 400 not JSON or over 16 KB,
422 a bad field, 429 too many changes. Who asks is checked from the headers, and a declared length over 16 KB
refused, before any body is read (LimitedBody). Neither the bot token nor initData is ever logged.
"""

from __future__ import annotations

import json
import logging
import re
import time
from http import HTTPStatus
from importlib import resources
from pathlib import Path

import tornado.web
from telegram import InputFile
from telegram.error import TelegramError
from telegram.ext import Application

from config import Config, webapp_path
from handlers.texts import PAGE_ERRORS, language_of, text
from handlers.transport.web import LimitedBody
from handlers.webapp.auth import NotSigned, WebAppUser, authorization_data, bot_secret, check_init_data
from handlers.webapp.edit_rate import WriteLimit
from handlers.webapp.view import fact_json, page_json, settings_json
from services.memory_page import MemoryPage
from services.page_input import Refused

log = logging.getLogger(__name__)
KINDS = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
MAX_BODY = 16_384  # a fact is at most 200 characters; a bigger body is not the page's
# What the page may load and reach: its own files and API only. Telegram's clients frame it (Telegram Web
# in an iframe), nothing else may.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; base-uri 'none'; form-action 'none';"
    " frame-ancestors https://web.telegram.org https://*.telegram.org",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
STATUS = {"not_found": HTTPStatus.NOT_FOUND, "bad_json": HTTPStatus.BAD_REQUEST, "signed": HTTPStatus.UNAUTHORIZED,
          "too_many": HTTPStatus.TOO_MANY_REQUESTS, "not_allowed": HTTPStatus.FORBIDDEN,
          "send_failed": HTTPStatus.BAD_GATEWAY, "too_big": HTTPStatus.REQUEST_ENTITY_TOO_LARGE}


class PageFile(LimitedBody):
    """Serves one of the page's own files, read once from the package."""

    def initialize(self, files: dict[str, tuple[bytes, str]]) -> None:
        self.files = files

    def get(self, name: str | None = None) -> None:
        if (name or "") not in self.files:
            raise tornado.web.HTTPError(HTTPStatus.NOT_FOUND)
        body, kind = self.files[name or ""]
        for header, value in SECURITY_HEADERS.items():
            self.set_header(header, value)
        self.set_header("Content-Type", f"{kind}; charset=utf-8")
        self.write(body)


class PageRedirect(LimitedBody, tornado.web.RedirectHandler):
    """Redirects the page's path without its slash to the page, reading no body."""


class Api(LimitedBody):
    """The part every API call shares: who signed it, its JSON body, and answering with JSON."""

    user: WebAppUser
    max_body = MAX_BODY

    def initialize(self, app: Application, secret: bytes, limit: WriteLimit) -> None:
        self.app = app
        self.secret = secret
        self.limit = limit
        self.config: Config = app.bot_data.config
        self.page: MemoryPage = app.bot_data.memory_page

    def admit(self) -> bool:
        for header, value in SECURITY_HEADERS.items():
            if header != "Content-Security-Policy":
                self.set_header(header, value)
        try:
            self.user = check_init_data(
                authorization_data(self.request.headers.get("Authorization")), self.secret,
                self.app.bot_data.clock(), self.config.webapp_auth_max_age_s,
            )
        except NotSigned as reason:
            log.info("memory page: refused an unsigned call (%s)", reason)
            self.refuse("signed", None)
            return False
        if not self.config.allows(self.user.id):
            self.refuse("not_allowed")
            return False
        if self.request.method != "GET" and not self.limit.allow(self.user.id, time.monotonic()):
            self.refuse("too_many")
            return False
        return True

    def too_big(self) -> None:
        self.refuse("too_big")  # a body over 16 KB: 413, given before it is read

    def body(self) -> dict:
        """Return the request's JSON object (LimitedBody has kept it within MAX_BODY); raise Refused('bad_json')
        for anything else."""
        try:
            data = json.loads(self.received or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise Refused("bad_json") from None
        if not isinstance(data, dict):
            raise Refused("bad_json")
        return data

    def answer(self, data: dict, status: int = HTTPStatus.OK) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(data, ensure_ascii=False))

    def refuse(self, code: str, language_code: str | None = "", field: str | None = None) -> None:
        """Answer with the refusal's status and its one line, in the signed user's language when known."""
        if language_code == "":
            language_code = self.user.language_code
        line = PAGE_ERRORS[language_of(language_code)][code]
        self.answer({"error": line, "code": code, **({"field": field} if field else {})},
                    STATUS.get(code, HTTPStatus.UNPROCESSABLE_ENTITY))

    def log_exception(self, kind, error, trace) -> None:
        if not isinstance(error, Refused):  # a refusal is an answer, not a fault
            super().log_exception(kind, error, trace)

    def write_error(self, status_code: int, **kwargs) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(error, Refused):
            self.refuse(error.code, field=error.field)
            return
        self.finish({"error": "The server could not do that; try again.", "code": "server"})


class MemoryApi(Api):
    """GET api/memory: everything the page shows."""

    async def get(self) -> None:
        snapshot = await self.page.snapshot(self.user.id)
        self.answer(page_json(snapshot, self.user.language_code, self.config.timezone, self.config.proactive))


class FactApi(Api):
    """PATCH api/facts/<id> takes {"value"} and/or {"when"}, or {"shared": bool} (it follows the user into groups, or
    not); DELETE api/facts/<id>."""

    async def patch(self, fact_id: str) -> None:
        body = self.body()
        if "shared" in body:
            if set(body) != {"shared"} or not isinstance(body["shared"], bool):
                raise Refused("bad_type", "shared")
            fact = await self.page.share(self.user.id, int(fact_id), body["shared"])
        else:
            fact = await self.page.edit(self.user.id, int(fact_id), body)
        self.answer({"fact": fact_json(fact)})

    async def delete(self, fact_id: str) -> None:
        await self.page.delete_fact(self.user.id, int(fact_id))
        self.answer({"deleted": 1})


class NewFactApi(Api):
    """POST api/facts takes {"category", "value", "when"?}: 201 with the fact, 200 when it was already known."""

    async def post(self) -> None:
        fact, new = await self.page.add(self.user.id, self.body())
        self.answer({"fact": fact_json(fact)}, HTTPStatus.CREATED if new else HTTPStatus.OK)


class TopicApi(Api):
    """DELETE api/topics/<id>."""

    async def delete(self, topic_id: str) -> None:
        await self.page.delete_topic(self.user.id, int(topic_id))
        self.answer({"deleted": 1})


class ReminderApi(Api):
    """DELETE api/reminders/<id>: the reminder is cancelled and never sent."""

    async def delete(self, reminder_id: str) -> None:
        await self.page.delete_reminder(self.user.id, int(reminder_id))
        self.answer({"deleted": 1})


class SettingsApi(Api):
    """PATCH api/settings takes {"timezone": zone, city or null, "checkins": bool, "memory": bool}."""

    async def patch(self) -> None:
        settings, facts = await self.page.change_settings(self.user.id, self.body())
        self.answer({"settings": settings_json(settings, facts, self.config.timezone, self.config.proactive,
                                               self.user.language_code)})


class ForgetApi(Api):
    """POST api/forget takes {"confirm": true} and erases everything, as /forget's Yes does."""

    async def post(self) -> None:
        if self.body().get("confirm") is not True:
            raise Refused("confirm")
        messages, facts = await self.page.forget_all(self.user.id)
        self.answer({"messages": messages, "facts": facts})


class ExportApi(Api):
    """POST api/export: the bot sends the /export file into the user's private chat."""

    async def post(self) -> None:
        document = InputFile(await self.page.export(self.user.id), filename=f"memory-{self.user.id}.json")
        try:
            await self.app.bot.send_document(
                self.user.id, document, caption=text("export_caption", self.user.language_code)
            )
        except TelegramError as error:
            log.warning("memory page: could not send an export: %s", type(error).__name__)
            self.refuse("send_failed")
            return
        self.answer({"sent": True})


def page_files() -> dict[str, tuple[bytes, str]]:
    """Return the page's files by the name they are served under ("" for index.html), with their content type."""
    folder = resources.files("handlers.webapp") / "page"
    files = {item.name: (item.read_bytes(), KINDS[Path(item.name).suffix])
             for item in folder.iterdir() if Path(item.name).suffix in KINDS}
    files[""] = files.pop("index.html")
    return files


def page_routes(app: Application, config: Config) -> list[tuple]:
    """Return the tornado routes of the page and its API, all under WEBAPP_URL's path."""
    base = webapp_path(config.webapp_url or "/")
    root = re.escape(base)
    api = {"app": app, "secret": bot_secret(config.telegram_token), "limit": WriteLimit()}
    files = {"files": page_files()}
    routes: list[tuple] = [
        (root + r"([a-z]+\.(?:js|css))?", PageFile, files),
        (root + r"api/memory", MemoryApi, api),
        (root + r"api/facts", NewFactApi, api),
        (root + r"api/facts/([0-9]{1,18})", FactApi, api),
        (root + r"api/topics/([0-9]{1,18})", TopicApi, api),
        (root + r"api/reminders/([0-9]{1,18})", ReminderApi, api),
        (root + r"api/settings", SettingsApi, api),
        (root + r"api/forget", ForgetApi, api),
        (root + r"api/export", ExportApi, api),
    ]
    if base != "/":  # "/memory" without its slash: the page's relative links need it
        routes.append((re.escape(base[:-1]), PageRedirect, {"url": base}))
    return routes
