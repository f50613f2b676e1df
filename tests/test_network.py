"""The network's hard cases through the real Bot API transport (transport/http.py), against local
servers (tests/network_servers.py): a stall mid-body, proxies, IPv6 that never answers, a private CA, redirects,
gzip, bad headers; and the real bot.py behind a proxy."""

from __future__ import annotations

import asyncio
import gzip
import json
import signal
import time

import pytest
from telegram.error import NetworkError, TimedOut

from tests.network_servers import (
    DEAD_IPV6,
    CertificateAuthority,
    Exchange,
    FixedResolver,
    Proxy,
    ScriptedServer,
    dead_ipv6_reason,
    response,
)
from tests.test_http_request import request_data
from tests.test_process import environment, start_bot
from tests.timeouts import scaled
from transport.http import BotApiRequest

PROXY_SETTINGS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")
UPDATES = json.dumps({"ok": True, "result": [{"update_id": 1}]}).encode()


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """No proxy and no certificate setting of the machine's leaks into a test; each test sets its own."""
    for name in PROXY_SETTINGS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


async def answering(exchange: Exchange) -> None:
    """Answer every request on the connection with UPDATES."""
    while await exchange.request() is not None:
        await exchange.send(response(200, UPDATES, "Content-Type: application/json"))


async def requested(url: str, sender: BotApiRequest | None = None, **timeouts) -> tuple[int, bytes]:
    """Return the status and body of one POST to `url` through a BotApiRequest (a fresh one unless given)."""
    own = sender is None
    sender = sender or BotApiRequest()
    if own:
        await sender.initialize()
    try:
        return await sender.do_request(url, "POST", **timeouts)
    finally:
        if own:
            await sender.shutdown()


