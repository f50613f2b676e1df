"""The bot's web server on PORT: Telegram's webhook POSTs (secret checked), /healthz, the memory page, and /metrics
behind its bearer token; and on METRICS_PORT, /metrics alone without one.

It runs in webhook mode, and in polling mode too when WEBAPP_URL or METRICS_TOKEN is set (Config.serves_port); the
metrics port listens whenever METRICS=on names it.
No body is read before its request is allowed: every handler streams its body (`LimitedBody`), checks who
asks from the headers alone, refuses a declared Content-Length over its route's limit with 413, and has
tornado cut off a chunked body that passes it. The server's own limit is a backstop for anything else.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from asyncio import Future
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import tornado.web
from telegram import Update
from telegram.ext import Application, ExtBot
from tornado.http1connection import HTTP1Connection
from tornado.httpserver import HTTPServer

from config import Config
from handlers.transport.inbox import MAX_UPDATE_ID, masked, read_update, update_id_of, update_key
from memory.store.backends import database_errors
from metrics import Metrics

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Telegram's largest update: a 4,096-character message (each character up to 6 bytes as a JSON \u escape),
# its entities and buttons, the message it replies to with its own, a quote: a few hundred KB at the very
# most. A mebibyte leaves room for that and refuses anything bigger unread.
WEBHOOK_MAX_BODY = 1_048_576
NO_BODY = 0  # what a GET route takes: nothing (a stray "Content-Length: 0" is fine)
SERVER_MAX_BODY = WEBHOOK_MAX_BODY  # the largest any route takes; tornado's default would be 100 MB
# The stream's read buffer holds the headers (64 KiB at most) and a 64 KiB piece of a body at a time; a
# handler that did not stream would need its whole body in it. Tornado's default would be 100 MB.
SERVER_MAX_BUFFER = SERVER_MAX_BODY + 131_072
MAX_DEPTH = 64  # Telegram's updates nest about ten levels deep; deeper is garbage, and would exhaust recursion


def declared_length(headers: Any) -> int | None:
    """Return the body's Content-Length as a number, or None when it has none (chunked) or tornado will
    refuse it anyway (not a number)."""
    value = headers.get("Content-Length", "").split(",")[0].strip()  # "5, 5": a proxy's duplicate
    return int(value) if value.isdigit() else None


@tornado.web.stream_request_body
class LimitedBody(tornado.web.RequestHandler):
    """A handler whose body is read only once its headers are allowed, and only up to `max_body` bytes:
    `received` holds it when the HTTP method runs. Subclasses check who asks in `admit()`."""

    max_body = NO_BODY
    early = True  # answering now leaves the body unread: tornado then closes the connection
    sent: Future | None = None  # the answer's flush, once finish() has been called

    def admit(self) -> bool:
        """Return whether the request may go on, from its headers alone; one that may not is answered here."""
        return True

    def too_big(self) -> None:
        """Answer 413: the body is over this route's limit."""
        self.send_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)

    async def prepare(self) -> None:
        self.received = bytearray()
        if self.admit() and self.sent is None:
            length = declared_length(self.request.headers)
            connection = self.request.connection
            if length is None or length <= self.max_body:
                # Tornado counts a chunked body as it arrives and closes the connection past this (tornado's server
                # speaks HTTP/1.x only, so its connection is always an HTTP1Connection).
                if isinstance(connection, HTTP1Connection):
                    connection.set_max_body_size(self.max_body)
                self.early = False
                return
            self.too_big()
        if self.sent is not None:
            # Once the answer is out, tornado has closed the connection, so it never starts on the body (which
            # it would otherwise refuse with a bare 400 of its own, after this answer, past its server limit).
            await self.sent

    def data_received(self, chunk: bytes) -> None:
        if self.sent is not None:
            return
        if len(self.received) + len(chunk) > self.max_body:  # tornado's own count stops it first; a backstop
            self.early = True
            self.too_big()
            return
        self.received += chunk

    def finish(self, chunk: Any = None) -> Future[None]:
        if self.early:
            self.set_header("Connection", "close")
        self.sent = super().finish(chunk)
        return self.sent


