"""llm/posting.py: a chat request sent through the SDK client's HTTP client, or through the bot's own (net/), is the
request `client.post` sends, and fails with the errors `client.post` raises."""

from __future__ import annotations

import asyncio
import json

import httpx2
import openai
import pytest
from aiohttp import web

from llm.posting import Poster
from net.connections import Pool
from tests.harness import closed_port, serve_post

BODY = {"model": "m", "messages": [{"role": "user", "content": "Привет"}], "temperature": 0.5}
TIMEOUT = httpx2.Timeout(5.0)


def client_for(handler, api_key="sk-test") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url="http://model.test/v1", api_key=api_key, max_retries=0,
                              http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))


async def sdk_post(client: openai.AsyncOpenAI) -> httpx2.Response:
    return await client.post("/chat/completions", body=BODY, cast_to=httpx2.Response,
                             options={"timeout": TIMEOUT, "security": {"bearer_auth": True}})


async def test_the_request_is_the_one_the_sdks_post_sends():
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json={"ok": True})

    client = client_for(answer)
    lean = await Poster(client, "/chat/completions").post(BODY, TIMEOUT, stream=False)
    sdk = await sdk_post(client)
    assert json.loads(lean.content) == sdk.json() == {"ok": True}
    [by_poster, by_sdk] = seen
    assert by_poster.url == by_sdk.url == "http://model.test/v1/chat/completions"
    assert by_poster.content == by_sdk.content and json.loads(by_poster.content) == BODY
    assert by_poster.headers["authorization"] == "Bearer sk-test"
    assert dict(by_poster.headers) == {key: value for key, value in by_sdk.headers.items()
                                       if key != "x-stainless-read-timeout"}


@pytest.mark.parametrize("status, body", [
    (400, {"error": {"message": "Unrecognized request argument supplied: stream_options", "code": None}}),
    (401, {"error": {"message": "Incorrect API key provided"}}),
    (404, {"error": {"message": "The model `m` does not exist"}}),
    (429, {"error": {"message": "Rate limit reached"}}),
    (500, "upstream crashed"),
    (503, {"detail": "loading model"}),
])
async def test_a_refusal_is_the_sdks_own_error_with_its_message_and_body(status, body):
    def answer(request: httpx2.Request) -> httpx2.Response:
        payload = {"text": body} if isinstance(body, str) else {"json": body}
        return httpx2.Response(status, headers={"retry-after": "3"}, **payload)

    client = client_for(answer)
    with pytest.raises(openai.APIStatusError) as lean:
        await Poster(client, "/chat/completions").post(BODY, TIMEOUT, stream=True)
    with pytest.raises(openai.APIStatusError) as sdk:
        await sdk_post(client)
    assert type(lean.value) is type(sdk.value) and lean.value.status_code == status
    assert (lean.value.message, lean.value.body) == (sdk.value.message, sdk.value.body)
    assert lean.value.response.headers["retry-after"] == "3" and lean.value.response.is_closed


async def test_a_failed_connection_and_a_timeout_are_the_sdks_errors():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    def stall(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("no answer", request=request)

    with pytest.raises(openai.APIConnectionError) as refused:
        await Poster(client_for(refuse), "/chat/completions").post(BODY, TIMEOUT, stream=False)
    assert not isinstance(refused.value, openai.APITimeoutError)
    with pytest.raises(openai.APITimeoutError):
        await Poster(client_for(stall), "/chat/completions").post(BODY, TIMEOUT, stream=False)


async def serving(handler) -> tuple[web.AppRunner, str]:
    """Serve `handler` for POST /v1/chat/completions on a free port; return the runner and the base URL."""
    runner, address = await serve_post("/v1/chat/completions", handler)
    return runner, address + "/v1"


def real_client(base_url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)


async def test_through_the_pool_the_server_gets_the_request_the_sdk_sends():
    seen: list[tuple[dict, bytes]] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(({name.lower(): value for name, value in request.headers.items()}, await request.read()))
        return web.json_response({"ok": True})

    runner, base_url = await serving(answer)
    client, pool = real_client(base_url), Pool()
    try:
        lean = await Poster(client, "/chat/completions", pool).post(BODY, TIMEOUT, stream=False)
        await sdk_post(client)
    finally:
        await pool.close()
        await client.close()
        await runner.cleanup()
    assert json.loads(lean.content) == {"ok": True} and lean.status == 200
    [(by_pool, body), (by_sdk, sdk_body)] = seen
    assert body == sdk_body and json.loads(body) == BODY
    unsent = {"accept-encoding", "connection", "x-stainless-read-timeout"}  # httpx's and the SDK's extras
    assert by_pool == {name: value for name, value in by_sdk.items() if name not in unsent}
    assert by_pool["authorization"] == "Bearer sk-test"


@pytest.mark.parametrize("status, body", [
    (400, {"error": {"message": "Unrecognized request argument supplied: stream_options", "code": None}}),
    (404, {"error": {"message": "The model `m` does not exist"}}),
    (500, "upstream crashed"),
])
@pytest.mark.parametrize("stream", [False, True])
async def test_through_the_pool_a_refusal_is_the_sdks_own_error(status, body, stream):
    async def answer(request: web.Request) -> web.Response:
        if isinstance(body, str):
            return web.Response(status=status, text=body, headers={"retry-after": "3"})
        return web.json_response(body, status=status, headers={"retry-after": "3"})

    runner, base_url = await serving(answer)
    client, pool = real_client(base_url), Pool()
    try:
        with pytest.raises(openai.APIStatusError) as lean:
            await Poster(client, "/chat/completions", pool).post(BODY, TIMEOUT, stream=stream)
        with pytest.raises(openai.APIStatusError) as sdk:
            await sdk_post(client)
    finally:
        await pool.close()
        await client.close()
        await runner.cleanup()
    assert type(lean.value) is type(sdk.value) and lean.value.status_code == status
    assert (lean.value.message, lean.value.body) == (sdk.value.message, sdk.value.body)
    assert lean.value.response.headers["retry-after"] == "3"


async def test_through_the_pool_no_server_and_a_silent_one_are_the_sdks_errors():
    port = await closed_port()
    pool = Pool()
    with pytest.raises(openai.APIConnectionError) as refused:
        await Poster(real_client(f"http://127.0.0.1:{port}/v1"), "/chat/completions", pool).post(
            BODY, TIMEOUT, stream=False)
    assert not isinstance(refused.value, openai.APITimeoutError)

    held: list[asyncio.StreamWriter] = []
    silent = await asyncio.start_server(lambda reader, writer: held.append(writer), "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    try:
        with pytest.raises(openai.APITimeoutError):
            await Poster(real_client(f"http://127.0.0.1:{port}/v1"), "/chat/completions", pool).post(
                BODY, httpx2.Timeout(0.2), stream=False)
    finally:
        await pool.close()
        for writer in held:
            writer.close()
        silent.close()
        await silent.wait_closed()
