"""Local servers for network regression tests, on loopback: a raw-socket HTTP server each test scripts (plain or
TLS), a test certificate authority made at test time, a proxy (CONNECT tunnels and plain forwarding), a resolver
that names fixed addresses, and an IPv6 address that never answers.

Any client can be pointed at them (the Bot API transport, the model's client): nothing here knows who calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import select
import socket
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

import trustme
from aiohttp.abc import AbstractResolver, ResolveResult

DEAD_IPV6 = "100::1"  # RFC 6666's discard-only prefix: routed nowhere, so a connection to it is never answered
Script = Callable[["Exchange"], Awaitable[None]]


@dataclass
class Request:
    """One request as the server read it: its request line, its headers (names in lower case) and its body."""

    line: str
    headers: dict[str, str]
    body: bytes

    @property
    def method(self) -> str:
        """Return the request's method."""
        return self.line.split(" ", 1)[0]

    @property
    def target(self) -> str:
        """Return the request's target: a path, an absolute URL (to a proxy) or host:port (CONNECT)."""
        return self.line.split(" ")[1]


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """Return the next request on a connection (its body as Content-Length says), or None at its end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    line, *fields = head.decode("latin-1").split("\r\n")[:-2]
    headers = {}
    for text in fields:
        name, _, value = text.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Request(line, headers, body)


def response(status: int, body: bytes, *headers: str, reason: str = "Whatever") -> bytes:
    """Return an HTTP/1.1 response's bytes: its status line, `headers` ("Name: value"), Content-Length, body."""
    head = [f"HTTP/1.1 {status} {reason}", *headers, f"Content-Length: {len(body)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class Exchange:
    """One connection to a ScriptedServer, as its script sees it: `number` counts connections from 0."""

    number: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def request(self) -> Request | None:
        """Return the next request on this connection, or None at its end."""
        return await read_request(self.reader)

    async def send(self, data: bytes) -> None:
        """Send `data` as it is."""
        self.writer.write(data)
        await self.writer.drain()

    async def closed_by_peer(self) -> bool:
        """Return True once the client has closed this connection (what it sends meanwhile is dropped)."""
        with contextlib.suppress(ConnectionError):
            while await self.reader.read(65536):
                pass
        return True


@dataclass
class ScriptedServer:
    """A raw-socket HTTP server on loopback whose every connection runs `script`; with `tls`, over TLS.

    A script may answer, answer in pieces, stall or hang up: connections stay open until the script returns or
    the server closes, so a stall lasts as long as the test wants."""

    script: Script
    tls: ssl.SSLContext | None = None
    host: str = "127.0.0.1"
    exchanges: list[Exchange] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task] = field(default_factory=set)

    async def start(self) -> ScriptedServer:
        """Listen on a free port; return self."""
        self._server = await asyncio.start_server(self._serve, self.host, 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        """Return the server's address: http:// or https://, its host and port."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        exchange = Exchange(len(self.exchanges), reader, writer)
        self.exchanges.append(exchange)
        self._tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        try:
            await self.script(exchange)
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass  # the client went away: that is its right
        except asyncio.CancelledError:
            pass  # close() ends a stall; asyncio's server would log a cancelled connection task as an error
        finally:
            writer.close()

    async def close(self) -> None:
        """Stop listening and end every connection, stalled ones too."""
        if self._server is not None:
            self._server.close()
        for exchange in self.exchanges:
            exchange.writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._server is not None:
            await self._server.wait_closed()


@dataclass
class CertificateAuthority:
    """A certificate authority made at test time, and a server certificate it signed for loopback's names."""

    ca: trustme.CA = field(default_factory=trustme.CA)

    def write_ca(self, folder: Path) -> Path:
        """Return the path of a PEM file holding the CA's certificate (for SSL_CERT_FILE), written in `folder`."""
        path = folder / "test-ca.pem"
        self.ca.cert_pem.write_to_path(str(path))
        return path

    def server_context(self) -> ssl.SSLContext:
        """Return a server's TLS context with a certificate for 127.0.0.1, ::1 and localhost."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1", "::1", "localhost").configure_cert(context)
        return context


@dataclass
class Proxy:
    """An HTTP proxy on loopback: CONNECT opens a tunnel (https://), an absolute URL is forwarded (http://), one
    request a connection. `hosts` maps names only the proxy can resolve to addresses; `seen` holds each request
    line it was sent."""

    hosts: dict[str, str] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    async def start(self) -> Proxy:
        """Listen on a free loopback port; return self."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        """Return the proxy's address, http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            request = await read_request(reader)
            if request is None:
                return
            self.seen.append(request.line)
            if request.method == "CONNECT":
                host, _, port = request.target.rpartition(":")
                upstream_reader, upstream_writer = await self._open(host, int(port))
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream_reader, upstream_writer = await self._forward(request)
            self._writers.add(upstream_writer)
            await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _open(self, host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.hosts.get(host.strip("[]"), host.strip("[]")), port)

    async def _forward(self, request: Request) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Send an absolute-URL request on to its server as an ordinary one, closed after its answer."""
        scheme, _, rest = request.target.partition("://")
        authority, slash, path = rest.partition("/")
        host, _, port = authority.rpartition(":") if authority.rfind(":") > authority.rfind("]") else (
            authority, "", "")
        reader, writer = await self._open(host, int(port or 80))
        headers = {name: value for name, value in request.headers.items()
                   if name not in ("proxy-connection", "proxy-authorization", "connection")}
        head = [f"{request.method} {slash}{path} HTTP/1.1", *(f"{name}: {value}" for name, value in headers.items()),
                "Connection: close"]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + request.body)
        return reader, writer

    async def close(self) -> None:
        """Stop listening and end every connection and tunnel."""
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()
        if self._server is not None:
            await self._server.wait_closed()


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy `reader` into `writer` until its end, then close `writer`."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


class FixedResolver(AbstractResolver):
    """aiohttp's resolver for names the test chooses: each name to its addresses, in the order given."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.asked: list[str] = []

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        """Return the addresses given for `host`."""
        self.asked.append(host)
        return [ResolveResult(hostname=host, host=address, port=port,
                              family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                              proto=0, flags=socket.AI_NUMERICHOST) for address in self.names[host]]

    async def close(self) -> None:
        """Nothing to release."""


def dead_ipv6_reason(wait_s: float = 0.3) -> str | None:
    """Return why DEAD_IPV6 cannot stand for a blackholed IPv6 route here (no IPv6, or refused at once), or None
    when a connection to it is still unanswered after `wait_s`."""
    try:
        probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    except OSError as error:
        return f"no IPv6 on this machine: {error}"
    with probe:
        probe.setblocking(False)
        code = probe.connect_ex((DEAD_IPV6, 443))
        if code not in (errno.EINPROGRESS, errno.EAGAIN):
            return f"a connection to {DEAD_IPV6} fails at once here ({errno.errorcode.get(code, code)}), no blackhole"
        _, writable, _ = select.select([], [probe], [], wait_s)
        if writable:
            code = probe.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            return f"{DEAD_IPV6} answers here ({errno.errorcode.get(code, 'connected')}), no blackhole"
    return None
