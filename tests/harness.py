"""Runs the real Application in the test's event loop against the Bot API and OpenAI doubles."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import AsyncIterator, Callable

import aiohttp
from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot import build_application, stop_upkeep
from clock import utc_now
from config import Config
from llm.discovery import Resolver, resolve_host
from tests.timeouts import scaled


def make_config(telegram, openai, database: Path, **overrides) -> Config:
    """Return a Config pointing at the doubles, with short timings for tests."""
    config = Config(
        telegram_token=telegram.token,
        openai_api_key="sk-test",
        openai_base_url=openai.base_url,
        telegram_api_base_url=telegram.base_url,
        telegram_file_base_url=telegram.base_file_url,
        database_path=database,
        typing_interval_s=0.2,
        model_attempt_timeout_s=2.0,
        model_retry_budget_s=3.0,
        model_backoff_s=0.05,
        model_concurrency=0,  # the double serves any number at once; left unset, its loopback address would give 1
    )
    return replace(config, **overrides)


@contextlib.asynccontextmanager
async def running_bot(config: Config, clock: Callable[[], datetime] = utc_now,
                      resolve: Resolver = resolve_host) -> AsyncIterator[Application]:
    """Start the bot as `bot.py` does (initialize, post_init, polling, start) and stop it the same way; every
    service reads `clock`, and `resolve` says where the model server's host is (MODEL_CONCURRENCY unset)."""
    app = await build_application(config, clock=clock, resolve=resolve)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(poll_interval=0.0, timeout=1, allowed_updates=Update.ALL_TYPES)
    await app.start()
    try:
        yield app
    finally:
        stop_upkeep(app.bot_data)  # as bot.py's stop signal does: a pass in flight is not waited for
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        await app.post_shutdown(app)


class ProcessedUpdates:
    """Notes each update's id once the Application has finished with it (handlers, error handler, inbox mark).

    Wraps the application's update processor, so a test can await an update that gets no answer.
    """

    def __init__(self, app: Application) -> None:
        self.done: set[int] = set()
        self._changed = asyncio.Event()
        processor = app.update_processor
        original = processor.process_update

        async def tracked(update: object, coroutine) -> None:
            try:
                await original(update, coroutine)
            finally:
                if isinstance(update, Update):
                    self.done.add(update.update_id)
                    self._changed.set()
                    self._changed = asyncio.Event()

        processor.process_update = tracked  # type: ignore[method-assign]

    async def wait(self, update_id: int, timeout: float = 5.0) -> None:
        """Return once update_id has been processed; fail after `timeout` seconds (times TEST_TIMEOUT_SCALE)."""
        loop = asyncio.get_running_loop()
        timeout = scaled(timeout)
        deadline = loop.time() + timeout
        while update_id not in self.done:
            remaining = deadline - loop.time()
            assert remaining > 0, f"update {update_id} was not processed within {timeout:g}s"
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


async def wait_healthy(http, port: int, alive=lambda: True, tries: int = 600) -> bool:
    """Wait until a bot process answers GET /healthz on `port` with 200; False if `alive()` turns False or
    `tries` probes 0.1 s apart (times TEST_TIMEOUT_SCALE) all fail. `http` is an aiohttp ClientSession."""
    for _ in range(round(scaled(tries))):
        if not alive():
            return False
        try:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                if response.status == 200:
                    return True
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.1)
    return False


async def session(store, user_id: int, limit: int = 20) -> list[dict[str, str]]:
    """Return the user's last `limit` stored messages, oldest first, as chat messages."""
    return [{"role": role, "content": content} for role, content, _at in await store.outreach.timed_history(user_id,
                                                                                                            limit)]


async def serve_post(path: str, handler) -> tuple[web.AppRunner, str]:
    """Serve `handler` for POST `path` on a free loopback port; return the runner (clean it up) and the server's
    address, http://127.0.0.1:PORT."""
    app = web.Application()
    app.router.add_post(path, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


async def closed_port() -> int:
    """Return a loopback port that was just listened on and is closed now: a connection to it is refused."""
    server = await asyncio.start_server(lambda *_: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    return port
