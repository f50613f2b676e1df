"""The memory page's routes: its own files and its JSON API, each call signed by Telegram's initData.

Thin, like every handler: check who asks, read the JSON, call the MemoryPage service, answer JSON. A refusal
is one line in the user's language: 401 unsigned or expired, 404 not theirs, 400 not JSON, 413 over 16 KB,
422 a bad field, 429 too many changes. Who asks is checked from the headers, and a declared length over 16 KB
refused, before any body is read (LimitedBody). Neither the bot token nor initData is ever logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from importlib import resources
from pathlib import Path

from aiohttp import web
from telegram import InputFile
from telegram.error import TelegramError
from telegram.ext import Application

from config import Config, webapp_path
from handlers.texts import PAGE_ERRORS, language_of, text
from handlers.webapp.auth import NotSigned, WebAppUser, authorization_data, bot_secret, check_init_data
from handlers.webapp.edit_rate import WriteLimit
from handlers.webapp.view import fact_json, page_json, settings_json
from services.memory_page import MemoryPage
from services.page_input import Refused
from transport.web import LimitedBody

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
    """Serves one of the page's own files, read once from the package, with its tag: a copy the browser holds is
    answered 304 without the file."""

    def __init__(self, request: web.Request, files: dict[str, tuple[bytes, str]], tags: dict[str, str]) -> None:
        super().__init__(request)
        self.files = files
        self.tags = tags

    async def get(self, name: str = "") -> web.StreamResponse:
        if name not in self.files:
            return web.Response(status=HTTPStatus.NOT_FOUND, text="404: Not Found")
        body, kind = self.files[name]
        headers = {**SECURITY_HEADERS, "ETag": self.tags[name]}
        if self.tags[name] in self.request.headers.get("If-None-Match", ""):
            return web.Response(status=HTTPStatus.NOT_MODIFIED, headers=headers)
        return web.Response(body=body, headers={**headers, "Content-Type": f"{kind}; charset=utf-8"})


class PageRedirect(LimitedBody):
    """Redirects the page's path without its slash to the page (301, its query kept), reading no body."""

    def __init__(self, request: web.Request, url: str) -> None:
        super().__init__(request)
        self.url = url

    async def get(self) -> web.StreamResponse:
        query = self.request.query_string
        return web.Response(status=HTTPStatus.MOVED_PERMANENTLY,
                            headers={"Location": f"{self.url}?{query}" if query else self.url})


