"""Real bot processes in webhook mode, fed updates as Telegram's webhook (behind a load balancer) would:
used by tests/test_scale_out.py and bench/scale_out.py."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from tests.harness import wait_healthy
from tests.pg import free_port
from tests.test_process import start_bot
from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent
SECRET = "webhook-bots-secret_0123456789"
WEBHOOK_URL = "https://bot.example.com/tg/hook"
# bot.py's main() with Telegram's limiter off (the limiter is not an environment setting).
LIMITER_OFF = (
    "import dataclasses, runpy, sys, config; load = config.load_config; "
    "config.load_config = lambda env: dataclasses.replace(load(env), telegram_max_rate=0); "
    "sys.argv = ['bot.py']; runpy.run_path('bot.py', run_name='__main__')"
)


@dataclass
class Bot:
    process: asyncio.subprocess.Process
    port: int
    log_tail: collections.deque = field(default_factory=lambda: collections.deque(maxlen=40))
    errors: int = 0
    drains: list[asyncio.Task] = field(default_factory=list)

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read the pipe to the end (a full pipe would stall the bot), counting ERRORs and tracebacks."""
        async for raw in stream:
            line = raw.decode(errors="replace").rstrip()
            self.log_tail.append(line)
            self.errors += " ERROR " in line or "CRITICAL" in line or line.startswith("Traceback")


class Bots:
    """The bot processes of one configuration, and posting updates to their webhooks."""

    def __init__(self, env: dict[str, str], limiter: bool = True) -> None:
        self.env, self.limiter = env, limiter
        self.bots: list[Bot] = []
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60),
                                          connector=aiohttp.TCPConnector(limit=0))
        self.posts = collections.Counter()
        self.refused = 0

    async def start(self, count: int) -> None:
        for _ in range(count):
            port = free_port()
            env = {**self.env, "PORT": str(port)}
            if self.limiter:
                process = await start_bot(env)
            else:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", LIMITER_OFF, cwd=ROOT, env=env,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            bot = Bot(process, port)
            bot.drains = [asyncio.create_task(bot.drain(process.stdout)),
                          asyncio.create_task(bot.drain(process.stderr))]
            self.bots.append(bot)
        for bot in self.bots:
            await self._wait_healthy(bot)
        pids = [bot.process.pid for bot in self.bots]
        assert len(set(pids)) == len(pids) and os.getpid() not in pids, pids
        for pid in pids:  # each a live python running bot.py, not a thread of this one
            assert "python" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"), pid

    async def _wait_healthy(self, bot: Bot) -> None:
        if not await wait_healthy(self.http, bot.port, lambda: bot.process.returncode is None):
            raise RuntimeError(f"the bot on port {bot.port} did not come up (exit {bot.process.returncode}): "
                               + "\n".join(bot.log_tail))

    async def post(self, index: int, update: dict) -> bool:
        """True when that process answered 200 (Telegram then considers the update delivered)."""
        self.posts[index] += 1
        try:
            async with self.http.post(
                f"http://127.0.0.1:{self.bots[index].port}/tg/hook", data=json.dumps(update),
                headers={"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"},
            ) as response:
                ok = response.status == 200
        except (aiohttp.ClientError, asyncio.TimeoutError):
            ok = False
        self.refused += not ok
        return ok

    async def stop(self) -> None:
        for bot in self.bots:
            if bot.process.returncode is None:
                bot.process.send_signal(signal.SIGTERM)
        for bot in self.bots:
            try:
                await asyncio.wait_for(bot.process.wait(), scaled(30))
            except asyncio.TimeoutError:
                bot.process.kill()
                await bot.process.wait()
            for task in bot.drains:
                try:
                    await asyncio.wait_for(task, scaled(5))
                except (asyncio.TimeoutError, asyncio.CancelledError):
                    task.cancel()
        await self.http.close()


def text_update(update_id: int, user_id: int, text: str, first_name: str | None = None) -> dict:
    """A text message in the user's private chat, as Telegram POSTs it to the webhook."""
    name = first_name or f"U{user_id}"
    user = {"id": user_id, "is_bot": False, "first_name": name, "language_code": "en"}
    chat = {"id": user_id, "type": "private", "first_name": name}
    return {"update_id": update_id, "message": {"message_id": update_id, "date": int(time.time()), "chat": chat,
                                                "from": user, "text": text}}
