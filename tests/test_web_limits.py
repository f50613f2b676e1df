"""The web server reads no body before the request is allowed, and none over its route's limit.

The real bot runs in webhook mode with the memory page (serve_webhook, as bot.py runs it) against the Bot API
double. Each refusal is checked by sending only the request's headers: the answer must come back while the
body has not been sent at all, so the server cannot have read it. A chunked body over the limit is never
finished by the client, so only a server that cuts it off answers.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import time

import aiohttp
import pytest
from aiohttp.web import Request, Response

from bot import build_application, serve_webhook
from handlers.webapp.api import MAX_BODY as PAGE_MAX_BODY
from tests.harness import make_config, wait_healthy
from tests.pg import free_port
from tests.timeouts import scaled
from tests.webapp_signing import init_data
from tests.webhook_bots import text_update
from transport.web import SERVER_MAX_BODY, WEBHOOK_MAX_BODY, routes_of, serve

ANN = 1001
SECRET = "s3cret-token-for-limits_0123"
HOOK = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
TOKEN = "metrics-token-for-limits_0123"


@pytest.fixture
async def web(telegram, model, tmp_path):
    """The running bot's app and port, webhook and memory page on one server."""
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", webhook_url="https://bot.example.com/tg/hook",
                         webhook_secret=SECRET, port=port, webapp_url="https://bot.example.com/memory/",
                         metrics=True, metrics_token=TOKEN)
    telegram.push_text(ANN, "so the double knows this chat")
    app = await build_application(config)
    task = asyncio.create_task(serve_webhook(app, config))
    await telegram.wait_for_call("setWebhook")
    async with aiohttp.ClientSession() as http:
        assert await wait_healthy(http, port)
    yield app, port
    app.bot_data.stop_requested.set()
    await asyncio.wait_for(task, scaled(15))


