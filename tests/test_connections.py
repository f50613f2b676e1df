"""net/connections.py: the pool against local servers that answer with hand-written bytes: heads and bodies as sent,
keep-alive connections reused (and not when they must not be), bodies streamed piece by piece, paused and resumed,
the pool's limit and its count, and each way a request fails (a broken or garbled answer, a timeout, a refused
connection) as its own error."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from net.connections import BadResponse, ConnectFailed, ConnectionBroken, HttpTimeout, Pool, Response, Timeouts
from tests.harness import closed_port
from tests.timeouts import scaled

PATIENT = Timeouts(connect=scaled(5), pool=scaled(5), write=scaled(5), read=scaled(5))  # for what must not time out
SHORT = 0.05  # a timeout that is to expire
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
TEXT = "Привет, мир 😀".encode()


@dataclass
class Request:
    line: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Peer:
    """The server's end of one connection."""

    server: "RawServer"
    index: int  # the how-manieth connection the server accepted, from 0
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def request(self) -> Request | None:
        """Read the next request (kept in server.requests); None once the client has closed the connection."""
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            if getattr(error, "partial", b""):
                raise
            self.server.closed[self.index].set()
            return None
        line, *rest = head.decode("utf-8").split("\r\n")[:-2]
        headers = dict(header.split(": ", 1) for header in rest)
        body = await self.reader.readexactly(int(headers.get("Content-Length", "0")))
        request = Request(line, headers, body)
        self.server.requests.append((self.index, request))
        return request

    async def until_closed(self) -> None:
        """Read past whatever comes until the client closes the connection."""
        with contextlib.suppress(ConnectionError):
            while await self.reader.read(65536):
                pass
        self.server.closed[self.index].set()


Handler = Callable[[Peer], Awaitable[None]]


