"""The HTTP client under python-telegram-bot: its BaseRequest over an aiohttp session, through public APIs only.

It behaves as python-telegram-bot's own HTTPXRequest does: its timeouts (5 s each, 1 s to wait for a free
connection, 20 s to send a file), its errors (TimedOut, NetworkError), one pool of connections per instance.
aiohttp does the protocol: keep-alive, redirects, decompression, header validation, happy eyeballs from IPv6 to
IPv4, and a connection closed rather than pooled when its answer was not read to the end (a read that timed out,
a task cancelled). Certificates are the system's store, or SSL_CERT_FILE / SSL_CERT_DIR where set. Proxies come
from the environment, read once at start: HTTPS_PROXY, HTTP_PROXY, then ALL_PROXY (which aiohttp alone ignores),
less NO_PROXY's hosts; an http:// proxy, as aiohttp speaks no SOCKS.

Requests without a file go as JSON (orjson), which the Bot API takes as it takes form fields; a request with a
file goes as multipart/form-data, encoded as python-telegram-bot's httpx does (multipart below says why not
aiohttp's FormData).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import IO, Any, cast
from urllib.parse import urlsplit
from urllib.request import getproxies

import aiohttp
from aiohttp.abc import AbstractResolver
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from certificates import trusted
from json_bytes import dumps, loads
from proxies import proxy_for, where

JSON = "application/json"
MEDIA_WRITE_TIMEOUT_S = 20.0  # python-telegram-bot's own, for a request that carries a file
HAPPY_EYEBALLS_DELAY_S = 0.25  # how long an address may stay silent before the next (IPv4 after IPv6) is tried
POOL_TIMEOUT_MESSAGE = (  # python-telegram-bot's words for it: nothing went out, so the request may be sent again
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* sent to Telegram. "
    "Consider adjusting the connection pool size or the pool timeout."
)


@dataclass(frozen=True)
class Timeouts:
    """Seconds each step of a request may take (None: no limit): opening a connection, waiting for a free one
    when the pool is full, sending the body, and each wait for the answer (its head, then every piece of its
    body)."""

    connect: float | None = 5.0
    pool: float | None = 1.0
    write: float | None = 5.0
    read: float | None = 5.0


class BotApiRequest(BaseRequest):
    """python-telegram-bot's transport to the Bot API, over one aiohttp session of at most
    `connection_pool_size` connections."""

    __slots__ = ("_limit", "_timeouts", "_resolver", "_session", "_free", "_proxies")

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        resolver: AbstractResolver | None = None,
    ) -> None:
        """`resolver` replaces aiohttp's name lookup (a test's, to give a name an IPv6 and an IPv4 address)."""
        self._limit = connection_pool_size
        self._timeouts = Timeouts(connect=connect_timeout, pool=pool_timeout, write=write_timeout, read=read_timeout)
        self._resolver = resolver
        self._session: aiohttp.ClientSession | None = None
        self._free: asyncio.Semaphore | None = None
        self._proxies: dict[str, str] = {}

    @property
    def read_timeout(self) -> float | None:
        """The read timeout of a request that names none."""
        return self._timeouts.read

    async def initialize(self) -> None:
        """Open the session (again, after a shutdown), with the environment's proxies and certificates as they
        are now."""
        if self._session is not None and not self._session.closed:
            return
        # Made here rather than at import (as aiohttp's default is): SSL_CERT_FILE and SSL_CERT_DIR are read now.
        connector = aiohttp.TCPConnector(
            limit=self._limit, limit_per_host=0, ssl=trusted(), resolver=self._resolver,
            happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY_S,
        )
        # trust_env stays off: aiohttp would read the environment (and ~/.netrc) again on every request, and it
        # ignores ALL_PROXY; proxy_for chooses from the proxies read once here.
        self._session = aiohttp.ClientSession(
            connector=connector, headers={"User-Agent": self.USER_AGENT}, cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=None), trust_env=False,
        )
        self._free = asyncio.Semaphore(self._limit)
        self._proxies = getproxies()

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        # Each a float, None (no limit) or BaseRequest.DEFAULT_NONE (this transport's own), whose type is private.
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Return the status and body of one request to the Bot API."""
        session, free = self._session, self._free
        if session is None or session.closed or free is None:
            raise RuntimeError("This BotApiRequest is not initialized!")
        content_type, content = body(request_data)
        carries_file = content_type is not None and content_type != JSON  # multipart
        timeouts = self.timeouts(read_timeout, write_timeout, connect_timeout, pool_timeout, carries_file)
        proxy = proxy_for(url, self._proxies)
        if proxy is not None and urlsplit(proxy).scheme != "http":
            raise NetworkError(f"the proxy for {urlsplit(url).hostname} is {where(proxy)}, which this bot cannot "
                               "use: name an http:// proxy in HTTPS_PROXY, HTTP_PROXY or ALL_PROXY")
        try:
            async with asyncio.timeout(timeouts.pool):
                await free.acquire()
        except TimeoutError as error:
            raise TimedOut(POOL_TIMEOUT_MESSAGE) from error
        try:
            response = await self.sent(session, method, url, content_type, content, proxy, timeouts)
            try:
                return response.status, await response.read()
            except BaseException:
                response.close()  # an answer not read to the end leaves its connection unusable: never pooled
                raise
        except TimeoutError as error:  # aiohttp's timeouts are TimeoutErrors too
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error
        finally:
            free.release()

    @staticmethod
    async def sent(session: aiohttp.ClientSession, method: str, url: str, content_type: str | None,
                   content: bytes | None, proxy: str | None,
                   timeouts: Timeouts) -> aiohttp.ClientResponse:
        """Return the response to one request once its head has come, its body still to read."""
        limits = aiohttp.ClientTimeout(total=None, sock_connect=timeouts.connect, sock_read=timeouts.read)
        headers = {"Content-Type": content_type} if content_type else None
        # aiohttp times the connect and each read, but not the send: the head must come within their sum.
        steps = (timeouts.connect, timeouts.write, timeouts.read)
        within = None if None in steps else sum(cast("tuple[float, ...]", steps))
        async with asyncio.timeout(within):
            return await session.request(method, url, data=content, headers=headers, proxy=proxy, timeout=limits)

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """Return the Bot API's answer as python-telegram-bot reads it, read by orjson where it can be (a
        getUpdates answer, every reply's; json_bytes.py)."""
        return loads(payload, BaseRequest.parse_json_payload)

    def timeouts(self, read: object, write: object, connect: object, pool: object, carries_file: bool) -> Timeouts:
        """Return the timeouts of one request: those given, the transport's for the rest; a request that
        carries a file gets MEDIA_WRITE_TIMEOUT_S to send it unless it names a write timeout."""
        mine = self._timeouts
        return Timeouts(
            connect=chosen(connect, mine.connect),
            pool=chosen(pool, mine.pool),
            write=chosen(write, MEDIA_WRITE_TIMEOUT_S if carries_file else mine.write),
            read=chosen(read, mine.read),
        )


