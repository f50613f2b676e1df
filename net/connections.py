"""A small HTTP/1.1 client: a pool of keep-alive connections, each an asyncio protocol reading its socket itself.

Why not aiohttp or httpx: on a machine that sleeps between messages each request runs cold, and a request
through aiohttp's session took some 0.6 ms of CPU on top of waking up, one through this about 0.2 (issue 42,
bench/README.md): a message makes three to five of them. This does only what the bot's two servers need:
requests with a body in memory, answers read whole or piece by piece (a stream can stop reading for a while),
HTTP and HTTPS, no redirects, no cookies, no proxies (llm/servers.py keeps the SDK's own client where a proxy
is set). Its errors are HttpError's kinds (net/http1.py); a timeout is an HttpTimeout, also a TimeoutError.
"""

from __future__ import annotations

import asyncio
import select
import ssl
import zlib
from collections import deque
from dataclasses import dataclass
from typing import Callable
from urllib.parse import quote, urlsplit

from net.http1 import BadResponse, HttpError, ResponseParser, request_head

IDLE_S = 30.0  # a connection idle for longer is not used again: the server may be closing it right now
MAX_URLS = 512  # URLs whose split is kept (each Bot API method is one)


class ConnectFailed(HttpError):
    """No connection to the server could be opened."""


class ConnectionBroken(HttpError):
    """The connection broke before the response was whole."""


class HttpTimeout(HttpError, TimeoutError):
    """A step of a request took longer than its timeout: `step` is connect, pool, write or read."""

    def __init__(self, step: str, server: str) -> None:
        super().__init__(f"{step} timeout talking to {server}")
        self.step = step


@dataclass(frozen=True)
class Timeouts:
    """Seconds each step may take (None: no limit): opening a connection, waiting for a free one when the pool is
    full, sending the body, and each wait for the answer (its head, then every piece of its body)."""

    connect: float | None = 5.0
    pool: float | None = 5.0
    write: float | None = 5.0
    read: float | None = 5.0


class Connection(asyncio.Protocol):
    """One connection to a server, carrying one request at a time; the pool holds it between requests."""

    def __init__(self, pool: "Pool", key: tuple[str, str, int]) -> None:
        self.pool, self.key = pool, key
        self.transport: asyncio.Transport | None = None
        self.parser: ResponseParser | None = None  # the response being read; None while idle
        self.pieces: deque[bytes] = deque()
        self.error: Exception | None = None
        self.closed = False
        self.counted = False  # the pool counts it among its connections
        self.idle_since = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self._writable: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        parser = self.parser
        if parser is None or self.error is not None:  # bytes nobody asked for: the connection is not to be trusted
            self.close()
            return
        try:
            pieces = parser.feed(data)
        except BadResponse as error:
            self._fail(error)
            return
        if pieces:
            self.pieces.extend(pieces)
        self._wake()

    def eof_received(self) -> bool:
        if self.parser is not None:
            try:
                self.parser.feed_eof()
            except BadResponse as error:
                self._fail(ConnectionBroken(f"{error} ({self.key[1]})"))
                return False
            self._wake()
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.parser is not None and not self.parser.done and self.error is None:
            self.error = ConnectionBroken(f"the connection to {self.key[1]} broke: {exc or 'closed by the server'}")
        self._wake()
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self.pool._lost(self)

    def pause_writing(self) -> None:
        self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._writable = None

    def close(self) -> None:
        """Close the connection (a request cut short, a broken answer): it carries nothing more."""
        self.closed = True
        if self.transport is not None and self.transport.get_write_buffer_size():
            self.transport.abort()  # close() would wait to send a request given up, on a server not reading forever
        elif self.transport is not None:
            self.transport.close()

    def _fail(self, error: Exception) -> None:
        self.error = error
        self.close()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def send(self, data: bytes, timeout: float | None) -> None:
        """Write a request; wait, up to `timeout`, while the socket's buffer is full."""
        assert self.transport is not None
        self.transport.write(data)
        if self._writable is not None:
            await self._wait(self._writable, timeout, "write")

    async def arrival(self, timeout: float | None) -> None:
        """Wait, up to `timeout`, for the next bytes of the answer (or its end, or a failure)."""
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._wait(self._waiter, timeout, "read")
        finally:
            self._waiter = None

    async def _wait(self, future: asyncio.Future[None], timeout: float | None, step: str) -> None:
        if timeout is None:
            await future
            return
        timer = asyncio.get_running_loop().call_later(timeout, _expire, future, step, self.key[1])
        try:
            await future
        finally:
            timer.cancel()


def _expire(future: asyncio.Future[None], step: str, server: str) -> None:
    if not future.done():
        future.set_exception(HttpTimeout(step, server))