def depth(data: Any) -> int:
    """Return how deeply lists and objects nest in `data` (a scalar is 0), counted without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def storable(data: Any) -> bool:
    """Return whether the inbox can keep `data` as it is: as UTF-8 JSON, under a 64-bit id of whose it is."""
    key = update_key(data)
    if key is not None and not -MAX_UPDATE_ID - 1 <= key <= MAX_UPDATE_ID:
        return False
    try:
        json.dumps(data, ensure_ascii=False).encode()  # a lone surrogate (JSON allows "\ud800") is no UTF-8
    except UnicodeEncodeError:
        return False
    return True


def webhook_update(data: dict, update_id: int, bot: ExtBot) -> tuple[Update, dict]:
    """Return the update to queue and what the inbox records of it: the update with its secrets masked, or
    only its id when it cannot be kept or read (the processor then skips it, and Telegram, answered 200,
    does not send it again). Logs one WARNING for each one skipped."""
    bare = {"update_id": update_id}
    if depth(data) > MAX_DEPTH:
        log.warning("update %d nests deeper than %d levels and is skipped", update_id, MAX_DEPTH)
        return Update(update_id=update_id), bare
    data = masked(data)
    if not storable(data):
        log.warning("update %d holds what the inbox cannot keep (an id past 64 bits, a lone surrogate) and is"
                    " skipped", update_id)
        return Update(update_id=update_id), bare
    update = read_update(data, bot)  # one the library cannot read is skipped (one warning), not refused forever
    if update is None:
        return Update(update_id=update_id), bare  # kept as its id alone: a replay after a crash would not read it
    return update, data


class TelegramUpdates(LimitedBody):
    """Queues each update Telegram POSTs, after checking the secret token; anything else gets 403 or 400."""

    max_body = WEBHOOK_MAX_BODY

    def initialize(self, app: Application, secret: str) -> None:
        self.app = app
        self.secret = secret

    def admit(self) -> bool:
        given = self.request.headers.get(SECRET_HEADER, "")
        if hmac.compare_digest(given.encode(), self.secret.encode()):
            return True
        log.warning("refused a webhook call without the right secret token")
        self.set_status(HTTPStatus.FORBIDDEN)
        self.finish()
        return False

    async def post(self) -> None:
        try:
            data = json.loads(self.received)
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested past what Python parses
            data = None
        update_id = update_id_of(data)
        if update_id is None:
            log.warning("refused a webhook body that is not an update with a valid update_id (400)")
            self.set_status(HTTPStatus.BAD_REQUEST)
            return
        update, kept = webhook_update(data, update_id, self.app.bot)
        try:
            # On disk before Telegram gets its 200; if that fails, Telegram sends the update again later.
            await self.app.bot_data.inbox.record([kept])
        except database_errors() as error:
            log.warning("could not record update %d; Telegram will send it again (503): %s",
                        update_id, type(error).__name__)
            self.set_status(HTTPStatus.SERVICE_UNAVAILABLE)
            return
        await self.app.update_queue.put(update)
        self.set_status(HTTPStatus.OK)


class Health(LimitedBody):
    """Answers 200 while the bot runs, for the platform's health check."""

    def get(self) -> None:
        self.write("ok")


def bearer_allows(authorization: str, token: str) -> bool:
    """Return whether an Authorization header carries `token` as a bearer token ("Bearer <token>", the scheme in any
    case); the token is compared in constant time, so a wrong one's answer does not tell how much of it was right."""
    scheme, _, given = authorization.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


class MetricsPage(LimitedBody):
    """Answers the metrics in Prometheus's text format; with a token, only to a request that carries it (401)."""

    def initialize(self, metrics: Metrics, token: str | None) -> None:
        self.metrics = metrics
        self.token = token

    def admit(self) -> bool:
        if self.token is None or bearer_allows(self.request.headers.get("Authorization", ""), self.token):
            return True
        self.set_status(HTTPStatus.UNAUTHORIZED)
        self.set_header("WWW-Authenticate", 'Bearer realm="metrics"')
        self.finish()
        return False

    async def get(self) -> None:
        self.set_header("Content-Type", self.metrics.content_type)
        self.write(await self.metrics.exposition())


class NotFound(LimitedBody):
    """Answers 404 to any path no route serves, without reading a body."""

    def admit(self) -> bool:
        self.send_error(HTTPStatus.NOT_FOUND)
        return False


