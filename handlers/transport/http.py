"""The HTTP client under python-telegram-bot: its BaseRequest over aiohttp, the stack the model's SDK uses too.

python-telegram-bot sends through httpx by default (HTTPXRequest). On this bot's event loop, httpx, httpcore,
anyio and h11 took about half the CPU of a streamed reply (issue 42: ~7 Bot API requests a reply, with its
drafts); aiohttp's C parser over a plain asyncio transport does the same work for a fraction. It behaves as
HTTPXRequest does: its timeouts (5 s each, 1 s to wait for a free connection, 20 s to send a file), its errors
(TimedOut, NetworkError), and the body as python-telegram-bot encodes it: form fields, or multipart with files.
"""

from __future__ import annotations

from urllib.parse import urlencode

import aiohttp
from aiohttp.payload import BytesPayload
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

FORM = "application/x-www-form-urlencoded"
MEDIA_WRITE_TIMEOUT_S = 20.0  # python-telegram-bot's own, for a request that carries a file


class AiohttpRequest(BaseRequest):
    """python-telegram-bot's transport to the Bot API, over one aiohttp session of `connection_pool_size`."""

    __slots__ = ("_limit", "_timeouts", "_session")

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._limit = connection_pool_size
        self._timeouts = {"read": read_timeout, "write": write_timeout, "connect": connect_timeout,
                          "pool": pool_timeout}
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        """The read timeout of a request that names none."""
        return self._timeouts["read"]

    async def initialize(self) -> None:
        """Open the session (again, after a shutdown)."""
        if self._session is None or self._session.closed:
            # No cookies: the Bot API sets none, and a jar would only cost a lookup a request.
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._limit), cookie_jar=aiohttp.DummyCookieJar(),
                headers={"User-Agent": self.USER_AGENT},
            )

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Return the status and body of one request to the Bot API."""
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        timeout = self.timeout(read_timeout, write_timeout, connect_timeout, pool_timeout, bool(files))
        try:
            async with self._session.request(
                method, url, data=body(fields, files), timeout=timeout, allow_redirects=False
            ) as response:
                return response.status, await response.read()
        except TimeoutError as error:  # aiohttp's timeouts are TimeoutErrors too
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error

    def timeout(
        self, read: ODVInput[float], write: ODVInput[float], connect: ODVInput[float], pool: ODVInput[float],
        carries_file: bool,
    ) -> aiohttp.ClientTimeout:
        """Return aiohttp's timeouts for one request: those given, the session's for the rest.

        aiohttp has no timeout for sending the body; a request that carries a file gets its send time (20 s
        by default) as a bound on the whole request, on top of its connect and read times.
        """
        given = {"read": read, "write": write, "connect": connect, "pool": pool}
        chosen = {name: self._timeouts[name] if isinstance(value, DefaultValue) else value
                  for name, value in given.items()}
        if carries_file and isinstance(write, DefaultValue):
            chosen["write"] = MEDIA_WRITE_TIMEOUT_S
        connect_s, pool_s = chosen["connect"], chosen["pool"]
        # aiohttp's `connect` covers waiting for a free connection and opening one.
        total_connect = None if connect_s is None or pool_s is None else connect_s + pool_s
        whole = None
        if carries_file and None not in (chosen["write"], chosen["read"], total_connect):
            whole = chosen["write"] + chosen["read"] + total_connect  # type: ignore[operator]
        return aiohttp.ClientTimeout(total=whole, connect=total_connect, sock_connect=connect_s,
                                     sock_read=chosen["read"])


def body(fields: dict[str, str] | None, files: dict | None) -> aiohttp.FormData | BytesPayload | None:
    """Return the request's body as python-telegram-bot encodes it: form fields, or multipart with its files.

    Fields alone are encoded here, the bytes aiohttp's FormData gives for them: handed a dict, aiohttp first
    looks for a payload type that fits it, fails, then builds a multipart writer it throws away (a sixth of
    each request's CPU, issue 42).
    """
    if not files:
        return BytesPayload(urlencode(fields).encode(), content_type=FORM) if fields else None
    form = aiohttp.FormData(quote_fields=False)
    for name, value in (fields or {}).items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in files.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form
