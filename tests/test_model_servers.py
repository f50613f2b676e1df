"""llm/servers.py: a model server's client, the openai SDK over an aiohttp session of ours, against local servers
(tests/network_servers.py): the environment's proxy and certificates, a refusal as the SDK's own error, and a stream
that stalls closed, not pooled."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from llm.client import ChatModel, ModelUnavailable
from llm.gate import Gate
from llm.server import ServerFeatures
from llm.servers import ModelServer
from tests.harness import closed_port
from tests.network_servers import CertificateAuthority, Exchange, Proxy, ScriptedServer, response
from tests.timeouts import scaled

PROXY_SETTINGS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")
MESSAGES = [{"role": "user", "content": "hi"}]
ANSWER = json.dumps({"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}).encode()
SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def sse_chunk(content: str | None = None, finish: str | None = None) -> bytes:
    """Return one chunk of a chunked SSE body: a chat.completion.chunk's `data:` line."""
    delta = {"content": content} if content is not None else {}
    event = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    line = b"data: " + json.dumps(event).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(line), line)


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """No proxy and no certificate setting of the machine's leaks into a test; each test sets its own."""
    for name in PROXY_SETTINGS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


async def answering(exchange: Exchange) -> None:
    """Answer every request on the connection with ANSWER."""
    while await exchange.request() is not None:
        await exchange.send(response(200, ANSWER, "Content-Type: application/json"))


def opened(base_url: str, timeout: float = 5.0) -> ModelServer:
    return ModelServer.open(base_url, "sk-test", timeout, Gate(None), ServerFeatures())


async def completed(server: ModelServer, **settings: float) -> str:
    chat = ChatModel(server.client, "m", **{"attempt_timeout": 5.0, "budget": 5.0, "backoff": 0.01,
                                            "streams": server.streams, **settings})
    try:
        return await chat.complete(MESSAGES)
    finally:
        await server.close()


async def test_a_chat_request_goes_through_aiohttp_with_the_sdks_key_and_the_body_as_sent(servers):
    seen = []

    async def recording(exchange: Exchange) -> None:
        while (request := await exchange.request()) is not None:
            seen.append(request)
            await exchange.send(response(200, ANSWER, "Content-Type: application/json"))

    model = await servers(ScriptedServer(recording))
    assert await completed(opened(f"{model.url}/v1")) == "hello"
    [request] = seen
    assert request.line == "POST /v1/chat/completions HTTP/1.1"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert json.loads(request.body) == {"model": "m", "messages": MESSAGES}


async def test_another_key_gets_a_client_of_its_own_and_shares_the_slots():
    direct = opened("https://api.example.test/v1")
    another_key = direct.or_another(None, "sk-other", 5.0)
    try:
        assert another_key.client is not direct.client and another_key.gate is direct.gate
        assert direct.or_another(None, None, 5.0) is direct
    finally:
        await direct.close()
        await another_key.close()


