"""Big bodies: three 90 MB POSTs at once to each route of the web server, and what they cost the bot.

The real `bot.py` runs as a subprocess in webhook mode with WEBAPP_URL set (so the memory page shares the
port), against the Bot API and OpenAI doubles over loopback. For each route in turn, three clients at once
send a 90 MB body with its Content-Length, each streamed from a generator in 64 KiB pieces (the bench itself
holds no big body), while reading the answer as it comes:
  - the webhook with a wrong secret token;
  - the webhook with the right secret (a small update padded with JSON whitespace: valid, if it were read);
  - the memory page's API (POST api/facts) without initData.
A client stops sending as soon as its answer (or the connection's end) arrives.

Measured: each answer's status line and its time from the first byte sent, how much of the body this process
had handed to its socket by then (what the bot read, plus the few MiB loopback's socket buffers hold), and the
bot's resident memory (VmRSS from /proc/PID/status, sampled every 10 ms) above what it was before that route's
three POSTs; at the end the bot's VmHWM (its peak since it started) before and after.
Goal: the RSS grows by at most 16 MiB and every answer comes within 1 s.

    .venv/bin/python bench/big_bodies.py              # 90 MB bodies
    .venv/bin/python bench/big_bodies.py --mb 20      # smaller ones
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import wait_healthy  # noqa: E402
from tests.pg import free_port  # noqa: E402
from tests.test_process import environment  # noqa: E402

SECRET = "big-bodies-secret_0123456789"
PIECE = 65_536
CLIENTS = 3


@dataclass
class Answer:
    status: str  # the status line, or what ended the connection instead
    seconds: float
    sent: int  # body bytes written by the time the answer came


def padded(prefix: bytes, size: int) -> Iterator[bytes]:
    """Yield `size` bytes: `prefix`, then JSON whitespace, one reused 64 KiB piece at a time."""
    yield prefix
    left, blank = size - len(prefix), b" " * PIECE
    while left > 0:
        yield blank if left >= PIECE else blank[:left]
        left -= PIECE


async def big_post(port: int, path: str, headers: dict[str, str], prefix: bytes, size: int) -> Answer:
    """POST a `size`-byte body to `path`, reading the answer while sending; return what came back and when.

    A bare socket, read and written separately: a reset while sending does not throw away an answer that
    arrived before it (a stream's transport would drop it with the connection)."""
    loop = asyncio.get_running_loop()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setblocking(False)
    head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {size}",
            "Content-Type: application/json", *(f"{name}: {value}" for name, value in headers.items())]
    started = time.perf_counter()
    answer = asyncio.ensure_future(loop.sock_recv(sock, 4096))
    answered: list[float] = []
    answer.add_done_callback(lambda _: answered.append(time.perf_counter()))
    sent = 0
    try:
        await loop.sock_sendall(sock, ("\r\n".join(head) + "\r\n\r\n").encode())
        for piece in padded(prefix, size):
            if answer.done():
                break
            await loop.sock_sendall(sock, piece)
            sent += len(piece)
    except OSError:  # the bot closed the connection: its answer, if any, is still there to read
        pass
    try:
        first = await asyncio.wait_for(answer, 120)
        status = first.split(b"\r\n")[0].decode(errors="replace") or "closed without an answer"
    except (OSError, asyncio.TimeoutError) as error:
        status = f"{type(error).__name__}, no answer"
    finally:
        sock.close()
    return Answer(status, (answered[0] if answered else time.perf_counter()) - started, sent)


def memory_kib(pid: int) -> dict[str, int]:
    """Return the process's VmRSS and VmHWM in KiB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


async def peak_rss(pid: int, stop: asyncio.Event) -> int:
    """Return the largest VmRSS (KiB) seen every 10 ms until `stop` is set."""
    peak = 0
    while not stop.is_set():
        peak = max(peak, memory_kib(pid)["VmRSS"])
        await asyncio.sleep(0.01)
    return max(peak, memory_kib(pid)["VmRSS"])


async def one_route(pid: int, port: int, name: str, path: str, headers: dict[str, str], size: int) -> bool:
    """Send three big bodies to one route at once, print what happened; True when within the goal."""
    await asyncio.sleep(0.5)  # let the previous route's memory settle
    before = memory_kib(pid)["VmRSS"]
    stop = asyncio.Event()
    sampler = asyncio.create_task(peak_rss(pid, stop))
    answers = await asyncio.gather(*(big_post(port, path, headers, b'{"update_id": %d}' % (900_000_000 + n), size)
                                     for n in range(CLIENTS)))
    await asyncio.sleep(0.3)  # what the bot still does after answering counts too
    stop.set()
    peak = await sampler
    growth = (peak - before) / 1024
    print(f"{name}:")
    for answer in answers:
        print(f"    {answer.status:<40} after {answer.seconds:6.3f} s, {answer.sent / 2**20:6.1f} MiB handed to the"
              " socket by then")
    print(f"    resident memory: {before / 1024:.1f} MiB before, peak {peak / 1024:.1f} MiB: +{growth:.1f} MiB")
    return growth <= 16 and all(answer.seconds <= 1 for answer in answers)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=90, help="each body's size in MB (10**6 bytes)")
    args = parser.parse_args()
    size = args.mb * 10**6
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        env = environment(
            TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
            TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(Path(folder) / "bot.db"),
            WEBHOOK_URL="https://bench.example/tg/hook", WEBHOOK_SECRET=SECRET,
            WEBAPP_URL="https://bench.example/memory/", PORT=str(port), PROACTIVE="off", LOG_LEVEL="WARNING",
        )
        log_path = Path(folder) / "bot.log"
        with log_path.open("wb") as log:
            process = await asyncio.create_subprocess_exec(sys.executable, "bot.py", cwd=ROOT, env=env,
                                                           stdout=log, stderr=log)
        try:
            async with aiohttp.ClientSession() as http:
                if not await wait_healthy(http, port, lambda: process.returncode is None):
                    print(log_path.read_text(errors="replace"))
                    return 1
            start = memory_kib(process.pid)
            print(f"bot.py (pid {process.pid}) in webhook mode with the memory page: VmRSS {start['VmRSS'] / 1024:.1f}"
                  f" MiB, VmHWM {start['VmHWM'] / 1024:.1f} MiB; {CLIENTS} bodies of {size / 10**6:.0f} MB at once")
            routes = [
                ("webhook, wrong secret", "/tg/hook", {"X-Telegram-Bot-Api-Secret-Token": "wrong"}),
                ("webhook, right secret", "/tg/hook", {"X-Telegram-Bot-Api-Secret-Token": SECRET}),
                ("page API without initData", "/memory/api/facts", {}),
            ]
            within = [await one_route(process.pid, port, *route, size) for route in routes]
            end = memory_kib(process.pid)
            print(f"VmHWM {start['VmHWM'] / 1024:.1f} MiB at the start, {end['VmHWM'] / 1024:.1f} MiB at the end;"
                  f" goal (+16 MiB at most, every answer within 1 s) {'met' if all(within) else 'NOT met'}")
        finally:
            if process.returncode is None:
                process.terminate()
                await asyncio.wait_for(process.wait(), 30)
            await telegram.close()
            await model.close()
            text = log_path.read_text(errors="replace")
            print(f"bot log: {text.count('Traceback')} traceback(s), {text.count(' ERROR ')} ERROR line(s),"
                  f" {text.count(' WARNING ')} WARNING line(s)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
