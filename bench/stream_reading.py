"""What reading one streamed reply costs the client's process, paced and not, and its floor.

A server in a process of its own streams a chat completion as a real model does: 100 chunks, one every 25 ms (40
tokens a second), each its own write, so each arrives alone. The client takes the CPU (utime + stime) of its own
process per reply over `--replies` replies, and the wall time of a reply (the server takes 2.5 s to send it), for:

- sdk: the openai SDK's own parsed stream (`chat.completions.create(stream=True)`, a pydantic model a chunk) on
  its `DefaultAioHttpClient`;
- unpaced: the bot's path (llm/servers.py's client, ChatModel's request through the SDK's `post`, llm/responses.py's
  read_chunks) reading each piece as it comes;
- paced: the same on the server's client for streams (ModelServer.streams), read every ANSWER_PACE_S as ChatModel
  reads a reply once its words come: aiohttp's flow control (that session's one-byte read buffer) leaves the
  socket alone between reads;
- paced 64K: the same pacing on the SDK's `DefaultAioHttpClient`, whose aiohttp session keeps the default 64 KiB
  read buffer: aiohttp goes on reading the socket between our reads, once a chunk;
- floor: a bare asyncio Protocol that only counts what arrives: what a hundred wake-ups of the loop cost;

each on asyncio's own event loop and on uvloop (bot.py's).

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

import openai
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from llm.client import ChatModel  # noqa: E402 - after the path that finds them
from llm.gate import Gate  # noqa: E402
from llm.responses import ANSWER_PACE_S, read_chunks  # noqa: E402
from llm.server import ServerFeatures  # noqa: E402
from llm.servers import ModelServer  # noqa: E402

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


async def one_reply(client: openai.AsyncOpenAI, stack: str) -> None:
    """Read one streamed reply: through the SDK's parsed stream, or as ChatModel does (its request, read_chunks)."""
    if stack == "sdk":
        async for _ in await client.chat.completions.create(model="m", messages=[], stream=True):
            pass
        return
    pace = ANSWER_PACE_S if stack.startswith("paced") else None
    async with ChatModel(client, "m", streams=client)._opened([], None, {}, 30.0, stream=True) as reply:
        async for _ in read_chunks(reply, (lambda: pace) if pace else None):
            pass


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


async def measure(stack: str, port: int, replies: int) -> tuple[float, float]:
    """Return the CPU milliseconds and the wall seconds of one reply, medians over `replies` (after one to warm
    up)."""
    url = f"http://127.0.0.1:{port}/v1"
    server = None
    if stack in ("unpaced", "paced"):
        server = ModelServer.open(url, "sk-test", 30.0, Gate(None), ServerFeatures())
        client = server.streams if stack == "paced" else server.client
    elif stack != "floor":
        client = openai.AsyncOpenAI(base_url=url, api_key="sk-test", max_retries=0,
                                    http_client=openai.DefaultAioHttpClient())
    costs, walls = [], []
    loop = asyncio.get_running_loop()
    for number in range(replies + 1):
        started, began = cpu(), loop.time()
        await (floor_reply(port) if stack == "floor" else one_reply(client, stack))
        if number:
            costs.append((cpu() - started) * 1000)
            walls.append(loop.time() - began)
    if server is not None:
        await server.close()
    elif stack != "floor":
        await client.close()
    return statistics.median(costs), statistics.median(walls)



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=5)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        print(f"one reply of {CHUNKS} chunks at {1 / INTERVAL:.0f} a second; client CPU per reply, median of "
              f"{args.replies}; {socket.gethostname()}")
        for stack in ("sdk", "unpaced", "paced", "paced 64K", "floor"):
            on_asyncio, _ = asyncio.run(measure(stack, port, args.replies))
            on_uvloop, wall = uvloop.run(measure(stack, port, args.replies))
            print(f"{stack:<10} asyncio {on_asyncio:6.1f} ms   uvloop {on_uvloop:6.1f} ms   "
                  f"({on_uvloop / CHUNKS * 1000:.0f} µs a chunk on uvloop; {wall:.2f} s a reply)")
    finally:
        server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