@dataclass
class RawServer:
    """A server on 127.0.0.1 running `handle` on each connection it accepts, its tasks and sockets all closed on
    the way out (and a handler's unexpected error raised there)."""

    handle: Handler
    port: int = 0
    accepted: int = 0
    requests: list[tuple[int, Request]] = field(default_factory=list)
    closed: dict[int, asyncio.Event] = field(default_factory=dict)  # a connection's, set once the client closed it
    errors: list[BaseException] = field(default_factory=list)
    _tasks: list[asyncio.Task] = field(default_factory=list)
    _writers: list[asyncio.StreamWriter] = field(default_factory=list)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = Peer(self, self.accepted, reader, writer)
        self.accepted += 1
        self.closed[peer.index] = asyncio.Event()
        self._tasks.append(asyncio.current_task())  # type: ignore[arg-type]
        self._writers.append(writer)
        try:
            await self.handle(peer)
        except (ConnectionError, asyncio.CancelledError):  # the client's reset; the test's end
            pass
        except Exception as error:  # raised again when the server closes
            self.errors.append(error)
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def serving(handle: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[RawServer]:
    server = RawServer(handle)
    listening = await asyncio.start_server(server._serve, "127.0.0.1", 0, ssl=tls)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()
        await listening.wait_closed()
        for task in server._tasks:  # handlers still waiting for the test (Python 3.11's wait_closed does not)
            task.cancel()
        await asyncio.gather(*server._tasks)
        for writer in server._writers:
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()
    assert not server.errors, server.errors


@contextlib.asynccontextmanager
async def pooled(**settings) -> AsyncIterator[Pool]:
    pool = Pool(**settings)
    try:
        yield pool
    finally:
        await pool.close()


def writing(data: bytes) -> Handler:
    """A handler that reads one request, writes `data` (an answer, or the start of one) and waits for the client
    to close the connection."""

    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(data)
        await peer.until_closed()
    return handle


def answering(answer: bytes, close: bool = False) -> Handler:
    """A handler answering every request on a connection with `answer` (ending its half of the connection after
    the first one, with `close`) until the client closes the connection."""

    async def handle(peer: Peer) -> None:
        while await peer.request() is not None:
            peer.writer.write(answer)
            if close:  # the end of the body: the server's half of the connection closes
                peer.writer.write_eof()
                await peer.until_closed()
                return
    return handle


async def until(condition: Callable[[], bool], count: int = 1000) -> bool:
    """Let the event loop go round until `condition` holds (at most `count` times); return whether it does."""
    for _ in range(count):
        if condition():
            return True
        await asyncio.sleep(0)
    return condition()


async def turns(count: int = 10) -> None:
    """Let the event loop go round `count` times: bytes sent on 127.0.0.1 are the other end's to read by then."""
    for _ in range(count):
        await asyncio.sleep(0)


async def get(pool: Pool, url: str, timeouts: Timeouts = PATIENT) -> Response:
    return await pool.request("GET", url, {}, None, timeouts)


# ----- answers as sent -----

async def test_the_head_and_body_arrive_as_the_server_sent_them():
    answer = (b"HTTP/1.1 201 Created\r\nX-Thing: a\r\nContent-Type: text/plain; charset=utf-8\r\nx-thing: b\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(TEXT), TEXT))
    async with serving(answering(answer)) as server, pooled(headers={"User-Agent": "bot/1"}) as pool:
        response = await pool.request("POST", server.url("/bot/send"), {"Content-Type": "application/json"},
                                      b'{"a": 1}', PATIENT)
        assert response.status == 201 and response.http11
        assert response.headers == {"x-thing": "a, b", "content-type": "text/plain; charset=utf-8",
                                    "content-length": str(len(TEXT))}
        assert await response.read() == TEXT and response.content == TEXT
        assert await response.next_piece() is None  # read to its end: nothing more
    [(_, request)] = server.requests
    assert request.line == "POST /bot/send HTTP/1.1"
    assert request.headers == {"Host": f"127.0.0.1:{server.port}", "User-Agent": "bot/1",
                               "Content-Type": "application/json", "Content-Length": "8"}
    assert request.body == b'{"a": 1}'


async def test_a_kept_alive_connection_carries_the_next_request():
    async with serving(answering(OK)) as server, pooled() as pool:
        for path in ("/one", "/two", "/three"):
            response = await get(pool, server.url(path))
            assert await response.read() == b"hello"
        assert pool._count == 1 and len(pool._idle[("http", "127.0.0.1", server.port)]) == 1
    assert server.accepted == 1
    assert [(index, request.line) for index, request in server.requests] == [
        (0, "GET /one HTTP/1.1"), (0, "GET /two HTTP/1.1"), (0, "GET /three HTTP/1.1")]


async def test_an_http10_answer_with_keep_alive_keeps_the_connection():
    answer = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi"
    async with serving(answering(answer)) as server, pooled() as pool:
        for _ in range(2):
            response = await get(pool, server.url())
            assert not response.http11 and await response.read() == b"hi"
    assert server.accepted == 1


@pytest.mark.parametrize("answer, close", [
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi", False),
    (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", False),
    (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhi", True),  # read to the close
], ids=["connection-close", "http10", "to-the-close"])
async def test_an_answer_that_ends_the_connection_means_a_new_one_next_time(answer, close):
    async with serving(answering(answer, close=close)) as server, pooled() as pool:
        for _ in range(2):
            response = await get(pool, server.url())
            assert await response.read() == b"hi"
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))  # closed by the client, not left open
    assert server.accepted == 2 and [index for index, _ in server.requests] == [0, 1]


async def test_a_chunked_body_streams_piece_by_piece():
    pieces = [b"first ", TEXT, b"x" * 3000, b"last"]
    go: asyncio.Queue[bytes | None] = asyncio.Queue()  # the next chunk the server is to send; None: the end

    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while (piece := await go.get()) is not None:
            peer.writer.write(b"%X;n=1\r\n%s\r\n" % (len(piece), piece))
        peer.writer.write(b"0\r\nX-Trailer: done\r\n\r\n")
        await peer.until_closed()

    async with serving(handle) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert response.headers["transfer-encoding"] == "chunked"
        for piece in pieces:
            go.put_nowait(piece)  # the server sends a chunk only once the one before has been read
            got = b""
            while len(got) < len(piece):
                got += await response.next_piece()
            assert got == piece
        go.put_nowait(None)
        assert await response.next_piece() is None
        assert await response.next_piece() is None
        assert response.connection is None and pool._count == 1  # back in the pool for the next request
    assert server.accepted == 1


async def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(OK)  # a keep-alive answer, then the server's idle timeout closes the connection
        await peer.writer.drain()

    async with serving(handle) as server, pooled() as pool:
        assert await (await get(pool, server.url())).read() == b"hello"
        assert await until(lambda: pool._count == 0)  # the client sees the connection close
        assert await (await get(pool, server.url())).read() == b"hello"
    assert server.accepted == 2


async def test_a_connection_the_server_closed_just_before_the_next_request_is_not_used_again():
    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(OK)
        await peer.writer.drain()
        peer.writer.close()
        await peer.writer.wait_closed()
        peer.server.closed[peer.index].set()

    async with serving(handle) as server, pooled() as pool:
        assert await (await get(pool, server.url())).read() == b"hello"
        await server.closed[0].wait()  # the server's end is closed; the client's loop has not read that yet
        [idle] = pool._idle[("http", "127.0.0.1", server.port)]
        assert not idle.closed and pool._count == 1
        assert await (await get(pool, server.url())).read() == b"hello"
    assert server.accepted == 2


async def test_a_connection_idle_for_longer_than_idle_s_is_not_used_again():
    async with serving(answering(OK)) as server, pooled(idle_s=0) as pool:
        for _ in range(2):
            assert await (await get(pool, server.url())).read() == b"hello"
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
        assert await until(lambda: pool._count == 1)
    assert server.accepted == 2


async def test_a_head_request_reads_no_body_and_keeps_the_connection():
    async def handle(peer: Peer) -> None:
        while (request := await peer.request()) is not None:
            if request.line.startswith("HEAD "):
                peer.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
            else:
                peer.writer.write(OK)

    async with serving(handle) as server, pooled() as pool:
        response = await pool.request("HEAD", server.url(), {}, None, PATIENT)
        assert response.headers["content-length"] == "5" and await response.read() == b""
        assert await (await get(pool, server.url())).read() == b"hello"
    assert server.accepted == 1


# ----- failures -----

async def test_a_connection_closed_in_the_middle_of_the_body_is_broken_and_not_reused():
    async def handle(peer: Peer) -> None:
        await peer.request()
        if peer.index == 0:
            peer.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel")
            await peer.writer.drain()
            return  # closes the connection
        peer.writer.write(OK)
        await peer.until_closed()

    async with serving(handle) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert response.status == 200
        with pytest.raises(ConnectionBroken, match="127.0.0.1"):
            await response.read()
        assert await response.next_piece() is None and response.connection is None
        assert await (await get(pool, server.url())).read() == b"hello"
    assert server.accepted == 2


@pytest.mark.parametrize("garbage", [b"garbage\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nhi",
                                     b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])
async def test_garbage_is_a_bad_response_and_the_connection_is_not_reused(garbage):
    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(garbage if peer.index == 0 else OK)
        await peer.until_closed()

    async with serving(handle) as server, pooled() as pool:
        with pytest.raises(BadResponse):
            response = await get(pool, server.url())
            await response.read()  # the chunked one fails in its body
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
        assert await (await get(pool, server.url())).read() == b"hello"
        assert pool._count == 1
    assert server.accepted == 2


async def test_bytes_after_the_answer_close_the_connection():
    async with serving(answering(OK + b"HTTP/1.1 200 OK\r\n")) as server, pooled() as pool:
        for _ in range(2):
            assert await (await get(pool, server.url())).read() == b"hello"
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
    assert server.accepted == 2


async def test_a_server_that_never_answers_is_a_read_timeout():
    async def handle(peer: Peer) -> None:
        await peer.request()
        await peer.until_closed()

    async with serving(handle) as server, pooled() as pool:
        with pytest.raises(HttpTimeout, match="read timeout talking to 127.0.0.1") as caught:
            await get(pool, server.url(), Timeouts(read=SHORT))
        assert caught.value.step == "read" and isinstance(caught.value, TimeoutError)
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))  # the client gave the connection up
        assert pool._count == 0


