"""Telegram's webhook served on tornado (what transport/web.py ran on until issue 58) against aiohttp.web (what it
runs on now, beside the Bot API client and the openai SDK), side by side in one run; and what importing tornado
added to the bot. The measurement that decided the move (bench/README.md).

Each server is a process of its own on uvloop (as bot.py runs) with one route, a minimal equivalent of the bot's
webhook: the secret header checked (403) and a declared Content-Length over 1 MiB refused (413) before any body is
read; the body read as it streams, cut off past 1 MiB; parsed as JSON; answered 200 with no body.
  - tornado: an HTTPServer with the bot's body limits and a `stream_request_body` handler, as LimitedBody does;
  - aiohttp.web: an AppRunner with `lingering_time=0` (aiohttp's default would go on reading and discarding an
    unread body for up to 10 s before it closes the connection; tornado closes it at once) and a handler that
    reads `request.content` chunk by chunk up to the limit.

Before each round the bench checks, over raw sockets, that both answer a wrong secret with 403 and a declared
1.9 MB body with 413 before any body is sent. Then, the servers taking turns (which goes first alternates), an
aiohttp client in this process POSTs a 2 KB update `--requests` times one at a time on one kept-alive connection,
and `--requests` times from 8 tasks at once on 8 connections. Per server and way: its process's CPU per request
(its threads' run time from /proc/<pid>/task/*/schedstat, bench/process_cpu.py's cpu_seconds), and, one at a time,
the client's wall time per request, p50; the server's VmRSS once started and after the round. Each round starts
both servers afresh.

Import cost: a fresh process imports aiohttp.web, openai and telegram.ext with tornado blocked (telegram.ext then
leaves out its own webhook server, as without the `[webhooks]` extra), then unblocks it and imports tornado.web
and tornado.httpserver: the CPU (time.process_time), VmRSS and modules those add. Then the two choices on what
the bot holds either way, aiohttp (its clients import aiohttp, not aiohttp.web), openai and telegram.ext: tornado on
top of it, as before, or aiohttp.web in its place. Medians of `--rounds` rounds.

    .venv/bin/python bench/web_servers.py                   # 5 rounds of 2,000 requests each way: about 2 minutes
    .venv/bin/python bench/web_servers.py --rounds 1 --requests 200   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import uvloop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.process_cpu import cpu_seconds, rss_mib  # noqa: E402 - after the path that finds it
from tests.pg import free_port  # noqa: E402

SECRET = "bench-secret-token-0123456789"
HEADER = "X-Telegram-Bot-Api-Secret-Token"
CONCURRENCY = 8
# The server's part, shared by both: the webhook's limit (transport/web.py's WEBHOOK_MAX_BODY).
COMMON = f"""
import hmac, json, sys
import uvloop
SECRET, HEADER, LIMIT = {SECRET!r}.encode(), {HEADER!r}, 1_048_576
PORT = int(sys.argv[1])
def allowed(given):
    return hmac.compare_digest(given.encode(), SECRET)
def too_long(declared):
    value = (declared or "").split(",")[0].strip()
    return value.isdigit() and int(value) > LIMIT
"""
SERVERS = {
    "tornado": COMMON + """
import asyncio
import tornado.web
from tornado.httpserver import HTTPServer

@tornado.web.stream_request_body
class Webhook(tornado.web.RequestHandler):
    async def prepare(self):
        self.received = bytearray()
        if not allowed(self.request.headers.get(HEADER, "")):
            await self.refuse(403)
        elif too_long(self.request.headers.get("Content-Length")):
            await self.refuse(413)
        else:
            self.request.connection.set_max_body_size(LIMIT)  # tornado cuts off a chunked body past it

    def refuse(self, status):
        self.set_status(status)
        self.set_header("Connection", "close")  # the body is left unread
        return self.finish()

    def data_received(self, chunk):
        self.received += chunk

    def post(self):
        json.loads(self.received)

async def main():
    routes = tornado.web.Application([(r"/webhook", Webhook)], log_function=lambda handler: None)  # as access_log=None
    server = HTTPServer(routes, max_body_size=LIMIT,
                        max_buffer_size=LIMIT + 131_072)
    server.listen(PORT, "127.0.0.1")
    await asyncio.Event().wait()

uvloop.run(main())
""",
    "aiohttp": COMMON + """
import asyncio
from aiohttp import web