def webhook_path(url: str) -> str:
    """Return the path Telegram will POST to: the path of WEBHOOK_URL, or '/' when it has none."""
    return urlsplit(url).path or "/"


class Routes(tornado.web.Application):
    """A tornado application whose scrapes of /metrics that succeed leave no line in the log: one every 15 s would
    bury the rest."""

    def log_request(self, handler: tornado.web.RequestHandler) -> None:
        if not (isinstance(handler, MetricsPage) and handler.get_status() < HTTPStatus.BAD_REQUEST):
            super().log_request(handler)


def build_web_server(app: Application, config: Config, pages: list[tuple],
                     metrics: Metrics | None = None) -> tornado.web.Application:
    """Return the tornado application on PORT: /healthz, the webhook path with WEBHOOK_URL, /metrics behind its token
    with METRICS_TOKEN, then `pages` (the memory page's routes, which bot.py passes in: transport knows nothing of the
    handlers above it; each is a LimitedBody)."""
    routes: list[tuple] = [(r"/healthz", Health)]
    if config.webhook_url and config.webhook_secret:
        routes.append((re.escape(webhook_path(config.webhook_url)), TelegramUpdates,
                       {"app": app, "secret": config.webhook_secret}))
    if metrics is not None and config.metrics and config.metrics_token:
        routes.append((r"/metrics", MetricsPage, {"metrics": metrics, "token": config.metrics_token}))
    return Routes(routes + pages, default_handler_class=NotFound)


def build_metrics_server(metrics: Metrics) -> tornado.web.Application:
    """Return the tornado application on METRICS_PORT: /metrics without a token, and nothing else."""
    return Routes([(r"/metrics", MetricsPage, {"metrics": metrics, "token": None})], default_handler_class=NotFound)


def serve(routes: tornado.web.Application, port: int) -> HTTPServer:
    """Return a server of `routes` listening on `port`, with the body limits every route relies on; raises OSError
    when another program holds the port."""
    server = HTTPServer(routes, max_body_size=SERVER_MAX_BODY, max_buffer_size=SERVER_MAX_BUFFER)
    try:
        server.listen(port)
    except OSError:
        server.stop()
        raise
    return server


class PortTaken(OSError):
    """Another program holds one of the ports; `setting` names it (PORT or METRICS_PORT)."""

    def __init__(self, setting: str, port: int, error: OSError) -> None:
        super().__init__(error.errno, error.strerror or str(error))
        self.setting, self.port = setting, port


class WebServer:
    """The web server on PORT (/healthz, the webhook, the memory page, /metrics behind its token) and on METRICS_PORT
    (/metrics alone): started once the bot is up (bot.py), stopped before it shuts down."""

    def __init__(self, port: int, metrics: Metrics | None = None, metrics_port: int | None = None) -> None:
        """`metrics`: what /metrics serves (None: no /metrics anywhere); `metrics_port`: a port serving only that."""
        self.port = port
        self.metrics = metrics
        self.metrics_port = metrics_port
        self.server: HTTPServer | None = None  # while it listens on PORT
        self.metrics_server: HTTPServer | None = None  # while it listens on METRICS_PORT

    def start(self, app: Application, config: Config, pages: list[tuple]) -> None:
        """Listen on PORT when it serves anything (Config.serves_port), and on METRICS_PORT when there is one; raises
        PortTaken when another program holds either (stop() then closes what was opened)."""
        if config.serves_port:
            try:
                self.server = serve(build_web_server(app, config, pages, self.metrics), self.port)
            except OSError as error:
                raise PortTaken("PORT", self.port, error) from None
        if self.metrics is not None and self.metrics_port is not None:
            try:
                self.metrics_server = serve(build_metrics_server(self.metrics), self.metrics_port)
            except OSError as error:
                raise PortTaken("METRICS_PORT", self.metrics_port, error) from None

    async def stop(self) -> None:
        """Stop taking connections and close the open ones; a second call, or one before start, does nothing."""
        servers = [server for server in (self.server, self.metrics_server) if server is not None]
        self.server = self.metrics_server = None
        for server in servers:
            server.stop()
            await server.close_all_connections()