async def test_a_body_that_stops_coming_is_a_read_timeout():
    async with serving(writing(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel")) as server, pooled() as pool:
        response = await get(pool, server.url(), Timeouts(read=SHORT))
        assert await response.next_piece() == b"hel"
        with pytest.raises(HttpTimeout) as caught:
            await response.next_piece()
        assert caught.value.step == "read"
        response.close()
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))


async def test_a_body_the_server_does_not_take_is_a_write_timeout_and_its_connection_let_go():
    async def handle(peer: Peer) -> None:
        await asyncio.Event().wait()  # reads nothing, till the test ends

    async with serving(handle) as server, pooled() as pool:
        with pytest.raises(HttpTimeout) as caught:
            await pool.request("POST", server.url(), {}, b"x" * (32 << 20), Timeouts(write=SHORT))
        assert caught.value.step == "write"
        assert await until(lambda: pool._count == 0)  # not held open till the server reads the rest
    assert server.accepted == 1


async def test_a_refused_connection_is_connect_failed():
    port = await closed_port()
    async with pooled() as pool:
        with pytest.raises(ConnectFailed, match=f"cannot connect to 127.0.0.1:{port}"):
            await get(pool, f"http://127.0.0.1:{port}/")
        assert pool._count == 0


# ----- the pool's limit and count -----

