"""Runs the real Application in the test's event loop against the Bot API and OpenAI doubles."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import AsyncIterator

from telegram import Update
from telegram.ext import Application

from bot import build_application
from config import Config


def make_config(telegram, openai, database: Path, **overrides) -> Config:
    """Return a Config pointing at the doubles, with short timings for tests."""
    config = Config(
        telegram_token=telegram.token,
        openai_api_key="sk-test",
        openai_base_url=openai.base_url,
        telegram_api_base_url=telegram.base_url,
        database_path=database,
        typing_interval_s=0.2,
        model_attempt_timeout_s=2.0,
        model_retry_budget_s=3.0,
        model_backoff_s=0.05,
    )
    return replace(config, **overrides)


@contextlib.asynccontextmanager
async def running_bot(config: Config) -> AsyncIterator[Application]:
    """Start the bot as `bot.py` does (initialize, post_init, polling, start) and stop it the same way."""
    app = build_application(config)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(poll_interval=0.0, timeout=1, allowed_updates=Update.ALL_TYPES)
    await app.start()
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()
        await app.post_shutdown(app)
