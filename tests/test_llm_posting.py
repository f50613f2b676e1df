"""llm/posting.py: a chat request sent through the SDK client's HTTP client is the request `client.post` sends, and
fails with the errors `client.post` raises."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from llm.posting import Poster

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
    assert lean.json() == sdk.json() == {"ok": True}
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