async def test_a_full_pool_times_out_then_serves_the_waiting_request_once_a_connection_is_free():
    async with serving(answering(OK)) as server, pooled(limit=1) as pool:
        held = await get(pool, server.url("/held"))  # its body not read: the one connection stays in use
        with pytest.raises(HttpTimeout, match="pool timeout") as caught:
            await get(pool, server.url("/late"), Timeouts(pool=SHORT))
        assert caught.value.step == "pool" and not pool._waiting
        waiting = asyncio.create_task(get(pool, server.url("/waits")))
        await turns()
        assert not waiting.done() and len(pool._waiting) == 1
        assert await held.read() == b"hello"
        response = await asyncio.wait_for(waiting, scaled(5))
        assert await response.read() == b"hello"
    assert server.accepted == 1 and [request.line for _, request in server.requests] == [
        "GET /held HTTP/1.1", "GET /waits HTTP/1.1"]


async def test_a_waiting_request_cancelled_as_it_is_woken_passes_its_turn_on():
    async with serving(answering(OK)) as server, pooled(limit=1) as pool:
        held = await get(pool, server.url())
        first = asyncio.create_task(get(pool, server.url()))
        second = asyncio.create_task(get(pool, server.url(), Timeouts(pool=scaled(2))))
        await turns()
        assert len(pool._waiting) == 2
        assert await held.read() == b"hello"  # the connection is free: the first waiting request is woken
        first.cancel()  # and cancelled before it runs
        response = await asyncio.wait_for(second, scaled(5))
        assert await response.read() == b"hello" and first.cancelled()
    assert server.accepted == 1


async def test_a_full_pool_makes_room_for_another_server_by_closing_an_idle_connection():
    async with serving(answering(OK)) as first, serving(answering(OK)) as second, pooled(limit=1) as pool:
        held = await get(pool, first.url())
        waiting = asyncio.create_task(get(pool, second.url(), Timeouts(pool=scaled(2))))
        await turns()
        assert not waiting.done()
        assert await held.read() == b"hello"  # the connection to the first server is idle now
        response = await asyncio.wait_for(waiting, scaled(5))
        assert await response.read() == b"hello"
        await asyncio.wait_for(first.closed[0].wait(), scaled(5))
        assert pool._count == 1


async def test_an_answer_closed_before_its_end_closes_its_connection():
    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 1000)
        await peer.until_closed()

    async with serving(handle) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert await response.next_piece() == b"x" * 1000 and pool._count == 1
        response.close()
        assert response.connection is None and await response.next_piece() is None
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
        assert pool._count == 0 and not any(pool._idle.values())
        response.close()  # twice: nothing more
        assert pool._count == 0


