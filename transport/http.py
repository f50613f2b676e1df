"""The HTTP client under python-telegram-bot: its BaseRequest over this bot's own small HTTP/1.1 client (net/).

python-telegram-bot sends through httpx by default (HTTPXRequest). On this bot's event loop, httpx, httpcore,
anyio and h11 took about half the CPU of a streamed reply (issue 42), and aiohttp's session, which came next,
still some 0.6 ms of CPU a request run cold: net/connections.py does the same for about a third of that. It
behaves as HTTPXRequest does: its timeouts (5 s each, 1 s to wait for a free connection, 20 s to send a file),
its errors (TimedOut, NetworkError), and multipart bodies for files as it encodes them. Other requests go as JSON,
which the Bot API takes as it takes form fields: orjson writes it in a third of the time that form-encoding takes.
"""

from __future__ import annotations

import uuid
from typing import BinaryIO

from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from net.connections import Pool, Timeouts
from net.http1 import HttpError
from net.json_bytes import dumps, loads

JSON = "application/json"
MEDIA_WRITE_TIMEOUT_S = 20.0  # python-telegram-bot's own, for a request that carries a file


class BotApiRequest(BaseRequest):
    """python-telegram-bot's transport to the Bot API, over one pool of at most `connection_pool_size`
    connections."""

    __slots__ = ("_limit", "_timeouts", "_pool")

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._limit = connection_pool_size
        self._timeouts = Timeouts(connect=connect_timeout, pool=pool_timeout, write=write_timeout, read=read_timeout)
        self._pool: Pool | None = None

    @property
    def read_timeout(self) -> float | None:
        """The read timeout of a request that names none."""
        return self._timeouts.read

    async def initialize(self) -> None:
        """Open the pool (again, after a shutdown)."""
        if self._pool is None or self._pool.closed:
            self._pool = Pool(self._limit, headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        """Close the pool's connections."""
        if self._pool is not None:
            await self._pool.close()

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
        if self._pool is None or self._pool.closed:
            raise RuntimeError("This BotApiRequest is not initialized!")
        content_type, content = body(request_data)
        carries_file = content_type is not None and content_type != JSON  # multipart
        timeouts = self.timeouts(read_timeout, write_timeout, connect_timeout, pool_timeout, carries_file)
        try:
            response = await self._pool.request(method, url, {"Content-Type": content_type} if content_type else {},
                                                 content, timeouts)
            return response.status, await response.read()
        except TimeoutError as error:  # the pool's timeouts are TimeoutErrors too
            raise TimedOut from error
        except HttpError as error:
            raise NetworkError(f"{type(error).__name__}: {error}") from error

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        """Return the Bot API's answer as python-telegram-bot reads it, read by orjson where it can be (a
        getUpdates answer, every reply's; net/json_bytes.py)."""
        return loads(payload, BaseRequest.parse_json_payload)

    def timeouts(self, read: ODVInput[float], write: ODVInput[float], connect: ODVInput[float],
                 pool: ODVInput[float], carries_file: bool) -> Timeouts:
        """Return the timeouts of one request: those given, the transport's for the rest; a request that
        carries a file gets MEDIA_WRITE_TIMEOUT_S to send it unless it names a write timeout."""
        mine = self._timeouts
        if carries_file and isinstance(write, DefaultValue):
            write = MEDIA_WRITE_TIMEOUT_S
        return Timeouts(
            connect=mine.connect if isinstance(connect, DefaultValue) else connect,
            pool=mine.pool if isinstance(pool, DefaultValue) else pool,
            write=mine.write if isinstance(write, DefaultValue) else write,
            read=mine.read if isinstance(read, DefaultValue) else read,
        )


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


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes | BinaryIO, str]]) -> tuple[str, bytes]:
    """Return multipart/form-data's content type and body: each field, then each file with its name and type."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n'.encode()
                     + value.encode())
    for name, (filename, content, mimetype) in files.items():
        if not isinstance(content, bytes):  # a file handle (python-telegram-bot 21.5 may pass one)
            content = content.read()
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"; '
                f'filename="{_quoted(filename)}"\r\nContent-Type: {mimetype}\r\n\r\n')
        parts.append(head.encode() + content)
    return f"multipart/form-data; boundary={boundary}", b"\r\n".join(parts) + f"\r\n--{boundary}--\r\n".encode()


def _quoted(name: str) -> str:
    """A field or file name inside the quotes of Content-Disposition, escaped as browsers (and httpx) do."""
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
