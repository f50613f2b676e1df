"""transport/http.py: python-telegram-bot's transport over aiohttp sends what HTTPXRequest sends, with its
timeouts and its errors. The network's harder cases (stalls, proxies, TLS, IPv6) are in tests/test_network.py."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from proxies import proxy_for, where
from tests.doubles.telegram_api import TelegramDouble
from tests.harness import closed_port, serve_post
from transport.http import MEDIA_WRITE_TIMEOUT_S, BotApiRequest, Timeouts, body, multipart

DEFAULT = BaseRequest.DEFAULT_NONE


class Capture(BaseRequest):
    """A transport that keeps the RequestData python-telegram-bot builds for a call and answers `true`."""

    def __init__(self) -> None:
        self.data: RequestData | None = None

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_request(self, url, method, request_data=None, **timeouts) -> tuple[int, bytes]:
        self.data = request_data
        return 200, b'{"ok": true, "result": true}'


async def request_data(**parameters) -> RequestData:
    """Return the RequestData python-telegram-bot builds for a call with `parameters`."""
    capture = Capture()
    # A method of its own: for one it knows (sendMessage), python-telegram-bot warns to call it by name.
    await Bot("123456:TEST-TOKEN", request=capture).do_api_request("captured", api_kwargs=parameters)
    assert capture.data is not None
    return capture.data


async def received_by(request_class, data: RequestData) -> tuple[int, bytes, dict]:
    """Send `data` with `request_class` to a local server; return the status, body and the fields it read."""
    seen: dict = {}

    async def handle(request: web.Request) -> web.Response:
        form = await request.post()
        seen["fields"] = {name: (value.filename, value.content_type, value.file.read())
                          if isinstance(value, web.FileField) else value for name, value in form.items()}
        seen["agent"] = request.headers.get("User-Agent")
        return web.json_response({"ok": True, "result": True})

    runner, address = await serve_post("/bot/sendDocument", handle)
    sender = request_class()
    await sender.initialize()
    try:
        status, answer = await sender.do_request(f"{address}/bot/sendDocument", "POST", data)
    finally:
        await sender.shutdown()
        await runner.cleanup()
    return status, answer, seen


async def document_request() -> RequestData:
    document = InputFile(b"{\"facts\": [\"\xd0\x9b\xd0\xb5\xd0\xbd\xd0\xb0\"]}", filename="memory-7.json")
    return await request_data(chat_id=7, caption="Вот что я помню — «всё»", document=document)


async def test_the_server_reads_the_same_file_fields_as_from_httpx():
    theirs = await received_by(HTTPXRequest, await document_request())
    ours = await received_by(BotApiRequest, await document_request())
    assert ours[0] == theirs[0] == 200
    assert ours[1] == theirs[1]
    assert ours[2]["fields"] == theirs[2]["fields"]
    assert ours[2]["agent"] == theirs[2]["agent"]
    assert ours[2]["fields"]["document"][0] == "memory-7.json"


async def test_a_silent_server_is_timed_out():
    held: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # read nothing, answer nothing

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = BotApiRequest(read_timeout=0.2)
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
    port = await closed_port()
    sender = BotApiRequest()
    await sender.initialize()
    try:
        with pytest.raises(NetworkError, match=f"aiohttp.ClientConnectorError: .*127.0.0.1:{port}"):
            await sender.do_request(f"http://127.0.0.1:{port}/bot/getMe", "POST")
    finally:
        await sender.shutdown()


async def test_a_full_pool_is_a_pool_timeout_and_the_request_never_leaves():
    arrived = asyncio.Event()
    answer = asyncio.Event()
    calls = []

    async def handle(request: web.Request) -> web.Response:
        calls.append(request.path)
        arrived.set()
        await answer.wait()
        return web.json_response({"ok": True, "result": []})

    runner, address = await serve_post("/bot/getUpdates", handle)
    sender = BotApiRequest(connection_pool_size=1, pool_timeout=0.1)
    await sender.initialize()
    try:
        polling = asyncio.create_task(sender.do_request(f"{address}/bot/getUpdates", "POST"))
        await arrived.wait()
        with pytest.raises(TimedOut, match="Pool timeout"):
            await sender.do_request(f"{address}/bot/getUpdates", "POST")
        answer.set()
        assert (await polling)[0] == 200
        assert calls == ["/bot/getUpdates"]
    finally:
        await sender.shutdown()
        await runner.cleanup()


async def test_not_initialized_or_shut_down_says_so():
    sender = BotApiRequest()
    with pytest.raises(RuntimeError, match="not initialized"):
        await sender.do_request("http://127.0.0.1:9/bot/getMe", "POST")
    await sender.initialize()
    await sender.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await sender.do_request("http://127.0.0.1:9/bot/getMe", "POST")
    await sender.initialize()  # a restart opens it again
    await sender.shutdown()


def test_timeouts_follow_python_telegram_bots_defaults():
    sender = BotApiRequest()
    plain = sender.timeouts(DEFAULT, DEFAULT, DEFAULT, DEFAULT, carries_file=False)
    assert plain == Timeouts(connect=5.0, pool=1.0, write=5.0, read=5.0)
    assert sender.read_timeout == 5.0


def test_timeouts_given_for_one_request_win():
    sender = BotApiRequest()
    polling = sender.timeouts(31.0, DEFAULT, 2.0, None, carries_file=False)
    assert polling == Timeouts(connect=2.0, pool=None, write=5.0, read=31.0)
    endless = BotApiRequest(read_timeout=None).timeouts(DEFAULT, DEFAULT, DEFAULT, DEFAULT, carries_file=False)
    assert endless.read is None


def test_a_file_gets_its_send_time_unless_one_is_given():
    sender = BotApiRequest()
    upload = sender.timeouts(DEFAULT, DEFAULT, DEFAULT, DEFAULT, carries_file=True)
    assert upload.write == MEDIA_WRITE_TIMEOUT_S and upload.read == 5.0
    assert sender.timeouts(DEFAULT, 60.0, DEFAULT, DEFAULT, carries_file=True).write == 60.0
    assert sender.timeouts(DEFAULT, None, DEFAULT, DEFAULT, carries_file=True).write is None


async def test_body_is_json_or_multipart():
    assert body(None) == (None, None)
    assert body(RequestData()) == (None, None)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="u:1")]])
    kind, data = body(await request_data(
        chat_id=7, text="Hi & bye, 100% 😀 +1 ä/ß?=\n\"q\"", reply_markup=markup,
        allowed_updates=["message"], disable_notification=True))
    assert kind == "application/json"
    assert json.loads(data) == {"chat_id": 7, "text": "Hi & bye, 100% 😀 +1 ä/ß?=\n\"q\"",
                                "reply_markup": {"inline_keyboard": [[{"text": "Undo", "callback_data": "u:1"}]]},
                                "allowed_updates": ["message"], "disable_notification": True}
    kind, _ = body(await request_data(chat_id=7, document=InputFile(b"{}", filename="a.json")))
    assert kind.startswith("multipart/form-data; boundary=")


async def test_the_bot_api_double_reads_json_as_it_reads_httpxs_form():
    async def sent(request_class) -> dict:
        telegram = TelegramDouble()
        await telegram.start()
        telegram.push_text(7, "hi")  # the chat is known to the double
        sender = request_class()
        await sender.initialize()
        try:
            data = await request_data(
                chat_id=7, text="Привет &amp; <b>100%</b> 😀", parse_mode="HTML",
                reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="u")]]))
            status, answer = await sender.do_request(f"{telegram.base_url}{telegram.token}/sendMessage", "POST", data)
            assert status == 200, answer
            return telegram.calls[-1][1]
        finally:
            await sender.shutdown()
            await telegram.close()

    assert await sent(BotApiRequest) == await sent(HTTPXRequest)


def test_multipart_escapes_names_and_reads_a_file_handle():
    document = ('a"b\r\n.json', io.BytesIO(b"{}"), "application/json")
    kind, data = multipart({'say "hi"': "Привет"}, {"document": document})
    boundary = kind.split("boundary=")[1].encode()
    assert data.startswith(b"--" + boundary + b"\r\n") and data.endswith(b"\r\n--" + boundary + b"--\r\n")
    assert b'name="say %22hi%22"\r\n\r\n' + "Привет".encode() in data
    assert b'name="document"; filename="a%22b%0D%0A.json"\r\nContent-Type: application/json\r\n\r\n{}' in data


async def test_a_file_with_odd_names_and_a_handle_reaches_the_server_as_from_httpx():
    async def odd() -> RequestData:
        return await request_data(caption="a\r\nb", **{'say "hi"': "Привет"}, document=InputFile(
            io.BytesIO(b"x" * 300_000), filename='we "say"\r\n.txt', read_file_handle=False))

    theirs = await received_by(HTTPXRequest, await odd())
    ours = await received_by(BotApiRequest, await odd())
    assert ours[2]["fields"] == theirs[2]["fields"]
    assert ours[2]["fields"]["document"][2] == b"x" * 300_000


def test_the_proxy_is_the_schemes_then_all_proxy_less_no_proxy():
    both = {"https": "http://secure:3128", "all": "http://any:8080", "no": "internal.example,.corp"}
    assert proxy_for("https://api.telegram.org/bot1:x/getMe", both) == "http://secure:3128"
    assert proxy_for("http://api.telegram.org/bot1:x/getMe", both) == "http://any:8080"
    assert proxy_for("https://internal.example:8081/bot1:x/getMe", both) is None
    assert proxy_for("https://api.corp/bot1:x/getMe", both) is None
    assert proxy_for("https://api.telegram.org/bot", {"all": "proxy.example:3128"}) == "http://proxy.example:3128"
    assert proxy_for("https://api.telegram.org/bot", {}) is None
    assert proxy_for("https://api.telegram.org/bot", {"all": "http://any:8080", "no": "*"}) is None


def test_a_proxy_is_named_without_its_password():
    assert where("socks5://user:secret@10.0.0.1:1080") == "socks5://10.0.0.1:1080"