async def test_a_closed_pool_closes_its_idle_connections_and_takes_no_request():
    async with serving(answering(OK)) as server:
        pool = Pool()
        assert await (await get(pool, server.url())).read() == b"hello"
        assert pool._count == 1
        await pool.close()
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
        assert pool._count == 0 and pool.closed
        with pytest.raises(RuntimeError, match="closed"):
            await get(pool, server.url())
    assert server.accepted == 1


async def test_an_answer_read_after_the_pool_closed_closes_its_connection():
    async with serving(answering(OK)) as server:
        pool = Pool()
        response = await get(pool, server.url())
        await pool.close()
        assert await response.read() == b"hello"
        await asyncio.wait_for(server.closed[0].wait(), scaled(5))
        assert pool._count == 0


# ----- streams -----

def first_then(more: asyncio.Event, sent: asyncio.Event, *words: bytes) -> Handler:
    """A handler answering with a chunked body: "first" at once, then each of `words` (one chunk each, each
    written on its own) once `more` is set, and the end; `sent` is set when all is written."""

    async def handle(peer: Peer) -> None:
        await peer.request()
        peer.writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
        await more.wait()
        for word in words:
            peer.writer.write(b"%x\r\n%s\r\n" % (len(word), word))
            await peer.writer.drain()
        peer.writer.write(b"0\r\n\r\n")
        await peer.writer.drain()
        sent.set()
        await peer.until_closed()
    return handle


@pytest.mark.parametrize("paused", [True, False], ids=["paused", "not-paused"])
async def test_a_paused_answer_gets_no_pieces_until_it_is_resumed(paused):
    more, sent = asyncio.Event(), asyncio.Event()
    async with serving(first_then(more, sent, b"second")) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert await response.next_piece() == b"first"
        connection = response.connection
        assert connection is not None and connection.transport is not None
        if paused:
            assert response.pause_reading() is True
            assert not connection.transport.is_reading()
        more.set()
        await sent.wait()
        await turns()  # time enough for the bytes to be read, were the socket read
        assert (not connection.pieces) is paused
        assert response._parser.done is not paused
        response.resume_reading()
        assert connection.transport.is_reading()
        assert await response.next_piece() == b"second"
        assert await response.next_piece() is None
        assert response.pause_reading() is False  # all in: nothing to pause
        assert pool._count == 1 and response.connection is None  # the connection went back to the pool


async def test_a_resting_answer_is_read_again_by_its_timer_with_all_that_came_meanwhile():
    more, sent = asyncio.Event(), asyncio.Event()
    async with serving(first_then(more, sent, b"second", b"third!")) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert await response.next_piece() == b"first"
        connection = response.connection
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert response.rest(SHORT) is True and not connection.transport.is_reading()
        more.set()
        await sent.wait()
        await turns()
        assert not connection.pieces  # nothing is read before the timer
        assert await response.next_piece() == b"secondthird!"  # all of it at one read
        assert loop.time() - started >= SHORT * 0.9
        assert await response.next_piece() is None
        assert response.rest(SHORT) is False and response._resting is None  # all in: nothing to rest for


async def test_an_answer_closed_while_resting_cancels_its_timer():
    first = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n"
    async with serving(writing(first)) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert await response.next_piece() == b"first"
        assert response.rest(60.0) is True
        timer = response._resting
        response.close()
        assert timer.cancelled() and response._resting is None and response.connection is None


async def test_a_gzipped_body_is_decoded():
    packed = gzip.compress(TEXT * 50)
    answer = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(packed), packed)
    async with serving(answering(answer)) as server, pooled() as pool:
        response = await get(pool, server.url())
        assert response.headers["content-encoding"] == "gzip"
        assert await response.read() == TEXT * 50