@pytest.mark.parametrize("setting", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
async def test_https_to_the_model_goes_through_the_proxys_connect_tunnel(setting, servers, tmp_path,
                                                                         plain_environment):
    authority = CertificateAuthority()
    model = await servers(ScriptedServer(answering, tls=authority.server_context()))
    proxy = await servers(Proxy())
    plain_environment.setenv("SSL_CERT_FILE", str(authority.write_ca(tmp_path)))
    plain_environment.setenv(setting, proxy.url)
    assert await completed(opened(f"{model.url}/v1")) == "hello"
    assert proxy.seen == [f"CONNECT 127.0.0.1:{model.port} HTTP/1.1"]


async def test_http_to_the_model_goes_to_the_proxy_and_no_proxy_goes_around_it(servers, plain_environment):
    model = await servers(ScriptedServer(answering))
    proxy = await servers(Proxy())
    plain_environment.setenv("HTTP_PROXY", proxy.url)
    assert await completed(opened(f"{model.url}/v1")) == "hello"
    assert proxy.seen == [f"POST {model.url}/v1/chat/completions HTTP/1.1"]
    plain_environment.setenv("NO_PROXY", "127.0.0.1")
    assert await completed(opened(f"{model.url}/v1")) == "hello"
    assert len(proxy.seen) == 1


async def test_an_unknown_ca_is_refused_and_a_private_one_in_ssl_cert_file_is_trusted(servers, tmp_path,
                                                                                      plain_environment):
    authority = CertificateAuthority()
    model = await servers(ScriptedServer(answering, tls=authority.server_context()))
    with pytest.raises(ModelUnavailable) as refused:
        # Refused at once, and tried again until the budget ends; a shorter one timed out mid-handshake under load.
        await completed(opened(f"{model.url}/v1"), budget=1.5)
    assert isinstance(refused.value.__cause__, openai.APIConnectionError)
    plain_environment.setenv("SSL_CERT_FILE", str(authority.write_ca(tmp_path)))
    assert await completed(opened(f"{model.url}/v1")) == "hello"


@pytest.mark.parametrize("status, error", [
    (400, openai.BadRequestError), (401, openai.AuthenticationError), (404, openai.NotFoundError),
    (422, openai.UnprocessableEntityError), (429, openai.RateLimitError), (500, openai.InternalServerError),
    (503, openai.InternalServerError),
])
@pytest.mark.parametrize("stream", [False, True])
async def test_a_refusal_is_the_sdks_own_error_with_its_message_and_body(status, error, stream, servers):
    body = {"error": {"message": f"refused with {status}", "code": None}}

    async def refusing(exchange: Exchange) -> None:
        while await exchange.request() is not None:
            await exchange.send(response(status, json.dumps(body).encode(), "Content-Type: application/json",
                                         "Retry-After: 3"))

    model = await servers(ScriptedServer(refusing))
    server = opened(f"{model.url}/v1")
    chat = ChatModel(server.client, "m", attempt_timeout=5.0, streams=server.streams)
    try:
        with pytest.raises(error) as raised:
            async with chat._opened(MESSAGES, None, {}, 5.0, stream=stream):
                pass
    finally:
        await server.close()
    assert raised.value.status_code == status and raised.value.body == body["error"]
    assert raised.value.message.endswith(f"refused with {status}")
    assert raised.value.response.headers["retry-after"] == "3"


async def test_no_server_is_a_connection_error_and_a_silent_one_a_timeout(servers):
    port = await closed_port()
    server = opened(f"http://127.0.0.1:{port}/v1")
    chat = ChatModel(server.client, "m", streams=server.streams)
    try:
        # httpx-aiohttp 0.2.0 maps aiohttp's refused connection to httpx2's ConnectTimeout (its map prefers the
        # parent ClientConnectionError's entry), so the SDK says APITimeoutError, a subclass: retried all the same.
        with pytest.raises(openai.APIConnectionError):
            await chat._create(MESSAGES, None, {}, 5.0)
    finally:
        await server.close()

    async def silent(exchange: Exchange) -> None:
        await exchange.request()
        await asyncio.sleep(3600)

    model = await servers(ScriptedServer(silent))
    server = opened(f"{model.url}/v1", timeout=0.3)
    chat = ChatModel(server.client, "m", streams=server.streams)
    try:
        with pytest.raises((openai.APITimeoutError, TimeoutError)):
            await chat._create(MESSAGES, None, {}, 0.3)
    finally:
        await server.close()
    assert await asyncio.wait_for(model.exchanges[0].closed_by_peer(), scaled(2.0))


async def test_a_stream_that_stalls_is_closed_not_pooled_and_the_next_one_gets_a_connection_of_its_own(servers):
    async def stalling_once(exchange: Exchange) -> None:
        while await exchange.request() is not None:
            await exchange.send(SSE_HEAD + sse_chunk("Hel"))
            await asyncio.sleep(0.05)
            await exchange.send(sse_chunk("lo"))
            if exchange.number == 0:
                await asyncio.sleep(3600)  # the stall: the socket stays open, nothing more comes
            await exchange.send(sse_chunk(finish="stop") + b"e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n")

    model = await servers(ScriptedServer(stalling_once))
    server = opened(f"{model.url}/v1")
    # Silence for longer than a paced read's half second is a stall.
    chat = ChatModel(server.client, "m", attempt_timeout=1.0, budget=8.0, backoff=0.01, streams=server.streams)
    shown: list[str] = []
    try:
        assert await chat.complete(MESSAGES, on_text=shown.append) == "Hello"
        # The stalled connection is closed by the client, not kept (nor given to the retry).
        assert await asyncio.wait_for(model.exchanges[0].closed_by_peer(), scaled(2.0))
        assert len(model.exchanges) == 2 and shown[0] in ("Hel", "Hello")
        # A stream read to its end leaves its connection for the next request.
        assert await chat.complete(MESSAGES, on_text=shown.append) == "Hello"
        assert len(model.exchanges) == 2
    finally:
        await server.close()


async def test_a_connection_back_in_the_pool_answers_its_next_request_whatever_the_wait(servers):
    # aiohttp 3.14 with a small read buffer arms a connection's read timeout again when a whole answer is read
    # after the connection went back to the pool; the timer then fails the next request on it, unsent
    # (SocketTimeoutError). The streams' session (one-byte buffer) never sets a read timeout; the other keeps
    # aiohttp's buffer. Both connections here wait past the attempt timeout in the pool, then answer again.
    async def streaming_or_whole(exchange: Exchange) -> None:
        while (request := await exchange.request()) is not None:
            if b'"stream":true' in request.body:
                await exchange.send(SSE_HEAD + sse_chunk("hello") + sse_chunk(finish="stop")
                                    + b"e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n")
            else:
                await exchange.send(response(200, ANSWER, "Content-Type: application/json"))

    model = await servers(ScriptedServer(streaming_or_whole))
    server = opened(f"{model.url}/v1", timeout=0.5)
    chat = ChatModel(server.client, "m", attempt_timeout=0.5, budget=0.5, backoff=0.01, streams=server.streams)
    try:
        for _ in range(2):
            assert await chat.complete(MESSAGES) == "hello"
            assert await chat.complete(MESSAGES, on_text=lambda text: None) == "hello"
            await asyncio.sleep(1.0)  # twice the read timeout, in the pool
        assert len(model.exchanges) == 2  # one connection each, kept and used again
    finally:
        await server.close()