async def headers_only(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, dict, bytes]:
    """Send a request's head and no body; return the answer's status, headers and body, which must come back
    within 5 s, and then the server's end of the connection. A lone surrogate in a header goes as the byte it
    stands for (as aiohttp reads one that is no UTF-8)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode(errors="surrogateescape"))
    try:
        status_line = await asyncio.wait_for(reader.readline(), scaled(5))
        head: dict[str, str] = {}
        while (line := (await asyncio.wait_for(reader.readline(), scaled(5))).decode().strip()):
            name, _, value = line.partition(":")
            head[name.strip().lower()] = value.strip()
        body = await asyncio.wait_for(reader.readexactly(int(head.get("content-length", 0))), scaled(5))
        assert await asyncio.wait_for(reader.read(), scaled(5)) == b""  # closed: the unsent body is not waited for
    finally:
        writer.close()
    return int(status_line.split()[1]), head, body


async def test_a_webhook_body_declared_over_the_limit_gets_413_before_it_is_sent(web):
    app, port = web
    status, head, _ = await headers_only(port, "POST", "/tg/hook",
                                         {**HOOK, "Content-Length": str(WEBHOOK_MAX_BODY + 1)})
    assert status == 413 and head["connection"] == "close"
    status, _, _ = await headers_only(port, "POST", "/tg/hook", {**HOOK, "Content-Length": str(90 * 10**6)})
    assert status == 413


async def test_a_wrong_secret_gets_403_before_the_body_is_sent(web):
    _, port = web
    for secret in ("wrong", ""):
        status, _, _ = await headers_only(port, "POST", "/tg/hook", {
            "X-Telegram-Bot-Api-Secret-Token": secret, "Content-Length": "300"})
        assert status == 403
    status, _, _ = await headers_only(port, "POST", "/tg/hook", {  # a wrong secret hears nothing of sizes
        "X-Telegram-Bot-Api-Secret-Token": "wrong", "Content-Length": str(90 * 10**6)})
    assert status == 403


async def test_the_page_api_without_initdata_gets_401_before_the_body_is_sent(web):
    _, port = web
    for path, length in (("/memory/api/facts", "60"), ("/memory/api/forget", str(90 * 10**6))):
        status, _, body = await headers_only(port, "POST", path, {"Content-Length": length,
                                                                  "Content-Type": "application/json"})
        assert status == 401 and json.loads(body)["code"] == "signed"


async def test_a_header_byte_that_is_no_utf8_is_refused_not_a_fault(web, telegram, caplog):
    _, port = web
    signed = "tma " + init_data(telegram.token, ANN, int(time.time()))
    for method, path, headers, expected in (
        ("POST", "/tg/hook", {"X-Telegram-Bot-Api-Secret-Token": SECRET + "\udcff", "Content-Length": "300"}, 403),
        ("POST", "/tg/hook", {"X-Telegram-Bot-Api-Secret-Token": "\udcc3\udca9", "Content-Length": "300"}, 403),
        ("GET", "/metrics", {"Authorization": f"Bearer {TOKEN}\udcff"}, 401),
        ("GET", "/metrics", {"Authorization": "Bearer \udcff"}, 401),
        ("GET", "/memory/api/memory", {"Authorization": signed + "\udcff"}, 401),
        ("POST", "/memory/api/facts", {"Authorization": "tma hash=\udcff", "Content-Length": "60"}, 401),
    ):
        status, _, _ = await headers_only(port, method, path, headers)
        assert status == expected, (path, headers)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    async with aiohttp.ClientSession() as http:  # the right token still gets them
        async with http.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}) as answer:
            assert answer.status == 200 and "companion_" in await answer.text()


async def test_a_signed_page_call_over_16_kb_is_refused_unread(web, telegram):
    _, port = web
    signed = "tma " + init_data(telegram.token, ANN, int(time.time()))
    status, _, body = await headers_only(port, "POST", "/memory/api/facts", {
        "Authorization": signed, "Content-Length": str(PAGE_MAX_BODY + 1), "Content-Type": "application/json"})
    assert status == 413 and json.loads(body)["code"] == "too_big"  # refused before the body is read


async def test_routes_without_a_body_take_none_and_unknown_paths_read_none(web):
    _, port = web
    assert (await headers_only(port, "POST", "/healthz", {"Content-Length": "10"}))[0] == 413
    assert (await headers_only(port, "GET", "/memory/", {"Content-Length": "10"}))[0] == 413
    assert (await headers_only(port, "POST", "/memory", {"Content-Length": "10"}))[0] == 413
    assert (await headers_only(port, "POST", "/elsewhere", {"Content-Length": str(90 * 10**6)}))[0] == 404


async def test_the_server_itself_takes_no_big_body_from_a_route_that_does_not_stream():
    # Every route streams through LimitedBody; the server's own limits are the backstop for one that would not:
    # one that reads its body whole gets no more than SERVER_MAX_BODY, and one that leaves it unread gets its
    # connection closed at once, without aiohttp's 10 s of reading and discarding the rest.
    async def whole(request: Request) -> Response:
        return Response(text=str(len(await request.read())))

    async def unread(request: Request) -> Response:
        return Response(text="unread")

    routes = routes_of([])
    routes.router.add_post("/whole", whole)
    routes.router.add_post("/unread", unread)
    port = free_port()
    runner = await serve(routes, port)
    try:
        async with aiohttp.ClientSession() as http:
            for size, status in ((SERVER_MAX_BODY, 200), (SERVER_MAX_BODY + 1, 413)):
                async with http.post(f"http://127.0.0.1:{port}/whole", data=io.BytesIO(b" " * size)) as response:
                    assert response.status == status, size
        status, _, body = await headers_only(port, "POST", "/unread", {"Content-Length": str(90 * 10**6)})
        assert (status, body) == (200, b"unread")  # and closed, the 90 MB never sent (headers_only)
        assert (await headers_only(port, "POST", "/elsewhere", {"Content-Length": "10"}))[0] == 404
    finally:
        await runner.cleanup()


async def test_a_chunked_body_over_the_limit_is_cut_off(web, telegram):
    app, port = web
    loop = asyncio.get_running_loop()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setblocking(False)
        head = ["POST /tg/hook HTTP/1.1", "Host: 127.0.0.1", "Transfer-Encoding: chunked",
                *(f"{k}: {v}" for k, v in HOOK.items())]
        piece = b"%x\r\n%s\r\n" % (65_536, b" " * 65_536)
        answer = asyncio.ensure_future(loop.sock_recv(sock, 4096))
        try:  # past the limit, and never finished: a server still reading would wait for the rest forever
            await loop.sock_sendall(sock, ("\r\n".join(head) + "\r\n\r\n").encode())
            for _ in range(WEBHOOK_MAX_BODY // 65_536 + 2):
                await loop.sock_sendall(sock, piece)
        except OSError:
            pass  # the server closed the connection while this was still sending
        try:
            first = await asyncio.wait_for(answer, scaled(5))
        except ConnectionResetError:
            first = b""
    assert not first.startswith(b"HTTP/1.1 2")  # 413, or the connection closed under it
    async with aiohttp.ClientSession() as http:  # and goes on serving
        async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
            assert response.status == 200


async def test_bodies_within_the_limit_are_read_whole_chunked_or_not(web, telegram):
    _, port = web
    update = json.dumps(text_update(700, ANN, "a long one", first_name="Ann")).encode()
    padded = update + b" " * (WEBHOOK_MAX_BODY - len(update))  # exactly the limit, still valid JSON

    async def pieces():
        for start in range(0, len(chunked), 10_000):
            yield chunked[start:start + 10_000]

    chunked = json.dumps(text_update(701, ANN, "in pieces", first_name="Ann")).encode()
    async with aiohttp.ClientSession() as http:
        async with http.post(f"http://127.0.0.1:{port}/tg/hook", data=padded, headers=HOOK) as response:
            assert response.status == 200
        async with http.post(f"http://127.0.0.1:{port}/tg/hook", data=pieces(), headers=HOOK) as response:
            assert response.status == 200 and response.request_info.headers.get("Transfer-Encoding") == "chunked"
    replies = await telegram.wait_for_sent(ANN, 2)
    assert sorted(reply["visible_text"] for reply in replies) == ["echo: a long one", "echo: in pieces"]