async def webhook(request):
    if not allowed(request.headers.get(HEADER, "")):
        return web.Response(status=403)
    if too_long(request.headers.get("Content-Length")):
        return web.Response(status=413)
    received = bytearray()
    async for chunk in request.content.iter_any():
        received += chunk
        if len(received) > LIMIT:  # a chunked body past the limit
            return web.Response(status=413)
    json.loads(received)
    return web.Response()

async def main():
    app = web.Application(client_max_size=LIMIT)
    app.router.add_post("/webhook", webhook)
    runner = web.AppRunner(app, access_log=None, lingering_time=0)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", PORT).start()
    await asyncio.Event().wait()

uvloop.run(main())
""",
}
# A fresh process imports sys.argv[1]'s modules with tornado blocked, then unblocks it and imports sys.argv[2]'s.
IMPORTS = """
import importlib, json, sys, time
def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
sys.modules["tornado"] = None  # "import tornado..." raises ImportError, as when it is not installed
started = time.process_time()
for name in sys.argv[1].split(","):
    importlib.import_module(name)
baseline = {"cpu_ms": (time.process_time() - started) * 1000, "rss_mib": rss_kib() / 1024,
            "modules": len(sys.modules)}
assert not any(name.startswith("tornado.") for name in sys.modules)
del sys.modules["tornado"]
started, before, modules = time.process_time(), rss_kib(), len(sys.modules)
for name in sys.argv[2].split(","):
    importlib.import_module(name)
print(json.dumps({"baseline": baseline, "cpu_ms": (time.process_time() - started) * 1000,
                  "rss_mib": (rss_kib() - before) / 1024, "modules": len(sys.modules) - modules}))
"""


def update_body() -> bytes:
    """Return a text message update of about 2 KB, as Telegram POSTs it."""
    person = {"id": 123456789, "is_bot": False, "first_name": "Lena", "last_name": "Ivanova",
              "username": "lena_iv", "language_code": "ru"}
    text = ("Привет! Сегодня ходила в горы, было очень красиво, а завтра снова на работу в больницу. " * 12)[:930]
    body = {"update_id": 912345678, "message": {
        "message_id": 4321, "date": 1764400000, "from": person, "text": text,
        "chat": {"id": 123456789, "type": "private", "first_name": "Lena", "last_name": "Ivanova",
                 "username": "lena_iv"},
        "entities": [{"offset": 0, "length": 7, "type": "bold"}]}}
    return json.dumps(body, ensure_ascii=False).encode()


async def start(name: str) -> tuple[subprocess.Popen, int]:
    """Return a running server process of kind `name` and its port, once it takes connections."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVERS[name], str(port)])
    deadline = time.monotonic() + 30
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            await writer.wait_closed()
            return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the {name} server did not start") from None
            await asyncio.sleep(0.05)


async def status_before_body(port: int, secret: str, length: int) -> int:
    """Return the status a server answers to a POST head declaring `length` bytes, none of which is sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n{HEADER}: {secret}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode())
        line = await asyncio.wait_for(reader.readline(), 5)
        return int(line.split()[1])
    finally:
        writer.close()


async def check(name: str, port: int, body: bytes) -> None:
    """Raise AssertionError unless the server refuses a wrong secret (403) and an oversized declared body (413)
    before reading it, and accepts the update (200)."""
    assert await status_before_body(port, "wrong", len(body)) == 403, name
    assert await status_before_body(port, SECRET, 1_900_000) == 413, name
    async with aiohttp.ClientSession() as session:
        async with session.post(f"http://127.0.0.1:{port}/webhook", data=body,
                                headers={HEADER: SECRET, "Content-Type": "application/json"}) as response:
            assert response.status == 200, (name, response.status)


async def post_all(session: aiohttp.ClientSession, url: str, body: bytes, count: int) -> list[float]:
    """POST `body` `count` times one after another; return each request's wall seconds."""
    headers = {HEADER: SECRET, "Content-Type": "application/json"}
    walls = []
    for _ in range(count):
        started = time.perf_counter()
        async with session.post(url, data=body, headers=headers) as response:
            await response.read()
            assert response.status == 200, response.status
        walls.append(time.perf_counter() - started)
    return walls