class Api(LimitedBody):
    """The part every API call shares: who signed it, its JSON body, and answering with JSON."""

    user: WebAppUser
    max_body = MAX_BODY

    def __init__(self, request: web.Request, app: Application, secret: bytes, limit: WriteLimit) -> None:
        super().__init__(request)
        self.app = app
        self.secret = secret
        self.limit = limit
        self.config: Config = app.bot_data.config
        self.page: MemoryPage = app.bot_data.memory_page
        self.headers = {header: value for header, value in SECURITY_HEADERS.items()
                        if header != "Content-Security-Policy"}

    def admit(self) -> web.StreamResponse | None:
        header = self.request.headers.get("Authorization")
        try:
            # initData is URL-encoded: anything else is no signature (and a byte that is no UTF-8, which aiohttp
            # keeps as a lone surrogate, would make the check raise).
            if header is not None and not header.isascii():
                raise NotSigned("the Authorization header is not ASCII")
            self.user = check_init_data(
                authorization_data(header), self.secret, self.app.bot_data.clock(), self.config.webapp_auth_max_age_s,
            )
        except NotSigned as reason:
            log.info("memory page: refused an unsigned call (%s)", reason)
            return self.refuse("signed", None)
        if not self.config.allows(self.user.id):
            return self.refuse("not_allowed")
        if self.request.method != "GET" and not self.limit.allow(self.user.id, time.monotonic()):
            return self.refuse("too_many")
        return None

    def too_big(self) -> web.StreamResponse:
        return self.refuse("too_big")  # a body over 16 KB: 413, given before it is read

    async def run(self, method: Callable[..., Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        try:
            return await super().run(method)
        except Refused as refusal:  # a refusal is an answer, not a fault
            return self.refuse(refusal.code, field=refusal.field)
        except Exception:
            log.exception("memory page: %s %s failed", self.request.method, self.request.path)
            return self.answer({"error": "The server could not do that; try again.", "code": "server"},
                               HTTPStatus.INTERNAL_SERVER_ERROR)

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

    def answer(self, data: dict, status: int = HTTPStatus.OK) -> web.StreamResponse:
        """Return `data` as the JSON answer, with `status`."""
        return web.Response(status=status, text=json.dumps(data, ensure_ascii=False), content_type="application/json",
                            charset="utf-8", headers=self.headers)

    def refuse(self, code: str, language_code: str | None = "", field: str | None = None) -> web.StreamResponse:
        """Return the refusal's status and its one line, in the signed user's language when known."""
        if language_code == "":
            language_code = self.user.language_code
        line = PAGE_ERRORS[language_of(language_code)][code]
        return self.answer({"error": line, "code": code, **({"field": field} if field else {})},
                           STATUS.get(code, HTTPStatus.UNPROCESSABLE_ENTITY))


class MemoryApi(Api):
    """GET api/memory: everything the page shows."""

    async def get(self) -> web.StreamResponse:
        snapshot = await self.page.snapshot(self.user.id)
        personas = self.app.bot_data.personas
        current = personas.chosen(snapshot.settings)
        persona = current.label() if personas.offered or current.name else None
        return self.answer(page_json(snapshot, self.user.language_code, self.config.timezone, self.config.proactive,
                                     speaks=bool(self.config.tts_model), persona=persona))


class FactApi(Api):
    """PATCH api/facts/<id> takes {"value"} and/or {"when"}, or {"shared": bool} (it follows the user into groups, or
    not); DELETE api/facts/<id>."""

    async def patch(self, fact_id: str) -> web.StreamResponse:
        body = self.body()
        if "shared" in body:
            if set(body) != {"shared"} or not isinstance(body["shared"], bool):
                raise Refused("bad_type", "shared")
            fact = await self.page.share(self.user.id, int(fact_id), body["shared"])
        else:
            fact = await self.page.edit(self.user.id, int(fact_id), body)
        return self.answer({"fact": fact_json(fact)})

    async def delete(self, fact_id: str) -> web.StreamResponse:
        await self.page.delete_fact(self.user.id, int(fact_id))
        return self.answer({"deleted": 1})


class NewFactApi(Api):
    """POST api/facts takes {"category", "value", "when"?}: 201 with the fact, 200 when it was already known."""

    async def post(self) -> web.StreamResponse:
        fact, new = await self.page.add(self.user.id, self.body())
        return self.answer({"fact": fact_json(fact)}, HTTPStatus.CREATED if new else HTTPStatus.OK)


class TopicApi(Api):
    """DELETE api/topics/<id>."""

    async def delete(self, topic_id: str) -> web.StreamResponse:
        await self.page.delete_topic(self.user.id, int(topic_id))
        return self.answer({"deleted": 1})


class ReminderApi(Api):
    """DELETE api/reminders/<id>: the reminder is cancelled and never sent."""

    async def delete(self, reminder_id: str) -> web.StreamResponse:
        await self.page.delete_reminder(self.user.id, int(reminder_id))
        return self.answer({"deleted": 1})


class SettingsApi(Api):
    """PATCH api/settings takes {"timezone": zone, city or null, "checkins": bool, "memory": bool}."""

    async def patch(self) -> web.StreamResponse:
        settings, facts = await self.page.change_settings(self.user.id, self.body())
        return self.answer({"settings": settings_json(settings, facts, self.config.timezone, self.config.proactive,
                                                      self.user.language_code, speaks=bool(self.config.tts_model))})


class ForgetApi(Api):
    """POST api/forget takes {"confirm": true} and erases everything, as /forget's Yes does."""

    async def post(self) -> web.StreamResponse:
        if self.body().get("confirm") is not True:
            raise Refused("confirm")
        messages, facts = await self.page.forget_all(self.user.id)
        return self.answer({"messages": messages, "facts": facts})


class ExportApi(Api):
    """POST api/export: the bot sends the /export file into the user's private chat."""

    async def post(self) -> web.StreamResponse:
        document = InputFile(await self.page.export(self.user.id), filename=f"memory-{self.user.id}.json")
        try:
            await self.app.bot.send_document(
                self.user.id, document, caption=text("export_caption", self.user.language_code)
            )
        except TelegramError as error:
            log.warning("memory page: could not send an export: %s", type(error).__name__)
            return self.refuse("send_failed")
        return self.answer({"sent": True})


def page_files() -> dict[str, tuple[bytes, str]]:
    """Return the page's files by the name they are served under ("" for index.html), with their content type."""
    folder = resources.files("handlers.webapp") / "page"
    files = {item.name: (item.read_bytes(), KINDS[Path(item.name).suffix])
             for item in folder.iterdir() if Path(item.name).suffix in KINDS}
    files[""] = files.pop("index.html")
    return files


def page_routes(app: Application, config: Config) -> list[tuple]:
    """Return the routes of the page and its API, all under WEBAPP_URL's path: each a path in aiohttp's syntax, the
    LimitedBody that answers it and what that is built with."""
    base = webapp_path(config.webapp_url or "/")
    api = {"app": app, "secret": bot_secret(config.telegram_token), "limit": WriteLimit()}
    files = page_files()
    page = {"files": files, "tags": {name: f'"{hashlib.sha1(body).hexdigest()}"' for name, (body, _) in files.items()}}
    routes: list[tuple] = [
        (base, PageFile, page),
        (base + r"{name:[a-z]+\.(?:js|css)}", PageFile, page),
        (base + "api/memory", MemoryApi, api),
        (base + "api/facts", NewFactApi, api),
        (base + "api/facts/{fact_id:[0-9]{1,18}}", FactApi, api),
        (base + "api/topics/{topic_id:[0-9]{1,18}}", TopicApi, api),
        (base + "api/reminders/{reminder_id:[0-9]{1,18}}", ReminderApi, api),
        (base + "api/settings", SettingsApi, api),
        (base + "api/forget", ForgetApi, api),
        (base + "api/export", ExportApi, api),
    ]
    if base != "/":  # "/memory" without its slash: the page's relative links need it
        routes.append((base[:-1], PageRedirect, {"url": base}))
    return routes