async def test_a_poll_stalled_mid_body_times_out_and_the_next_poll_on_its_pool_of_one_is_answered(servers):
    async def half_then_silence(exchange: Exchange) -> None:
        if exchange.number > 0:
            return await answering(exchange)
        await exchange.request()
        whole = response(200, UPDATES, "Content-Type: application/json")
        await exchange.send(whole[: len(whole) - len(UPDATES) // 2])
        await asyncio.sleep(3600)  # the stall: the socket stays open, nothing more comes

    server = await servers(ScriptedServer(half_then_silence))
    polls = BotApiRequest(connection_pool_size=1)
    await polls.initialize()
    try:
        started = time.monotonic()
        with pytest.raises(TimedOut):
            await polls.do_request(f"{server.url}/bot/getUpdates", "POST", read_timeout=0.3)
        assert time.monotonic() - started < scaled(2.0)
        stalled = server.exchanges[0]
        # The stalled connection is closed by the client, not kept (nor given to the next poll).
        assert await asyncio.wait_for(stalled.closed_by_peer(), scaled(2.0))
        status, answer = await polls.do_request(f"{server.url}/bot/getUpdates", "POST", read_timeout=1.0)
        assert (status, json.loads(answer)) == (200, {"ok": True, "result": [{"update_id": 1}]})
        assert len(server.exchanges) == 2
    finally:
        await polls.shutdown()


async def test_a_task_cancelled_mid_body_closes_its_connection_and_the_pool_of_one_goes_on(servers):
    async def five_bytes_short(exchange: Exchange) -> None:
        if exchange.number > 0:
            return await answering(exchange)
        await exchange.request()
        await exchange.send(response(200, UPDATES)[:-5])
        await asyncio.sleep(3600)

    server = await servers(ScriptedServer(five_bytes_short))
    polls = BotApiRequest(connection_pool_size=1)
    await polls.initialize()
    try:
        poll = asyncio.create_task(polls.do_request(f"{server.url}/bot/getUpdates", "POST", read_timeout=30.0))
        while not server.exchanges:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # the head and part of the body are in
        poll.cancel()
        with pytest.raises(asyncio.CancelledError):
            await poll
        assert await asyncio.wait_for(server.exchanges[0].closed_by_peer(), scaled(2.0))
        assert (await polls.do_request(f"{server.url}/bot/getUpdates", "POST", pool_timeout=0.5))[0] == 200
    finally:
        await polls.shutdown()


@pytest.fixture
async def tls_server(servers, tmp_path):
    """A TLS server with a certificate from a CA made now, answering UPDATES; its CA's file is `.ca_file`."""
    authority = CertificateAuthority()
    server = await servers(ScriptedServer(answering, tls=authority.server_context()))
    server.ca_file = authority.write_ca(tmp_path)
    return server


async def test_a_private_ca_in_ssl_cert_file_is_trusted(tls_server, plain_environment):
    plain_environment.setenv("SSL_CERT_FILE", str(tls_server.ca_file))
    status, answer = await requested(f"{tls_server.url}/bot/getUpdates")
    assert status == 200 and json.loads(answer)["result"] == [{"update_id": 1}]


async def test_an_unknown_ca_is_refused_as_a_network_error(tls_server):
    with pytest.raises(NetworkError, match="certificate verify failed"):
        await requested(f"{tls_server.url}/bot/getUpdates")


@pytest.mark.parametrize("setting", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"])
async def test_https_goes_through_the_proxys_connect_tunnel(setting, tls_server, servers, plain_environment):
    proxy = await servers(Proxy())
    plain_environment.setenv("SSL_CERT_FILE", str(tls_server.ca_file))
    plain_environment.setenv(setting, proxy.url)
    status, _ = await requested(f"{tls_server.url}/bot/getUpdates")
    assert status == 200
    assert proxy.seen == [f"CONNECT 127.0.0.1:{tls_server.port} HTTP/1.1"]


@pytest.mark.parametrize("setting", ["HTTP_PROXY", "ALL_PROXY"])
async def test_http_goes_to_the_proxy_as_an_absolute_url(setting, servers, plain_environment):
    server = await servers(ScriptedServer(answering))
    proxy = await servers(Proxy())
    plain_environment.setenv(setting, proxy.url)
    assert (await requested(f"{server.url}/bot/getUpdates"))[0] == 200
    assert proxy.seen == [f"POST {server.url}/bot/getUpdates HTTP/1.1"]


async def test_a_name_only_the_proxy_resolves_is_reached_through_it(servers, plain_environment):
    server = await servers(ScriptedServer(answering))
    proxy = await servers(Proxy(hosts={"api.telegram.invalid": "127.0.0.1"}))
    plain_environment.setenv("HTTP_PROXY", proxy.url)
    assert (await requested(f"http://api.telegram.invalid:{server.port}/bot/getMe"))[0] == 200
    assert proxy.seen == [f"POST http://api.telegram.invalid:{server.port}/bot/getMe HTTP/1.1"]


async def test_no_proxy_goes_around_the_proxy(tls_server, servers, plain_environment):
    proxy = await servers(Proxy())
    plain_environment.setenv("SSL_CERT_FILE", str(tls_server.ca_file))
    plain_environment.setenv("HTTPS_PROXY", proxy.url)
    plain_environment.setenv("ALL_PROXY", proxy.url)
    plain_environment.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert (await requested(f"{tls_server.url}/bot/getUpdates"))[0] == 200
    assert proxy.seen == []


async def test_a_socks_proxy_is_one_clear_error_without_its_password(plain_environment):
    plain_environment.setenv("ALL_PROXY", "socks5://me:s3cret@127.0.0.1:1080")
    with pytest.raises(NetworkError) as raised:
        await requested("https://api.telegram.org/bot1:x/getMe")
    assert "socks5://127.0.0.1:1080" in str(raised.value) and "http:// proxy" in str(raised.value)
    assert "s3cret" not in str(raised.value)


async def test_ipv4_is_tried_within_half_a_second_of_a_dead_ipv6_address(servers):
    reason = dead_ipv6_reason()
    if reason is not None:
        pytest.skip(reason)
    server = await servers(ScriptedServer(answering))
    resolver = FixedResolver({"api.dual.test": [DEAD_IPV6, "127.0.0.1"]})
    sender = BotApiRequest(resolver=resolver)
    await sender.initialize()
    try:
        started = time.monotonic()
        status, _ = await sender.do_request(f"http://api.dual.test:{server.port}/bot/getMe", "POST")
        took = time.monotonic() - started
    finally:
        await sender.shutdown()
    assert status == 200 and resolver.asked == ["api.dual.test"]
    assert took < 0.5, f"IPv4 answered {took:.2f}s after the request began"


async def test_a_redirect_is_followed_with_its_body(servers):
    async def moved(exchange: Exchange) -> None:
        while (request := await exchange.request()) is not None:
            if request.target == "/bot/old":
                await exchange.send(response(307, b"", "Location: /bot/new"))
            else:
                await exchange.send(response(200, json.dumps({"at": request.target, "body": request.body.decode()})
                                             .encode()))

    server = await servers(ScriptedServer(moved))
    sender = BotApiRequest()
    await sender.initialize()
    try:
        data = await request_data(chat_id=7)
        status, answer = await sender.do_request(f"{server.url}/bot/old", "POST", data)
    finally:
        await sender.shutdown()
    assert status == 200 and json.loads(answer) == {"at": "/bot/new", "body": '{"chat_id":7}'}


async def test_a_gzip_body_arriving_a_byte_at_a_time_is_read_whole(servers):
    packed = gzip.compress(UPDATES * 50)

    async def bytewise(exchange: Exchange) -> None:
        await exchange.request()
        for byte in response(200, packed, "Content-Encoding: gzip"):
            await exchange.send(bytes([byte]))

    server = await servers(ScriptedServer(bytewise))
    status, answer = await requested(f"{server.url}/bot/getUpdates")
    assert status == 200 and answer == UPDATES * 50


@pytest.mark.parametrize("value", [b"a\rb", b"a\x00b"])
async def test_a_header_with_cr_or_nul_is_refused(value, servers):
    async def bad_header(exchange: Exchange) -> None:
        await exchange.request()
        await exchange.send(b"HTTP/1.1 200 OK\r\nX-Odd: " + value + b"\r\nContent-Length: 2\r\n\r\n{}")

    server = await servers(ScriptedServer(bad_header))
    with pytest.raises(NetworkError):
        await requested(f"{server.url}/bot/getMe")


async def test_the_bot_behind_an_http_proxy_reaches_telegram_by_a_name_only_the_proxy_resolves(
    telegram, model, tmp_path, servers
):
    proxy = await servers(Proxy(hosts={"api.telegram.invalid": "127.0.0.1"}))
    telegram_url = telegram.base_url.replace("127.0.0.1", "api.telegram.invalid")
    env = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram_url, DATABASE_PATH=str(tmp_path / "db" / "bot.db"),
        HTTP_PROXY=proxy.url, HTTPS_PROXY=proxy.url,
    )
    for name in PROXY_SETTINGS[2:]:
        env.pop(name, None)
        env.pop(name.lower(), None)
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        telegram.push_text(1001, "hello through the proxy")
        [reply] = await telegram.wait_for_sent(1001, 1, timeout=30)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert reply["visible_text"] == "echo: hello through the proxy"
    through = [line for line in proxy.seen if "api.telegram.invalid" in line]
    assert any("/getUpdates " in line for line in through) and any("/sendMessage " in line for line in through)
    assert "Traceback" not in stderr.decode()