class Response:
    """An answer: `status` and `headers` (lowercased names) at once; the body whole (`read`, then `content`) or
    piece by piece as it arrives (`next_piece`). `close` hands a finished connection back to the pool."""

    def __init__(self, connection: Connection, parser: ResponseParser, read_timeout: float | None) -> None:
        self.status, self.headers = parser.status, parser.headers
        self.http11 = parser.version == "HTTP/1.1"
        self.content = b""
        self.connection: Connection | None = connection
        self._parser = parser
        self._read_timeout = read_timeout
        self._resting: asyncio.TimerHandle | None = None  # the timer that reads the socket again (`rest`)
        coding = parser.headers.get("content-encoding", "").strip().lower()
        # No request here asks for a compressed answer; one that comes anyway is read (gzip, deflate).
        self._decoder = zlib.decompressobj(47) if coding in ("gzip", "x-gzip", "deflate") else None

    async def read(self) -> bytes:
        """Return the whole body (also kept as `content`); the connection goes back to the pool."""
        parts = []
        while (piece := await self.next_piece()) is not None:
            parts.append(piece)
        self.content = b"".join(parts)
        return self.content

    async def next_piece(self) -> bytes | None:
        """Return the body's bytes that came since the last call, waiting for some; None once it is all read
        (and the connection handed back)."""
        connection = self.connection
        if connection is None:
            return None
        while not connection.pieces:
            if connection.error is not None:
                self.close()
                raise connection.error
            if self._parser.done:
                tail = self._decoder.flush() if self._decoder is not None else b""
                self.close()
                return tail or None
            if connection.closed:
                self.close()
                raise ConnectionBroken(f"the connection to {connection.key[1]} closed")
            await connection.arrival(self._read_timeout)
        pieces = connection.pieces
        data = pieces.popleft() if len(pieces) == 1 else b"".join([pieces.popleft() for _ in range(len(pieces))])
        if self._decoder is not None:
            try:
                return self._decoder.decompress(data) or await self.next_piece()
            except zlib.error as error:
                self.close()
                raise BadResponse(f"the answer's compressed body does not read: {error}") from error
        return data

    def pause_reading(self) -> bool:
        """Stop reading the socket, so that the kernel gathers what comes until `resume_reading`; False, with
        nothing paused, when the body is all in or the connection closed."""
        connection = self.connection
        if connection is None or connection.transport is None or connection.closed or self._parser.done:
            return False
        connection.transport.pause_reading()
        return True

    def resume_reading(self) -> None:
        if self._resting is not None:
            self._resting.cancel()
            self._resting = None
        if self.connection is not None and self.connection.transport is not None and not self.connection.closed:
            self.connection.transport.resume_reading()

    def rest(self, seconds: float) -> bool:
        """Stop reading the socket for `seconds`, after which a timer reads it again: the next `next_piece` gets
        what came meanwhile, at one wake-up of the process (sleeping, then resuming, would take two). False,
        with nothing paused, when the body is all in."""
        if seconds <= 0 or not self.pause_reading():
            return False
        if self._resting is not None:
            self._resting.cancel()
        self._resting = asyncio.get_running_loop().call_later(seconds, self.resume_reading)
        return True

    def close(self) -> None:
        """Give the connection back for another request when this answer was read to its end; else close it."""
        if self._resting is not None:
            self._resting.cancel()
            self._resting = None
        connection, self.connection = self.connection, None
        if connection is None:
            return
        if self._parser.done and self._parser.keep_alive and connection.error is None and not connection.closed:
            connection.pool._release(connection)
        else:
            connection.close()


