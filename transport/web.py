"""The bot's web server on PORT: Telegram's webhook POSTs (secret checked), /healthz, the memory page, and /metrics
behind its bearer token; and on METRICS_PORT, /metrics alone without one. It is aiohttp.web, on the bot's event loop.

It runs in webhook mode, and in polling mode too when WEBAPP_URL or METRICS_TOKEN is set (Config.serves_port); the
metrics port listens whenever METRICS=on names it.
No body is read before its request is allowed: every route answers through `LimitedBody`, which checks who asks
from the headers alone, refuses a declared Content-Length over its route's limit with 413, and reads the body as
it streams, cutting off a chunked one with 413 the moment it passes the limit. A refusal leaves the body unread
and closes the connection at once (`lingering_time=0`: aiohttp would otherwise go on reading and discarding it for
10 s). The server's own limits are a backstop for anything else.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote, urlsplit

from aiohttp import StreamReader, web
from aiohttp.abc import AbstractAccessLogger
from telegram import Update
from telegram.ext import Application, ExtBot

from config import Config
from memory.store.backends import database_errors
from metrics import Metrics
from transport.inbox import MAX_UPDATE_ID, masked, read_update, update_id_of, update_key

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Telegram's largest update: a 4,096-character message (each character up to 6 bytes as a JSON \u escape),
# its entities and buttons, the message it replies to with its own, a quote: a few hundred KB at the very
# most. A mebibyte leaves room for that and refuses anything bigger unread.
WEBHOOK_MAX_BODY = 1_048_576
NO_BODY = 0  # what a GET route takes: nothing (a stray "Content-Length: 0" is fine)
# The largest body any route takes: what `request.read()`, `.json()` or `.post()` would take at most, were a route
# ever to read its body whole instead of through LimitedBody.
SERVER_MAX_BODY = WEBHOOK_MAX_BODY
# A header line's limit: the memory page's Authorization header carries initData, up to 8 KiB before the page
# itself refuses it as too long (handlers/webapp/auth.py); aiohttp's default, 8,190 bytes, would answer a bare 400.
MAX_HEADER_FIELD = 16_384
# How long a stop waits for requests in flight (a webhook POST's write to the inbox, an export sent to Telegram)
# before it cancels them; new connections are refused from the start.
SHUTDOWN_GRACE_S = 5.0
MAX_DEPTH = 64  # Telegram's updates nest about ten levels deep; deeper is garbage, and would exhaust recursion
METHODS = ("GET", "HEAD", "POST", "DELETE", "PATCH", "PUT", "OPTIONS")
QUIET = web.RequestKey("quiet", bool)  # a request marked so leaves no line in the access log (a scrape of /metrics)


def declared_length(headers: Any) -> int | None:
    """Return the body's Content-Length as a number, or None when it has none (chunked) or aiohttp will
    refuse it anyway (not a number)."""
    value = headers.get("Content-Length", "").split(",")[0].strip()  # "5, 5": a proxy's duplicate
    return int(value) if value.isdigit() else None


def header_bytes(value: str) -> bytes:
    """Return a header's value as the bytes that came over the wire: aiohttp decodes them as UTF-8 and keeps a byte
    that is none as a lone surrogate, which a plain `.encode()` would raise on."""
    return value.encode(errors="surrogateescape")


async def read_within(body: StreamReader, limit: int) -> bytes | None:
    """Return the request's body as it streams in, or None the moment it passes `limit` bytes (the rest unread)."""
    received = bytearray()
    async for chunk in body.iter_any():
        received += chunk
        if len(received) > limit:
            return None
    return bytes(received)


