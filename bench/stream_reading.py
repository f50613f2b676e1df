"""What reading one streamed reply costs the client's process, by HTTP stack and event loop, and its floor.

A server in a process of its own streams a chat completion as a real model does: 100 chunks, one every 25 ms (40
tokens a second), each its own write, so each arrives alone. The client takes the CPU (utime + stime) of its own
process per reply over `--replies` replies, for:

- httpx2: the openai SDK's default client (`openai.AsyncOpenAI`), reading the body the lean way (llm/client.py);
- aiohttp: the same with the SDK's `DefaultAioHttpClient`, as llm/servers.py builds it;
- paced: the same, the connection read at most every ANSWER_PACE_S (llm/responses.py), as the bot read a
  reply once its words came until issue 42's seventh part;
- net, net paced: the bot's own client (net/connections.py), which llm/servers.py gives chat requests now,
  reading each piece as it comes, and paced;
- floor: a bare asyncio Protocol that only counts what arrives: what a hundred wake-ups of the loop cost;

each on asyncio's own event loop and on uvloop (bot.py's). Between two chunks the client has nothing to do, so
the figures are the price of being woken a hundred times and what each stack does per piece.

    .venv/bin/python bench/stream_reading.py --replies 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import socket
import statistics
import subprocess
import sys
from pathlib import Path

import httpx2
import openai
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from llm.posting import Poster  # noqa: E402 - after the path that finds them
from llm.responses import ANSWER_PACE_S, read_chunks  # noqa: E402
from net.connections import Pool  # noqa: E402

CHUNKS, INTERVAL = 100, 1 / 40
CHUNK = json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": {"content": "word"}, "finish_reason": None}]})
SERVER = f"""
import asyncio
async def handle(reader, writer):
    while True:
        try:
            head = await reader.readuntil(b"\\r\\n\\r\\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        lines = head.lower().split(b"\\r\\n")
        length = [int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length")]
        await reader.readexactly(length[0] if length else 0)
        writer.write(b"HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream\\r\\n"
                     b"Transfer-Encoding: chunked\\r\\n\\r\\n")
        for _ in range({CHUNKS}):
            event = b"data: " + {CHUNK!r}.encode() + b"\\n\\n"
            writer.write(b"%x\\r\\n%s\\r\\n" % (len(event), event))
            await writer.drain()
            await asyncio.sleep({INTERVAL})
        event = b"data: [DONE]\\n\\n"
        writer.write(b"%x\\r\\n%s\\r\\n0\\r\\n\\r\\n" % (len(event), event))
        await writer.drain()
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
"""


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def one_reply(client: openai.AsyncOpenAI, pool: Pool | None, pace: float) -> None:
    """Read one streamed reply as llm/client.py does: through the bot's own client (`pool`), else the SDK's."""
    reply = await Poster(client, "/chat/completions", pool).post(
        {"model": "m", "messages": [], "stream": True}, httpx2.Timeout(30.0), stream=True)
    try:
        async for _ in read_chunks(reply, (lambda: pace) if pace else None):
            pass
    finally:
        await reply.aclose()


class Counting(asyncio.Protocol):
    def __init__(self, done: asyncio.Future) -> None:
        self.done = done

    def data_received(self, data: bytes) -> None:
        if data.endswith(b"0\r\n\r\n") and not self.done.done():
            self.done.set_result(None)


async def floor_reply(port: int) -> None:
    """Read one reply with a protocol that does nothing with what arrives."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    transport, _ = await loop.create_connection(lambda: Counting(done), "127.0.0.1", port)
    transport.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
    await done
    transport.close()


async def measure(stack: str, port: int, replies: int) -> float:
    """Return the CPU milliseconds of one reply, median over `replies` (after one to warm up)."""
    client, pool = None, None
    if stack != "floor":
        http = openai.DefaultAioHttpClient() if stack in ("aiohttp", "paced") else None
        client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-test", max_retries=0,
                                    **({"http_client": http} if http else {}))
        pool = Pool() if stack.startswith("net") else None
    pace = ANSWER_PACE_S if stack in ("paced", "net paced") else 0.0
    costs = []
    for number in range(replies + 1):
        started = cpu()
        await (floor_reply(port) if client is None else one_reply(client, pool, pace))
        if number:
            costs.append((cpu() - started) * 1000)
    if client is not None:
        await client.close()
    if pool is not None:
        await pool.close()
    return statistics.median(costs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=5)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        print(f"one reply of {CHUNKS} chunks at {1 / INTERVAL:.0f} a second; client CPU per reply, median of "
              f"{args.replies}; {socket.gethostname()}")
        for stack in ("httpx2", "aiohttp", "paced", "net", "net paced", "floor"):
            on_asyncio = asyncio.run(measure(stack, port, args.replies))
            on_uvloop = uvloop.run(measure(stack, port, args.replies))
            print(f"{stack:<10} asyncio {on_asyncio:6.1f} ms   uvloop {on_uvloop:6.1f} ms   "
                  f"({on_uvloop / CHUNKS * 1000:.0f} µs a chunk on uvloop)")
    finally:
        server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