class Pool:
    """Keep-alive connections to any number of servers, at most `limit` open at once."""

    def __init__(self, limit: int = 100, idle_s: float = IDLE_S, ssl_context: ssl.SSLContext | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.limit, self.idle_s = limit, idle_s
        self.headers = headers or {}  # sent with every request (a User-Agent)
        self._ssl = ssl_context
        self._idle: dict[tuple[str, str, int], list[Connection]] = {}
        self._count = 0  # connections open or opening
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._urls: dict[str, tuple[tuple[str, str, int], str, str]] = {}
        self.closed = False

    async def request(self, method: str, url: str, headers: dict[str, str], body: bytes | None,
                      timeouts: Timeouts) -> Response:
        """Send a request and return its answer once its head has come; the body is the caller's to read."""
        if self.closed:
            raise RuntimeError("the HTTP pool is closed")
        key, target, host = self._split(url)
        connection = await self._connection(key, timeouts)
        parser = connection.parser = ResponseParser(head_only=method == "HEAD")
        connection.pieces.clear()
        try:
            wanted = {**self.headers, **headers} if self.headers else headers
            head = request_head(method, target, host, wanted, len(body) if body is not None else None)
            await connection.send(head + body if body else head, timeouts.write)
            while not parser.head_done:
                if connection.error is not None:
                    raise connection.error
                if connection.closed:
                    raise ConnectionBroken(f"{key[1]} closed the connection without an answer")
                await connection.arrival(timeouts.read)
        except BaseException:
            connection.close()
            raise
        return Response(connection, parser, timeouts.read)

    async def close(self) -> None:
        """Close every idle connection; those in use close when their answers do."""
        self.closed = True
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    def _split(self, url: str) -> tuple[tuple[str, str, int], str, str]:
        known = self._urls.get(url)
        if known is not None:
            return known
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("only http and https URLs are sent")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        target = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
        if parts.query:
            target += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        known = ((parts.scheme, parts.hostname, port), target,
                 host if parts.port is None else f"{host}:{port}")
        if len(self._urls) >= MAX_URLS:
            self._urls.clear()
        self._urls[url] = known
        return known

    async def _connection(self, key: tuple[str, str, int], timeouts: Timeouts) -> Connection:
        """An idle connection to the server, a new one while the pool has room, else the first to come free."""
        loop = asyncio.get_running_loop()
        while True:
            idle = self._idle.get(key)
            while idle:
                connection = idle.pop()
                if not connection.closed and loop.time() - connection.idle_since < self.idle_s and not _readable(
                        connection):
                    return connection
                connection.close()
            if self._count >= self.limit:
                self._close_an_idle()  # to another server (none to this one is left): its room is this request's
            if self._count < self.limit:
                return await self._open(key, timeouts.connect)
            waiter = loop.create_future()
            self._waiting.append(waiter)
            timer = (loop.call_later(timeouts.pool, _expire, waiter, "pool", key[1])
                     if timeouts.pool is not None else None)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._next_waiter()  # woken, then cancelled: the connection it was woken for is the next one's
                raise
            finally:
                if timer is not None:
                    timer.cancel()
                if waiter in self._waiting:
                    self._waiting.remove(waiter)

    async def _open(self, key: tuple[str, str, int], timeout: float | None) -> Connection:
        scheme, host, port = key
        self._count += 1
        make: Callable[[], Connection] = lambda: Connection(self, key)  # noqa: E731
        try:
            async with asyncio.timeout(timeout):
                if scheme == "https":
                    _, connection = await asyncio.get_running_loop().create_connection(
                        make, host, port, ssl=self._ssl_context(), server_hostname=host)
                else:
                    _, connection = await asyncio.get_running_loop().create_connection(make, host, port)
        except TimeoutError as error:
            self._uncount()
            raise HttpTimeout("connect", host) from error
        except (OSError, ssl.SSLError) as error:
            self._uncount()
            raise ConnectFailed(f"cannot connect to {host}:{port}: {error}") from error
        except BaseException:
            self._uncount()
            raise
        connection.counted = True
        if connection.closed:  # closed while it was being opened
            connection.counted = False
            self._uncount()
            raise ConnectFailed(f"{host}:{port} closed the connection at once")
        return connection

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = default_ssl_context()
        return self._ssl

    def _release(self, connection: Connection) -> None:
        if self.closed:
            connection.close()
            return
        connection.parser = None
        connection.idle_since = asyncio.get_running_loop().time()
        self._idle.setdefault(connection.key, []).append(connection)
        self._next_waiter()

    def _close_an_idle(self) -> None:
        """Close the idle connection that has waited longest, counting it out at once."""
        for connections in self._idle.values():
            if connections:
                connection = connections.pop(0)
                connection.close()
                if connection.counted:
                    connection.counted = False
                    self._count -= 1
                return

    def _lost(self, connection: Connection) -> None:
        """A connection closed: it leaves the pool, making room for one more."""
        idle = self._idle.get(connection.key)
        if idle and connection in idle:
            idle.remove(connection)
        if connection.counted:
            connection.counted = False
            self._uncount()

    def _uncount(self) -> None:
        self._count -= 1
        self._next_waiter()

    def _next_waiter(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


def _readable(connection: Connection) -> bool:
    """True when an idle connection's socket has bytes, or its end, that the loop has not read yet: the server
    closed it (or sent what nobody asked for), so a request on it would fail."""
    sock = connection.transport.get_extra_info("socket") if connection.transport is not None else None
    if sock is None:
        return False
    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return bool(select.select([sock], [], [], 0)[0])
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return bool(poller.poll(0))


def default_ssl_context() -> ssl.SSLContext:
    """The certificates certifi carries where it is installed (as the SDK's httpx uses), else the system's."""
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with the SDK
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())
