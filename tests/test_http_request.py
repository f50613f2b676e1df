"""handlers/transport/http.py: python-telegram-bot's transport over aiohttp sends what HTTPXRequest sends, with
its timeouts and its errors."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from aiohttp import web
from telegram import InputFile
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram.error import NetworkError, TimedOut
from telegram.request import HTTPXRequest, RequestData
from telegram.request._requestparameter import RequestParameter

from handlers.transport.http import MEDIA_WRITE_TIMEOUT_S, AiohttpRequest, body


async def received_by(request_class, data: RequestData) -> tuple[int, bytes, dict]:
    """Send `data` with `request_class` to a local server; return the status, body and the fields it read."""
    seen: dict = {}

    async def handle(request: web.Request) -> web.Response:
        form = await request.post()
        seen["fields"] = {name: (value.filename, value.content_type, value.file.read())
                          if isinstance(value, web.FileField) else value for name, value in form.items()}
        seen["agent"] = request.headers.get("User-Agent")
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_post("/bot/sendDocument", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    sender = request_class()
    await sender.initialize()
    try:
        status, answer = await sender.do_request(f"http://127.0.0.1:{port}/bot/sendDocument", "POST", data)
    finally:
        await sender.shutdown()
        await runner.cleanup()
    return status, answer, seen


def document_request() -> RequestData:
    document = InputFile(b"{\"facts\": [\"\xd0\x9b\xd0\xb5\xd0\xbd\xd0\xb0\"]}", filename="memory-7.json")
    return RequestData([
        RequestParameter.from_input("chat_id", 7),
        RequestParameter.from_input("caption", "Вот что я помню — «всё»"),
        RequestParameter.from_input("document", document),
    ])


def text_request() -> RequestData:
    return RequestData([
        RequestParameter.from_input("chat_id", 7),
        RequestParameter.from_input("text", "Привет & <b>hi</b> = 1+1 ✨"),
        RequestParameter.from_input("reply_markup", {"inline_keyboard": [[{"text": "Да", "callback_data": "y"}]]}),
    ])


@pytest.mark.parametrize("make", [text_request, document_request], ids=["form", "multipart"])
async def test_the_server_reads_the_same_fields_as_from_httpx(make):
    theirs = await received_by(HTTPXRequest, make())
    ours = await received_by(AiohttpRequest, make())
    assert ours[0] == theirs[0] == 200
    assert ours[1] == theirs[1]
    assert ours[2]["fields"] == theirs[2]["fields"]
    assert ours[2]["agent"] == theirs[2]["agent"]
    assert "text" in ours[2]["fields"] or ours[2]["fields"]["document"][0] == "memory-7.json"


async def test_a_silent_server_is_timed_out():
    held: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # read nothing, answer nothing

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = AiohttpRequest(read_timeout=0.2)
    await sender.initialize()
    try:
        with pytest.raises(TimedOut):
            await sender.do_request(f"http://127.0.0.1:{port}/bot/getMe", "POST")
    finally:
        await sender.shutdown()
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_a_refused_connection_is_a_network_error():
    with_nobody = await asyncio.start_server(lambda *_: None, "127.0.0.1", 0)
    port = with_nobody.sockets[0].getsockname()[1]
    with_nobody.close()
    await with_nobody.wait_closed()
    sender = AiohttpRequest()
    await sender.initialize()
    try:
        with pytest.raises(NetworkError, match="aiohttp.ClientConnectorError"):
            await sender.do_request(f"http://127.0.0.1:{port}/bot/getMe", "POST")
    finally:
        await sender.shutdown()


async def test_not_initialized_or_shut_down_says_so():
    sender = AiohttpRequest()
    with pytest.raises(RuntimeError, match="not initialized"):
        await sender.do_request("http://127.0.0.1:9/bot/getMe", "POST")
    await sender.initialize()
    await sender.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await sender.do_request("http://127.0.0.1:9/bot/getMe", "POST")
    await sender.initialize()  # a restart opens it again
    await sender.shutdown()


def test_timeouts_follow_python_telegram_bots_defaults():
    sender = AiohttpRequest()
    plain = sender.timeout(DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, carries_file=False)
    assert (plain.total, plain.connect, plain.sock_connect, plain.sock_read) == (None, 6.0, 5.0, 5.0)
    assert sender.read_timeout == 5.0


def test_timeouts_given_for_one_request_win():
    sender = AiohttpRequest()
    polling = sender.timeout(31.0, DEFAULT_NONE, 2.0, None, carries_file=False)
    assert (polling.sock_read, polling.sock_connect, polling.connect) == (31.0, 2.0, None)
    endless = AiohttpRequest(read_timeout=None).timeout(DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE,
                                                        carries_file=False)
    assert endless.sock_read is None


def test_a_file_bounds_the_whole_request_by_its_send_time():
    sender = AiohttpRequest()
    upload = sender.timeout(DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, carries_file=True)
    assert upload.total == MEDIA_WRITE_TIMEOUT_S + 5.0 + 6.0
    given = sender.timeout(DEFAULT_NONE, 60.0, DEFAULT_NONE, DEFAULT_NONE, carries_file=True)
    assert given.total == 60.0 + 5.0 + 6.0
    unbounded = sender.timeout(None, DEFAULT_NONE, DEFAULT_NONE, DEFAULT_NONE, carries_file=True)
    assert unbounded.total is None


def test_body_is_form_fields_or_multipart():
    assert body(None, None) is None
    assert body({}, {}) is None
    fields = {"chat_id": "7", "text": "Hi & bye, 100% 😀 +1 ä/ß?=", "reply_markup": '{"inline_keyboard": [[]]}'}
    form = body(fields, None)
    assert form.content_type == "application/x-www-form-urlencoded"
    assert form._value == aiohttp.FormData(fields)()._value  # the bytes aiohttp's own form gives
    assert isinstance(body({"chat_id": "7"}, {"document": ("a.json", b"{}", "application/json")}),
                      aiohttp.FormData)