class LimitedBody:
    """One request to a route whose body is read only once its headers are allowed, and only up to `max_body`
    bytes: `received` holds it when the HTTP method runs. Subclasses check who asks in `admit()` and answer in
    methods named after the HTTP ones (`get`, `post`...), which take the path's named parts as arguments."""

    max_body = NO_BODY

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.received = b""

    def admit(self) -> web.StreamResponse | None:
        """Return the answer to a request that may not go on, judged from its headers alone; None lets it go on."""
        return None

    def too_big(self) -> web.StreamResponse:
        """Return the answer to a body over this route's limit: 413."""
        return web.Response(status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE, text="413: Request Entity Too Large")

    async def run(self, method: Callable[..., Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        """Return what the HTTP method answers (a subclass turns its own exceptions into answers here)."""
        return await method(**self.request.match_info)

    def handler(self) -> Callable[..., Awaitable[web.StreamResponse]] | None:
        """Return the method that answers the request's HTTP method, or None when this route takes no such method."""
        return getattr(self, self.request.method.lower(), None) if self.request.method in METHODS else None

    def refusal(self, method: Callable[..., Awaitable[web.StreamResponse]] | None) -> web.StreamResponse | None:
        """Return the answer to a request refused from its head alone (who asks, a declared length over the limit,
        a method the route does not take), or None when it may go on."""
        refusal = self.admit()
        if refusal is not None:
            return refusal
        length = declared_length(self.request.headers)
        if length is not None and length > self.max_body:
            return self.too_big()
        if method is None:
            allowed = ", ".join(verb for verb in METHODS if hasattr(self, verb.lower()))
            return web.Response(status=HTTPStatus.METHOD_NOT_ALLOWED, text="405: Method Not Allowed",
                                headers={"Allow": allowed})
        return None

    async def respond(self) -> web.StreamResponse:
        """Return the answer: the HTTP method's, its body read within the limit; or a refusal that leaves the body
        unread and closes the connection."""
        method = self.handler()
        refusal = self.refusal(method)
        if refusal is None and method is not None:
            received = await read_within(self.request.content, self.max_body)
            if received is not None:
                self.received = received
                return await self.run(method)
        answer = refusal if refusal is not None else self.too_big()  # a response with no stored items is falsy
        answer.force_close()  # nothing more may come on a connection whose body was left unread
        return answer


def route(kind: type[LimitedBody], settings: dict[str, Any]) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """Return the aiohttp handler that answers each request with a fresh `kind`, built with `settings`."""

    async def handle(request: web.Request) -> web.StreamResponse:
        return await kind(request, **settings).respond()

    return handle


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

    def __init__(self, request: web.Request, app: Application, secret: str) -> None:
        super().__init__(request)
        self.app = app
        self.secret = secret

    def admit(self) -> web.StreamResponse | None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if hmac.compare_digest(header_bytes(given), header_bytes(self.secret)):
            return None
        log.warning("refused a webhook call without the right secret token")
        return web.Response(status=HTTPStatus.FORBIDDEN)

    async def post(self) -> web.StreamResponse:
        try:
            data = json.loads(self.received)
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested past what Python parses
            data = None
        update_id = update_id_of(data)
        if update_id is None:
            log.warning("refused a webhook body that is not an update with a valid update_id (400)")
            return web.Response(status=HTTPStatus.BAD_REQUEST)
        update, kept = webhook_update(data, update_id, self.app.bot)
        try:
            # On disk before Telegram gets its 200; if that fails, Telegram sends the update again later.
            await self.app.bot_data.inbox.record([kept])
        except database_errors() as error:
            log.warning("could not record update %d; Telegram will send it again (503): %s",
                        update_id, type(error).__name__)
            return web.Response(status=HTTPStatus.SERVICE_UNAVAILABLE)
        await self.app.update_queue.put(update)
        return web.Response(status=HTTPStatus.OK)


class Health(LimitedBody):
    """Answers 200 while the bot runs, for the platform's health check."""

    async def get(self) -> web.StreamResponse:
        return web.Response(text="ok")


def bearer_allows(authorization: str, token: str) -> bool:
    """Return whether an Authorization header carries `token` as a bearer token ("Bearer <token>", the scheme in any
    case); the token is compared in constant time, so a wrong one's answer does not tell how much of it was right,
    and as the bytes that came (a byte that is no UTF-8 does not raise)."""
    scheme, _, given = authorization.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(header_bytes(given.strip()), header_bytes(token))


class MetricsPage(LimitedBody):
    """Answers the metrics in Prometheus's text format; with a token, only to a request that carries it (401)."""

    def __init__(self, request: web.Request, metrics: Metrics, token: str | None) -> None:
        super().__init__(request)
        self.metrics = metrics
        self.token = token

    def admit(self) -> web.StreamResponse | None:
        if self.token is None or bearer_allows(self.request.headers.get("Authorization", ""), self.token):
            return None
        return web.Response(status=HTTPStatus.UNAUTHORIZED, text="401: Unauthorized",
                            headers={"WWW-Authenticate": 'Bearer realm="metrics"'})

    async def get(self) -> web.StreamResponse:
        exposition = await self.metrics.exposition()
        self.request[QUIET] = True
        return web.Response(body=exposition, headers={"Content-Type": self.metrics.content_type})


class NotFound(LimitedBody):
    """Answers 404 to any path no route serves, without reading a body."""

    def admit(self) -> web.StreamResponse | None:
        return web.Response(status=HTTPStatus.NOT_FOUND, text="404: Not Found")


def webhook_path(url: str) -> str:
    """Return the path Telegram will POST to: the path of WEBHOOK_URL, or '/' when it has none."""
    return urlsplit(url).path or "/"


class AccessLog(AbstractAccessLogger):
    """One line a request: INFO, WARNING for a 4xx, ERROR for a 5xx; it names the path but never a header, and
    none for a request marked QUIET (the scrapes of /metrics that succeed: one every 15 s would bury the rest)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        if request.get(QUIET):
            return
        level = (logging.INFO if response.status < HTTPStatus.BAD_REQUEST else
                 logging.WARNING if response.status < HTTPStatus.INTERNAL_SERVER_ERROR else logging.ERROR)
        self.logger.log(level, "%d %s %s (%s) %.2fms", response.status, request.method, request.path_qs,
                        request.remote, time * 1000)


def routes_of(entries: list[tuple]) -> web.Application:
    """Return the aiohttp application that serves `entries` (each a path in aiohttp's syntax, a LimitedBody and
    what it is built with), and any other path with 404; each route takes every method (LimitedBody answers 405
    itself, once the request is allowed)."""
    routes = web.Application(client_max_size=SERVER_MAX_BODY)
    for path, kind, settings in entries:
        if isinstance(path, web.Resource):
            routes.router.register_resource(path)
            resource = path
        else:
            resource = routes.router.add_resource(path)
        resource.add_route("*", route(kind, settings))
    routes.router.add_route("*", "/{anything:.*}", route(NotFound, {}))
    return routes


def build_web_server(app: Application, config: Config, pages: list[tuple],
                     metrics: Metrics | None = None) -> web.Application:
    """Return the aiohttp application on PORT: /healthz, the webhook path with WEBHOOK_URL, /metrics behind its token
    with METRICS_TOKEN, then `pages` (the memory page's routes, which bot.py passes in: transport knows nothing of the
    handlers above it; each is a LimitedBody)."""
    entries: list[tuple] = [("/healthz", Health, {})]
    if config.webhook_url and config.webhook_secret:
        # A plain resource: the path is matched as it is, never read as a pattern; aiohttp matches it decoded.
        hook = web.PlainResource(unquote(webhook_path(config.webhook_url)))
        entries.append((hook, TelegramUpdates, {"app": app, "secret": config.webhook_secret}))
    if metrics is not None and config.metrics and config.metrics_token:
        entries.append(("/metrics", MetricsPage, {"metrics": metrics, "token": config.metrics_token}))
    return routes_of(entries + pages)


def build_metrics_server(metrics: Metrics) -> web.Application:
    """Return the aiohttp application on METRICS_PORT: /metrics without a token, and nothing else."""
    return routes_of([("/metrics", MetricsPage, {"metrics": metrics, "token": None})])


async def serve(routes: web.Application, port: int) -> web.AppRunner:
    """Return a runner of `routes` listening on `port` on every interface, with the limits every route relies on;
    raises OSError when another program holds the port."""
    runner = web.AppRunner(routes, access_log_class=AccessLog, lingering_time=0, max_field_size=MAX_HEADER_FIELD,
                           shutdown_timeout=SHUTDOWN_GRACE_S)
    await runner.setup()
    try:
        await web.TCPSite(runner, port=port).start()
    except OSError:
        await runner.cleanup()
        raise
    return runner


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
        self.server: web.AppRunner | None = None  # while it listens on PORT
        self.metrics_server: web.AppRunner | None = None  # while it listens on METRICS_PORT

    async def start(self, app: Application, config: Config, pages: list[tuple]) -> None:
        """Listen on PORT when it serves anything (Config.serves_port), and on METRICS_PORT when there is one; raises
        PortTaken when another program holds either (stop() then closes what was opened)."""
        if config.serves_port:
            try:
                self.server = await serve(build_web_server(app, config, pages, self.metrics), self.port)
            except OSError as error:
                raise PortTaken("PORT", self.port, error) from None
        if self.metrics is not None and self.metrics_port is not None:
            try:
                self.metrics_server = await serve(build_metrics_server(self.metrics), self.metrics_port)
            except OSError as error:
                raise PortTaken("METRICS_PORT", self.metrics_port, error) from None

    async def stop(self) -> None:
        """Stop taking connections, let the requests in flight finish (SHUTDOWN_GRACE_S at most) and close the
        connections; a second call, or one before start, does nothing."""
        runners = [runner for runner in (self.server, self.metrics_server) if runner is not None]
        self.server = self.metrics_server = None
        for runner in runners:
            await runner.cleanup()