def chosen(given: object, otherwise: float | None) -> float | None:
    """Return the timeout a request names (a number or None, no limit), or `otherwise` where it names none."""
    if given is BaseRequest.DEFAULT_NONE:
        return otherwise
    return cast("float | None", given)


def body(request_data: RequestData | None) -> tuple[str | None, bytes | None]:
    """Return the request's content type and body: multipart with its files, as python-telegram-bot encodes it;
    else its parameters as JSON; (None, None) with neither."""
    if request_data is None:
        return None, None
    files = request_data.multipart_data
    if files:
        return multipart(request_data.json_parameters, files)
    parameters = request_data.parameters
    return (JSON, dumps(parameters)) if parameters else (None, None)


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes | IO[bytes], str]]) -> tuple[str, bytes]:
    """Return multipart/form-data's content type and body: each field, then each file with its name and type.

    Not aiohttp's FormData: it either percent-encodes a whole name (the server then reads another name) or
    refuses a CR or LF in a file's name, where httpx and browsers escape only `"`, CR and LF (quoted)."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{quoted(name)}"\r\n\r\n'.encode()
                     + value.encode())
    for name, (filename, content, mimetype) in files.items():
        if not isinstance(content, bytes):  # a file handle (python-telegram-bot may pass one)
            content = content.read()
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="{quoted(name)}"; '
                f'filename="{quoted(filename)}"\r\nContent-Type: {mimetype}\r\n\r\n')
        parts.append(head.encode() + content)
    return f"multipart/form-data; boundary={boundary}", b"\r\n".join(parts) + f"\r\n--{boundary}--\r\n".encode()


def quoted(name: str) -> str:
    """Return a field or file name for the quotes of Content-Disposition, escaped as browsers (and httpx) do."""
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
