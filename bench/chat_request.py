"""What one chat request costs the process, by the openai SDK call that sends it (issue 58: the SDK's public API).

A local aiohttp server answers every POST /v1/chat/completions with a small completion (or a short stream); the
client, on uvloop, in the same process (so the server's share is in every row alike), sends a request of 21
messages (a system prompt of 3,000 characters and 20 turns of 60 words: a chat's usual prompt) through the model
server's client (llm/servers.py) in each way, and takes the CPU (utime + stime) per request, the median of
`--rounds` rounds of `--requests`:

- create: `chat.completions.with_streaming_response.create(model, messages, extra_body=...)`, the raw response
  read whole: the SDK's documented raw-response API, which first walks `messages` through its type-driven
  transform;
- create stream: the same with stream=True, the body read whole;
- post: `client.post("/chat/completions", cast_to=httpx2.Response, content=orjson bytes)`, as llm/client.py sends
  an unstreamed request;
- post stream: the same with stream=True and the SDK's AsyncStream, its `response` read whole, as llm/client.py
  sends a streamed one;
- aiohttp alone: the same bytes POSTed on an aiohttp session like the SDK's (llm/servers.py `model_session`),
  without the SDK and httpx2 above it: what the SDK's layers add to a request is `post` less this.

    .venv/bin/python bench/chat_request.py
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
from pathlib import Path

import httpx2
import openai
import orjson
import uvloop
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from llm.gate import Gate  # noqa: E402 - after the path that finds them
from llm.server import ServerFeatures  # noqa: E402
from llm.servers import ModelServer, model_session  # noqa: E402

ANSWER = orjson.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "hello " * 50}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
MESSAGES = [{"role": "system", "content": "x" * 3000}] + [
    {"role": "user" if turn % 2 else "assistant", "content": "word " * 60} for turn in range(20)]
OPTIONS = {"max_tokens": 100, "temperature": 0.5}
TIMEOUT = httpx2.Timeout(10.0)
SENT: openai.RequestOptions = {"timeout": TIMEOUT, "headers": {"Content-Type": "application/json"}}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def create(client: openai.AsyncOpenAI, stream: bool) -> bytes:
    async with client.chat.completions.with_streaming_response.create(
            model="m", messages=MESSAGES, stream=stream, extra_body=OPTIONS, timeout=TIMEOUT) as response:
        return await response.read()


async def post(client: openai.AsyncOpenAI, stream: bool) -> bytes:
    content = orjson.dumps({"model": "m", "messages": MESSAGES, **OPTIONS, **({"stream": True} if stream else {})})
    if not stream:
        return (await client.post("/chat/completions", cast_to=httpx2.Response, content=content, options=SENT)).content
    chunks = await client.post("/chat/completions", cast_to=object, content=content, options=SENT, stream=True,
                               stream_cls=openai.AsyncStream[object])
    try:
        return await chunks.response.aread()
    finally:
        await chunks.close()


def aiohttp_alone(url: str):
    session = model_session(1)
    content = orjson.dumps({"model": "m", "messages": MESSAGES, **OPTIONS})
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}

    async def send(client: openai.AsyncOpenAI, stream: bool) -> bytes:
        async with session.post(f"{url}/chat/completions", data=content, headers=headers) as response:
            return await response.read()

    return session, send


async def main(rounds: int, requests: int) -> None:
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=ANSWER, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    server = ModelServer.open(f"http://127.0.0.1:{port}/v1", "sk-bench", 10.0, Gate(None), ServerFeatures())
    session, alone = aiohttp_alone(f"http://127.0.0.1:{port}/v1")
    ways = {"create": (create, False), "create stream": (create, True), "post": (post, False),
            "post stream": (post, True), "aiohttp alone": (alone, False)}
    try:
        for name, (send, stream) in ways.items():
            for _ in range(20):  # warm up: the connection opened, the SDK's caches filled
                await send(server.client, stream)
            costs = []
            for _ in range(rounds):
                started = cpu()
                for _ in range(requests):
                    await send(server.client, stream)
                costs.append((cpu() - started) / requests * 1000)
            print(f"{name:<14} {statistics.median(costs):.3f} ms a request")
    finally:
        await server.close()
        await session.close()
        await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=100)
    arguments = parser.parse_args()
    uvloop.run(main(arguments.rounds, arguments.requests))