async def measure(pid: int, port: int, body: bytes, requests: int) -> dict[str, float]:
    """Return a server's CPU per request in ms, one at a time ("serial") and CONCURRENCY at once ("concurrent"),
    and the client's p50 wall time per request one at a time."""
    url = f"http://127.0.0.1:{port}/webhook"
    figures = {}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as session:
        await post_all(session, url, body, 20)  # the connection opened, the server's code paths warm
        before = cpu_seconds(pid)
        walls = await post_all(session, url, body, requests)
        figures["serial"] = (cpu_seconds(pid) - before) / requests * 1000
        figures["wall"] = statistics.median(walls) * 1000
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONCURRENCY)) as session:
        await asyncio.gather(*(post_all(session, url, body, 5) for _ in range(CONCURRENCY)))
        before = cpu_seconds(pid)
        share = requests // CONCURRENCY
        await asyncio.gather(*(post_all(session, url, body, share) for _ in range(CONCURRENCY)))
        figures["concurrent"] = (cpu_seconds(pid) - before) / (share * CONCURRENCY) * 1000
    return figures


async def round_of(number: int, body: bytes, requests: int) -> dict[str, dict[str, float]]:
    """Return one round's figures for each server, both started afresh, taking turns in an order that alternates."""
    names = list(SERVERS) if number % 2 == 0 else list(reversed(SERVERS))
    servers = {name: await start(name) for name in names}
    try:
        figures = {}
        for name in names:
            process, port = servers[name]
            await check(name, port, body)
            started_rss = rss_mib(process.pid)
            figures[name] = await measure(process.pid, port, body, requests)
            figures[name]["rss_start"] = started_rss
            figures[name]["rss_after"] = rss_mib(process.pid)
        return figures
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait()


# (what is there, what is added). First tornado on top of aiohttp.web, as asked: what it adds beside the server the
# move would bring. Then the two choices on what the bot holds either way (its clients import aiohttp, not
# aiohttp.web): tornado, as before issue 58, or aiohttp.web in its place. The stdlib modules both need
# (http.cookies, whose regular expressions take most of it) are paid by whichever comes first, so only the last
# two compare.
IMPORT_CASES = (("aiohttp.web,openai,telegram.ext", "tornado.web,tornado.httpserver"),
                ("aiohttp,openai,telegram.ext", "tornado.web,tornado.httpserver"),
                ("aiohttp,openai,telegram.ext", "aiohttp.web"))


def import_cost(there: str, added: str) -> dict:
    """Return what importing the modules `added` adds to a fresh process that holds those `there` (tornado
    blocked while they are imported), and that process's own figures before ("baseline")."""
    done = subprocess.run([sys.executable, "-c", IMPORTS, there, added], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout)


def spread(values: list[float], digits: int) -> str:
    """Return the median of `values` and, in brackets, each of them."""
    return f"{statistics.median(values):.{digits}f}  ({', '.join(f'{v:.{digits}f}' for v in values)})"


def main() -> None:
    """Measure both servers for the rounds asked, then the import cost, and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="POSTs each way a round (default 2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    arguments = parser.parse_args()
    body = update_body()
    load = os.getloadavg()[0]
    rounds = [uvloop.run(round_of(number, body, arguments.requests)) for number in range(arguments.rounds)]
    imports: dict[tuple[str, str], list[dict]] = {case: [] for case in IMPORT_CASES}
    for _ in range(arguments.rounds):
        for case in IMPORT_CASES:
            imports[case].append(import_cost(*case))
    print(f"webhook POSTs of {len(body):,} bytes, {arguments.requests:,} each way a round; medians of "
          f"{arguments.rounds} rounds (each round's figure); load average {load:.1f} "
          f"on {os.cpu_count()} cores at the start")
    rows = (("serial", "server CPU per request, one at a time, ms", 3),
            ("concurrent", f"server CPU per request, {CONCURRENCY} at once, ms", 3),
            ("wall", "client wall time per request, one at a time, p50 ms", 3),
            ("rss_start", "server VmRSS once started, MiB", 1),
            ("rss_after", "server VmRSS after the round, MiB", 1))
    for key, label, digits in rows:
        print(f"  {label}:")
        for name in SERVERS:
            print(f"    {name:8} {spread([r[name][key] for r in rounds], digits)}")
    print("imports, in a fresh process (tornado blocked until the last step):")
    for (there, added), runs in imports.items():
        print(f"  {there}: CPU {spread([r['baseline']['cpu_ms'] for r in runs], 0)} ms, "
              f"VmRSS {spread([r['baseline']['rss_mib'] for r in runs], 1)} MiB, "
              f"{statistics.median(r['baseline']['modules'] for r in runs):.0f} modules")
        print(f"    then {added}: CPU {spread([r['cpu_ms'] for r in runs], 1)} ms, "
              f"VmRSS {spread([r['rss_mib'] for r in runs], 2)} MiB, "
              f"{statistics.median(r['modules'] for r in runs):.0f} modules")

if __name__ == "__main__":
    main()
