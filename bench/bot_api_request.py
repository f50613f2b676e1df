"""The CPU one Bot API request costs the bot's process: the transport on aiohttp (transport/http.py).

A local aiohttp server in a process of its own answers `sendMessage` with a message (as Telegram does) and holds
each `getUpdates` for `--hold-ms` before it answers with one update, a long poll made short. The client process
runs on uvloop (as bot.py does) and takes its own CPU (time.process_time) over `--requests` sendMessage POSTs
`--gap-ms` apart (a bot between messages: each request runs cold) and `--polls` getUpdates, `--runs` times, and
the medians are printed. python-telegram-bot's own parsing is left out. (Until issue 58 this compared the
transport with the bot's own HTTP/1.1 client, net/, since deleted: bench/README.md keeps those figures.)

    .venv/bin/python bench/bot_api_request.py
    .venv/bin/python bench/bot_api_request.py --requests 50 --polls 10 --runs 3   # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import uvloop
from telegram import Bot
from telegram.request import BaseRequest, RequestData

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from transport.http import BotApiRequest  # noqa: E402 - after the path that finds them

TOKEN = "123456:BENCH-TOKEN"
SERVER = """
import asyncio, json, sys
from aiohttp import web
HOLD = float(sys.argv[2])
MESSAGE = json.dumps({"ok": True, "result": {"message_id": 1, "date": 1700000000, "text": "x" * 200,
    "chat": {"id": 7, "type": "private", "first_name": "Lena"},
    "from": {"id": 1, "is_bot": True, "first_name": "Bot", "username": "bot"}}}).encode()
UPDATES = json.dumps({"ok": True, "result": [{"update_id": 1, "message": {"message_id": 2, "date": 1700000000,
    "text": "hello there", "chat": {"id": 7, "type": "private", "first_name": "Lena"},
    "from": {"id": 7, "is_bot": False, "first_name": "Lena"}}}]}).encode()
async def send(request):
    await request.read()
    return web.Response(body=MESSAGE, content_type="application/json")
async def poll(request):
    await request.read()
    await asyncio.sleep(HOLD)
    return web.Response(body=UPDATES, content_type="application/json")
app = web.Application()
app.router.add_post("/bot{token}/sendMessage", send)
app.router.add_post("/bot{token}/getUpdates", poll)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None)
"""


class Capture(BaseRequest):
    """A transport that keeps the RequestData python-telegram-bot builds for a call."""

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
    await Bot(TOKEN, request=capture).do_api_request("captured", api_kwargs=parameters)
    assert capture.data is not None
    return capture.data


async def cpu_per_request(transport, url: str, data: RequestData, count: int, gap_s: float,
                          read_timeout: float) -> float:
    """Return the process's CPU per request, in ms, over `count` requests `gap_s` apart (the gaps counted too:
    what a transport does off the request's path, a timer, a closing connection, is its cost as well)."""
    started = time.process_time()
    for _ in range(count):
        await asyncio.sleep(gap_s)
        status, _ = await transport.do_request(url, "POST", data, read_timeout=read_timeout)
        assert status == 200, status
    return (time.process_time() - started) / count * 1000


async def measure(port: int, arguments: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Return each transport's CPU per sendMessage and per getUpdates, in ms, one figure a run."""
    base = f"http://127.0.0.1:{port}/bot{TOKEN}"
    message = await request_data(chat_id=7, text="Привет! " + "a reply of a few sentences. " * 8,
                                 parse_mode="HTML")
    polling = await request_data(timeout=10, offset=2, allowed_updates=["message", "callback_query"])
    figures: dict[str, dict[str, list[float]]] = {name: {"send": [], "poll": []} for name in ("aiohttp",)}
    makers = {"aiohttp": BotApiRequest}
    for _ in range(arguments.runs):
        for name, make in makers.items():
            sends, polls = make(256), make(1)
            await sends.initialize()
            await polls.initialize()
            try:
                await sends.do_request(f"{base}/sendMessage", "POST", message)  # the connection opened
                await polls.do_request(f"{base}/getUpdates", "POST", polling)
                figures[name]["send"].append(await cpu_per_request(
                    sends, f"{base}/sendMessage", message, arguments.requests, arguments.gap_ms / 1000, 5.0))
                figures[name]["poll"].append(await cpu_per_request(
                    polls, f"{base}/getUpdates", polling, arguments.polls, 0.0, 15.0))
            finally:
                await sends.shutdown()
                await polls.shutdown()
    return figures


def free_port() -> int:
    """Return a loopback port free right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    """Start the server, measure the transport, print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="sendMessage POSTs a run (default 200)")
    parser.add_argument("--polls", type=int, default=20, help="getUpdates long polls a run (default 20)")
    parser.add_argument("--hold-ms", type=float, default=100.0, help="how long the server holds a poll")
    parser.add_argument("--gap-ms", type=float, default=20.0, help="the pause before each sendMessage")
    parser.add_argument("--runs", type=int, default=5, help="runs of each transport, taking turns (default 5)")
    arguments = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(arguments.hold_ms / 1000)])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        figures = uvloop.run(measure(port, arguments))
    finally:
        server.terminate()
        server.wait()
    print(f"CPU of the client process per request, ms, median of {arguments.runs} runs (each run's figure):")
    for what, label in (("send", f"sendMessage ({arguments.requests} a run, {arguments.gap_ms:g} ms apart)"),
                        ("poll", f"getUpdates ({arguments.polls} a run, held {arguments.hold_ms:g} ms)")):
        print(f"  {label}:")
        runs = figures["aiohttp"][what]
        print(f"    aiohttp  {statistics.median(runs):.3f}  ({', '.join(f'{r:.3f}' for r in runs)})")


if __name__ == "__main__":
    main()