async def test_a_gzipped_body_in_small_chunks_is_decoded_piece_by_piece():
    packed = gzip.compress(TEXT * 50)
    body = b"".join(b"%X\r\n%s\r\n" % (len(packed[at:at + 7]), packed[at:at + 7]) for at in range(0, len(packed), 7))
    answer = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + body + b"0\r\n\r\n"
    async with serving(answering(answer)) as server, pooled() as pool:
        response = await get(pool, server.url())
        pieces = []
        while (piece := await response.next_piece()) is not None:
            pieces.append(piece)
        assert all(pieces) and b"".join(pieces) == TEXT * 50


async def test_a_body_that_is_not_gzip_as_it_says_is_a_bad_response():
    answer = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 8\r\n\r\nnot gzip"
    async with serving(answering(answer)) as server, pooled() as pool:
        response = await get(pool, server.url())
        with pytest.raises(BadResponse, match="compressed"):
            await response.read()


# ----- what the server is asked -----

async def test_the_server_gets_the_host_and_a_percent_encoded_target():
    async with serving(answering(OK)) as server, pooled() as pool:
        for path in ("/plain", "/päth/привет dir/x?q=ü&r=a b&s=%2F#fragment", "/a%20b?x=1/2?y", ""):
            assert await (await get(pool, server.url(path))).read() == b"hello"
        response = await get(pool, f"http://localhost:{server.port}/x")
        assert await response.read() == b"hello"
    assert [request.line for _, request in server.requests] == [
        "GET /plain HTTP/1.1",
        "GET /p%C3%A4th/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82%20dir/x?q=%C3%BC&r=a%20b&s=%2F HTTP/1.1",
        "GET /a%20b?x=1/2?y HTTP/1.1",
        "GET / HTTP/1.1",
        "GET /x HTTP/1.1",
    ]
    hosts = [request.headers["Host"] for _, request in server.requests]
    assert hosts == [f"127.0.0.1:{server.port}"] * 4 + [f"localhost:{server.port}"]


@pytest.mark.parametrize("url, key, target, host", [
    ("http://example.org", ("http", "example.org", 80), "/", "example.org"),
    ("https://Example.org/a?b=c", ("https", "example.org", 443), "/a?b=c", "example.org"),
    ("https://example.org:8443/a", ("https", "example.org", 8443), "/a", "example.org:8443"),
    ("http://[::1]:8080/x", ("http", "::1", 8080), "/x", "[::1]:8080"),
    ("http://[::1]/x", ("http", "::1", 80), "/x", "[::1]"),
])
def test_a_url_is_split_into_its_server_target_and_host(url, key, target, host):
    assert Pool()._split(url) == (key, target, host)


@pytest.mark.parametrize("url", ["ftp://example.org/x", "example.org/x", "http:///x", "file:///etc/passwd"])
async def test_only_http_and_https_urls_are_sent(url):
    async with pooled() as pool:
        with pytest.raises(ValueError, match="only http and https"):
            await get(pool, url)
        assert pool._count == 0


# A test authority and the certificate for localhost it signed, both valid until 2126 (made once with openssl:
# `req -x509` for the authority, `x509 -req` with subjectAltName DNS:localhost for the server).
TLS = Path(__file__).parent / "fixtures" / "tls"


def certified() -> ssl.SSLContext:
    """A server's TLS settings, with the test authority's certificate for localhost."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS / "localhost.pem", TLS / "localhost.key")
    return context


async def test_https_verifies_the_server_and_keeps_its_connection():
    trusting = ssl.create_default_context(cafile=TLS / "ca.pem")
    async with serving(answering(OK), certified()) as server, pooled(ssl_context=trusting) as pool:
        for _ in range(2):
            response = await pool.request("GET", f"https://localhost:{server.port}/bot/getMe", {}, None, PATIENT)
            assert (response.status, await response.read()) == (200, b"hello")
        assert pool._count == 1  # the second request went over the first one's connection


async def test_https_to_a_server_nobody_vouches_for_is_connect_failed():
    async with serving(answering(OK), certified()) as server, pooled() as pool:  # certifi's authorities
        with pytest.raises(ConnectFailed, match="CERTIFICATE_VERIFY_FAILED"):
            await pool.request("GET", f"https://localhost:{server.port}/", {}, None, PATIENT)
        assert pool._count == 0
